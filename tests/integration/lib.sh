# tests/integration/lib.sh: shared helpers for the mount tests.
#
# Sourced (never executed) by every tests/integration/*.sh script:
#
#   #!/usr/bin/env bash
#   set -euo pipefail
#   . "$(dirname "$0")/lib.sh"
#   t_setup                  # T, STORE (empty dir), MNT; cleanup trap installed
#   t_mount                  # arraysim mount --store "$STORE" "$MNT"
#   ...                      # test body; t_fail / t_assert_eq on a mismatch
#   t_remount                # umount, wait for the daemon to exit, mount again
#
# Environment (set by meson's test_env in tests/meson.build):
#   ARRAYSIM      path to the built `arraysim` binary
#   ARRAYSIM_SRC  source root (test data lives under tests/integration/data/)
# and optionally (not set by meson):
#   ARRAYSIM_IO_URING  off|auto|on: the FUSE transport of every t_mount
#   ARRAYSIM_WRITEBACK_CACHE  1: every t_mount with -o writeback_cache
#   ARRAYSIM_MOUNT_PROFILE  a profile (name or .ini) for every t_mount that
#                      names none: e.g. tests/integration/data/compress-lz4.ini
#                      runs the integrity suite with compression on
#
# Exit status follows meson: 0 pass, 77 skip, anything else fail. Sourcing this
# file exits 77 when /dev/fuse, fusermount3 or an executable $ARRAYSIM is
# missing. Whatever happens, t_cleanup leaves no mount and no daemon behind and
# keeps the test's own exit status.

: "${ARRAYSIM_SRC:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
T_DATA="$ARRAYSIM_SRC/tests/integration/data"

t_skip() { echo "SKIP: $*" >&2; exit 77; }

[ -c /dev/fuse ] || t_skip "/dev/fuse is missing"
[ -n "${ARRAYSIM:-}" ] && [ -x "$ARRAYSIM" ] \
	|| t_skip "ARRAYSIM='${ARRAYSIM:-}' is not an executable (build tools/arraysim first)"
command -v fusermount3 >/dev/null 2>&1 || t_skip "fusermount3 is missing (apt install fuse3)"
command -v python3 >/dev/null 2>&1 || t_skip "python3 is missing"

# t_require_cmd CMD...: skip the test unless every CMD is on PATH.
t_require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || t_skip "'$c' is not installed"
	done
}

# t_only_profiles VAR PROFILE: skip (77) unless the environment variable
# VAR is unset or empty, or lists PROFILE among its space-separated names.
# scripts/test.sh --sanitize narrows the per-profile tests this way.
t_only_profiles() {
	local list=${!1:-}
	if [ -n "$list" ] && ! [[ " $list " == *" $2 "* ]]; then
		t_skip "$2 is not in $1 ($list)"
	fi
}

t_log() { echo "--- $*" >&2; }

# t_fail MSG: report and end the test with status 1 (t_cleanup runs on EXIT).
t_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# t_assert_eq ACTUAL EXPECTED MSG
t_assert_eq() {
	[ "$1" = "$2" ] || t_fail "$3: got '$1', expected '$2'"
}

# t_is_mounted [DIR]: DIR (default $MNT) is a mount point. Reads
# /proc/self/mountinfo instead of stat()ing DIR, which would hang on a stuck
# daemon or fail with ENOTCONN on a dead one.
t_is_mounted() {
	local dir="${1:-$MNT}"
	awk -v d="$dir" '$5 == d { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# t_daemon_pid: the pid on the first line of $STORE/lock (empty if none).
t_daemon_pid() {
	[ -s "$STORE/lock" ] || return 0
	head -n 1 "$STORE/lock" | tr -cd '0-9'
}

# t_pid_is_arraysim PID: PID is alive and is an arraysim process (guards
# against killing whatever reused a stale pid from a leftover lock file).
t_pid_is_arraysim() {
	local pid="$1"
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q arraysim
}

# t_pid_gone PID: PID has exited: no such process, or a zombie none of
# whose threads runs (its files, the store lock among them, are closed).
# A daemon is an orphan, and PID 1 on these machines reaps one 1.4 to 2 s
# after it exits; `kill -0` succeeds on a zombie, so each umount waited
# for that reap (meta_damage_sweep: 47 of its 52 s at 30 positions).
t_pid_gone() {
	local st
	st=$(cat "/proc/$1/status" 2>/dev/null) || return 0
	grep -q '^State:.*Z' <<<"$st" && grep -q '^Threads:[[:space:]]*1$' <<<"$st"
}

# t_wait_pid_exit PID SECONDS: wait until PID is gone; status 1 on timeout.
t_wait_pid_exit() {
	local pid="$1" i
	for ((i = 0; i < $2 * 50; i++)); do
		[ -n "$pid" ] && ! t_pid_gone "$pid" || return 0
		sleep 0.02
	done
	return 1
}

t_setup() {
	T=$(mktemp -d /tmp/arraysim-test.XXXXXX)
	STORE=$T/store
	MNT=$T/mnt
	mkdir "$STORE" "$MNT"
	T_FIO_N=0
	trap 't_cleanup' EXIT
	trap 't_cleanup 130' INT
	trap 't_cleanup 143' TERM
	export T STORE MNT
	# A sanitized daemon's stderr is /dev/null once it detaches: send every
	# ASan/LSan/UBSan report (daemon and CLI alike) to $T/sanitizer.PID
	# instead, where t_check_sanitizer finds it. Ignored by plain builds.
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$T/sanitizer"
	export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$T/sanitizer"
	t_log "test dir $T"
}

# t_check_sanitizer: fail if any sanitizer report was written so far.
t_check_sanitizer() {
	local f found=0
	for f in "$T"/sanitizer.*; do
		[ -s "$f" ] || continue
		echo "=== sanitizer report $f ===" >&2
		cat "$f" >&2
		found=1
	done
	return "$found"
}

# t_cleanup [STATUS]: the trap handler. Unmounts, stops the daemon, removes $T,
# and exits with the test's status (or STATUS, for a signal).
t_cleanup() {
	local rc=$?
	[ $# -gt 0 ] && rc=$1
	trap - EXIT INT TERM
	set +e
	[ -n "${T:-}" ] || exit "$rc"

	# Processes a test started beside the mount (T_PIDS), e.g. a server.
	local p
	for p in ${T_PIDS[@]+"${T_PIDS[@]}"}; do
		kill -TERM "$p" 2>/dev/null && t_wait_pid_exit "$p" 10 || kill -KILL "$p" 2>/dev/null
	done

	if t_is_mounted "$MNT"; then
		timeout 20 "$ARRAYSIM" umount "$MNT" >/dev/null 2>&1 \
			|| timeout 10 fusermount3 -u "$MNT" 2>/dev/null \
			|| fusermount3 -uz "$MNT" 2>/dev/null
		t_is_mounted "$MNT" && fusermount3 -uz "$MNT" 2>/dev/null
		t_is_mounted "$MNT" && umount -l "$MNT" 2>/dev/null
	fi

	local pid
	pid=$(t_daemon_pid)
	if t_pid_is_arraysim "$pid"; then
		kill -TERM "$pid" 2>/dev/null
		t_wait_pid_exit "$pid" 5 || kill -KILL "$pid" 2>/dev/null
		t_wait_pid_exit "$pid" 5
	fi

	if ! t_check_sanitizer; then
		echo "FAIL: sanitizer report(s) above" >&2
		[ "$rc" -eq 0 ] && rc=1
	fi

	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -f "$STORE/arraysim.log" ]; then
		echo "=== last 60 lines of $STORE/arraysim.log ===" >&2
		tail -n 60 "$STORE/arraysim.log" >&2
		echo "=== end of arraysim.log ===" >&2
	fi

	if t_is_mounted "$MNT"; then
		# Never rm -rf through a live mount: that would delete the
		# test's files through the daemon, or hang.
		echo "t_cleanup: $MNT is still mounted; leaving $T in place" >&2
		[ "$rc" -eq 0 ] && rc=1
	else
		rm -rf "$T"
	fi
	exit "$rc"
}

# t_mount [ARGS...]: mount $STORE on $MNT; the daemon returns once mounted.
# ARRAYSIM_IO_URING=off|auto|on (.ci/run's second pass): the FUSE transport
# every t_mount asks for, merged into the test's own -o if it has one (a
# second -o would replace the first); ARRAYSIM_WRITEBACK_CACHE=1 likewise
# adds -o writeback_cache (the kernel's writeback cache).
t_transport_args() {
	T_ARGS=("$@")
	local i
	if [ -n "${ARRAYSIM_MOUNT_PROFILE:-}" ]; then
		for ((i = 0; i < ${#T_ARGS[@]}; i++)); do
			[ "${T_ARGS[i]}" = --profile ] && break
		done
		[ "$i" -lt "${#T_ARGS[@]}" ] || T_ARGS+=(--profile "$ARRAYSIM_MOUNT_PROFILE")
	fi
	local extra=${ARRAYSIM_IO_URING:+io_uring=$ARRAYSIM_IO_URING}
	if [ "${ARRAYSIM_WRITEBACK_CACHE:-0}" = 1 ]; then
		extra=${extra:+$extra,}writeback_cache
	fi
	[ -n "$extra" ] || return 0
	for ((i = 0; i + 1 < ${#T_ARGS[@]}; i++)); do
		if [ "${T_ARGS[i]}" = -o ]; then
			T_ARGS[i + 1]="${T_ARGS[i + 1]},$extra"
			return 0
		fi
	done
	T_ARGS+=(-o "$extra")
}

t_mount() {
	local rc=0
	t_transport_args "$@"
	"$ARRAYSIM" mount --store "$STORE" "${T_ARGS[@]}" "$MNT" || rc=$?
	[ "$rc" -eq 0 ] || t_fail "arraysim mount --store $STORE ${T_ARGS[*]} $MNT exited $rc"
	t_is_mounted "$MNT" || t_fail "arraysim mount exited 0 but $MNT is not mounted"
	T_MOUNT_ARGS=("$@")
}

# t_status KEY: the value of KEY's line in `ctl status` of $MNT.
t_status() { "$ARRAYSIM" ctl "$MNT" status | sed -n "s/^$1 //p"; }

# t_require_rings: for a test that asks for the rings itself (-o
# io_uring=on): skip unless the kernel offers them (root sets
# /sys/module/fuse/parameters/enable_uring), and drop the transport CI's
# ring pass would add.
t_require_rings() {
	local param=/sys/module/fuse/parameters/enable_uring
	[ "$(cat "$param" 2>/dev/null)" = Y ] || t_skip "$param is not Y: no rings"
	unset ARRAYSIM_IO_URING
}

# t_umount: unmount $MNT and wait for the daemon to exit and release the store
# (so that fsck or a remount can take the lock).
t_umount() {
	local pid rc=0
	pid=$(t_daemon_pid)
	"$ARRAYSIM" umount "$MNT" || rc=$?
	[ "$rc" -eq 0 ] || t_fail "arraysim umount $MNT exited $rc"
	t_is_mounted "$MNT" && t_fail "arraysim umount exited 0 but $MNT is still mounted"
	t_wait_pid_exit "$pid" 30 || t_fail "daemon pid $pid still running 30 s after umount"
	t_check_sanitizer || t_fail "sanitizer report(s) above, by the time of the umount"
	return 0
}

# t_remount [ARGS...]: umount, then mount with ARGS (default: the last mount's).
t_remount() {
	t_umount
	if [ $# -gt 0 ]; then
		t_mount "$@"
	else
		t_mount ${T_MOUNT_ARGS[@]+"${T_MOUNT_ARGS[@]}"}
	fi
}

# t_scenario_wait SECONDS: poll the scenario on $MNT (bounded) until it has
# finished; its status line on stdout.
t_scenario_wait() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		"$ARRAYSIM" ctl "$MNT" scenario status | grep -q '^finished' && break
		sleep 0.1
	done
	"$ARRAYSIM" ctl "$MNT" scenario status
}

# t_stats_json: the full `arraysim stats --json` document.
t_stats_json() {
	"$ARRAYSIM" stats "$MNT" --json || t_fail "arraysim stats $MNT --json exited $?"
}

# t_stat_json KEY: one value from `arraysim stats --json`. KEY is a top-level
# key, or a dotted path into nested objects (ops.write.count). Strings print
# raw, everything else as JSON (true, 2.0, 17). Fails if KEY is absent.
t_stat_json() {
	local json
	json=$(t_stats_json) || exit 1
	printf '%s' "$json" | python3 -c '
import json, sys
v = json.load(sys.stdin)
for part in sys.argv[1].split("."):
    if not isinstance(v, dict) or part not in v:
        sys.exit("stats --json has no key %r" % sys.argv[1])
    v = v[part]
print(v if isinstance(v, str) else json.dumps(v))
' "$1" || t_fail "t_stat_json $1"
}

# t_wait_sample PYEXPR: poll (bounded, 20 s) until the last sample `s`
# satisfies PYEXPR.
t_wait_sample() {
	local i
	for ((i = 0; i < 100; i++)); do
		python3 - "$STORE/samples.jsonl" "$1" <<-'PY' && return 0
		import json, sys
		try:
		    s = json.loads(open(sys.argv[1]).read().splitlines()[-1])
		except (ValueError, IndexError):
		    sys.exit(1)
		sys.exit(not eval(sys.argv[2]))
		PY
		sleep 0.2
	done
	t_fail "no sample with $1 in 20 s: $(tail -1 "$STORE/samples.jsonl")"
}

# t_event_t EVENT ID: the mount-relative t of the first EVENT of fault ID
# in $STORE/events.jsonl, or nothing.
t_event_t() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["event"] == sys.argv[2] and e.get("id") == int(sys.argv[3]):
        print(e["t"]); break' "$STORE/events.jsonl" "$@"
}

# t_wait_event EVENT ID [SECONDS]: wait until the daemon logs EVENT of
# fault ID (a timer's transition: a rebuild's end), at most SECONDS
# (default 10); fails the test when it does not come.
# Bounded by the clock, not a count of polls: each poll starts python,
# which on a loaded host takes a second, and "10 s" became 200.
t_wait_event() {
	local end=$((SECONDS + ${3:-10}))
	until [ -n "$(t_event_t "$1" "$2")" ]; do
		((SECONDS < end)) || t_fail "no $1 event for fault $2 within ${3:-10} s"
		sleep 0.05
	done
}

# t_fio ARGS...: run fio, output saved under $T; shown and fatal on failure.
t_fio() {
	T_FIO_N=$((T_FIO_N + 1))
	local out="$T/fio.$T_FIO_N.out" rc=0
	# --aux-path: verify state files go to the temp dir, not the caller's cwd
	fio --output-format=normal --output="$out" --aux-path="$T" "$@" || rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "=== fio $* ===" >&2
		cat "$out" >&2
		t_fail "fio exited $rc (output above)"
	fi
}

# t_fsck: run `arraysim fsck` on the (unmounted) store; fail unless clean.
t_fsck() {
	local rc=0 out
	out=$("$ARRAYSIM" fsck --store "$STORE" 2>&1) || rc=$?
	if [ "$rc" -ne 0 ]; then
		printf '%s\n' "$out" >&2
		t_fail "arraysim fsck --store $STORE exited $rc (0 = clean)"
	fi
}
