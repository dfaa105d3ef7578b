# shellcheck shell=bash
# Shared helpers for bench/core.sh and bench/metadata.sh (sourced, not run).

log()  { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
warn() { printf '[%s] WARNING: %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Is PATH (or anything below it) a mount point right now?
mounts_below() {
	local p
	p=$(readlink -f "$1" 2>/dev/null || printf '%s' "$1")
	# /proc/mounts escapes blanks as \040; our paths contain none.
	awk -v p="$p" '$2 == p || index($2, p "/") == 1 { print $2 }' /proc/mounts
}

is_mounted() { awk -v p="$1" '$2 == p { f = 1 } END { exit !f }' /proc/mounts; }

# Has pid $1 exited? No such process, or a zombie none of whose threads
# runs: an unmounted daemon is an orphan, which PID 1 on our machines
# reaps 1.4-2 s after it exits, and `kill -0` succeeds on a zombie
# (tests/integration/lib.sh's t_pid_gone).
pid_gone() {
	local st
	st=$(cat "/proc/$1/status" 2>/dev/null) || return 0
	grep -q '^State:.*Z' <<<"$st" && grep -q '^Threads:[[:space:]]*1$' <<<"$st"
}

# Wait up to $2 seconds (default 10) for pid $1 to exit.
wait_pid_gone() {
	local pid=$1 t=${2:-10} i
	for ((i = 0; i < t * 50; i++)); do
		pid_gone "$pid" && return 0
		sleep 0.02
	done
	return 1
}

# Stop a pid we started: TERM, wait, then KILL.
stop_pid() {
	local pid=$1 what=${2:-process}
	[[ -n $pid ]] || return 0
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true
	if ! wait_pid_gone "$pid" 15; then
		warn "$what (pid $pid) ignored SIGTERM; sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		wait_pid_gone "$pid" 5 || warn "$what (pid $pid) still alive"
	fi
}

# Unmount a FUSE mount point, politely first, lazily as a last resort.
fuse_umount() {
	local m=$1 i
	is_mounted "$m" || return 0
	for i in 1 2 3; do
		fusermount3 -u "$m" 2>/dev/null && return 0
		umount "$m" 2>/dev/null && return 0
		sleep 1
	done
	warn "lazy-unmounting $m"
	fusermount3 -uz "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
}

# Wait up to $2 s for $1 to become a mount point.
wait_mounted() {
	local m=$1 t=${2:-20} i
	for ((i = 0; i < t * 10; i++)); do
		is_mounted "$m" && return 0
		sleep 0.1
	done
	return 1
}

machine_header() {
	local model
	model=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
	echo "- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	echo "- host: $(hostname)"
	echo "- cpu: ${model:-unknown}; nproc: $(nproc)"
	echo "- memory: $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "- kernel: $(uname -srm)"
	echo "- fio: $(fio --version 2>/dev/null || echo missing)"
	echo "- git: $(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --short HEAD 2>/dev/null || echo '?')"
}

# Pids of arraysim daemons serving store $1 (matched on their command line).
arraysim_pids() {
	pgrep -f -- "--store[ =]$1( |\$)" 2>/dev/null || true
}

# VmRSS / RssAnon / RssFile of pid $1, in bytes, tab-separated.
rss_of() {
	awk '/^VmRSS:/ { r = $2 } /^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 }
	     END { printf "%d\t%d\t%d\n", r * 1024, a * 1024, f * 1024 }' "/proc/$1/status"
}

# Run a command in the background and wait for it, so a trapped signal
# (Ctrl-C, TERM) interrupts the wait at once instead of after the command.
# `timeout` puts itself in its own process group, so the terminal's Ctrl-C
# does not reach fio: kill_child (from the exit trap) stops it instead.
CHILD=""
run_child() {
	local rc=0
	"$@" &
	CHILD=$!
	wait "$CHILD" || rc=$?
	CHILD=""
	return "$rc"
}
kill_child() {
	[[ -n $CHILD ]] || return 0
	kill -TERM "$CHILD" 2>/dev/null || true # timeout relays it to fio's group
	wait_pid_gone "$CHILD" 20 || kill -KILL "$CHILD" 2>/dev/null || true
	wait "$CHILD" 2>/dev/null || true
	CHILD=""
}
