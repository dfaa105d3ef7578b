#!/usr/bin/env bash
# replication_cycles: a source replicating over loopback TCP to an
# `arraysim replica` process (a 100 ms rpo) under a writer whose every
# block says which write made it (repl_gens.py); 20 cycles, each at a
# random moment under the load, one of:
#   source   SIGKILL of the source daemon; it mounts again with
#            --replicate-to and catches up (a full batch, no conflict)
#   replica  SIGKILL of the replica process; it restarts on the same port
#            and the source reconnects by itself (state reconnecting,
#            then running: no `replication start`) and ships again
#   link     a replication-link fault (the connection goes with it), then
#            its clear: the next batch reconnects and ships the backlog
# After each, a copy of the replica's store taken while nothing applies
# to it passes fsck, and mounted it is one state of the writer's history
# (every block whole, a prefix of the writes, never a mix), never behind
# the previous cycle's and never ahead of the source. At the end the
# replica holds the source's files byte for byte. The seed is printed:
# REPL_CYCLES_SEED repeats a run, REPL_CYCLES=N runs N cycles.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replication_lib.sh"

CYCLES=${REPL_CYCLES:-20}
SEED=${REPL_CYCLES_SEED:-$RANDOM}
RANDOM=$SEED
GENS="$ARRAYSIM_SRC/tests/integration/repl_gens.py"
A=$ARRAYSIM
# the interpreter itself, not a shim that finds it on each of ~100 calls
PY=$(python3 -c 'import sys; print(sys.executable)')

status() { "$A" ctl "$MNT" replication status; }
fig() { status | sed -n "s/^$1 //p" | cut -d' ' -f1; }

# until SECONDS WHAT CMD...: poll CMD (every 50 ms) until it succeeds.
until_ok() {
	local secs=$1 what=$2 i
	shift 2
	for ((i = 0; i < secs * 20; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	t_fail "$what: not within $secs s: $(status 2>&1 | tr '\n' ' ')"
}

writer_start() {
	"$PY" "$GENS" write "$MNT" "$T/log" "$RANDOM" 2>>"$T/writer.err" &
	W_PID=$!
	T_PIDS=("$R_PID" "$W_PID")
}

# KILL, not TERM: a TERM sent just after writer_start (the last cycle a
# source one) was lost, here and in CI (the writer went on writing and
# the wait below never returned; caught live with gdb on the shell), and
# no handler or start-up window can take a KILL. The history is the same
# either way: each write is logged before it is issued.
writer_stop() {
	kill -KILL "$W_PID" 2>/dev/null || true
	wait "$W_PID" 2>/dev/null || true
}

mount_source() {
	t_mount --replicate-to "127.0.0.1:$PORT" --replication-secret-file \
		"$T/secret" --rpo 100ms
}

sessions_ended() { grep -c " ended: " "$T/replica.err" || true; }
# ended_past N: the replica has ended more than N sessions.
ended_past() { [ "$(sessions_ended)" -gt "$1" ]; }

# check_replica: the replica's store (nothing applying to it) copied,
# fsck-clean, mounted: one state of the history, at or past LAST, at or
# before the source's point $1 when given.
check_replica() {
	rm -rf "$T/rcopy"
	t_log "cycle $i: the replica's copy"
	cp -a --sparse=always "$REPLICA" "$T/rcopy"
	rm -f "$T/rcopy/lock"
	"$A" fsck --store "$T/rcopy" >"$T/fsck" 2>&1 \
		|| t_fail "cycle $i: fsck of the replica: $(cat "$T/fsck")"
	"$A" mount --store "$T/rcopy" "$MNT2" || t_fail "cycle $i: mount of the replica's copy"
	local cpid p rc=0
	cpid=$(head -n 1 "$T/rcopy/lock" | tr -cd '0-9')
	p=$("$PY" "$GENS" point "$MNT2" "$T/log") || rc=$?
	# umount returns once the store is closed: the copy may go
	"$A" umount "$MNT2" || t_fail "umount of the replica's copy"
	until_ok 30 "the copy's daemon $cpid to exit" t_pid_gone "$cpid"
	[ "$rc" -eq 0 ] || t_fail "cycle $i: the replica is not one state of the source"
	[ "$p" -ge "$LAST" ] || t_fail "cycle $i: the replica went back from write $LAST to $p"
	[ -z "${1:-}" ] || [ "$p" -le "$1" ] \
		|| t_fail "cycle $i: the replica (write $p) is ahead of the source ($1)"
	LAST=$p
}

# The moment of each fault is the test's random input, not a wait.
pause_random() { sleep "$(printf '0.%03d' $((200 + RANDOM % 600)))"; }

cycle_source() {
	local pid n
	pid=$(t_daemon_pid)
	n=$(sessions_ended)
	kill -KILL "$pid"
	until_ok 10 "daemon $pid to die of SIGKILL" t_pid_gone "$pid"
	fusermount3 -uz "$MNT" 2>/dev/null || umount -l "$MNT"
	wait "$W_PID" 2>/dev/null || true
	# the replica done with the dead source's session: nothing applying
	until_ok 20 "the replica's session to end" ended_past "$n"
	check_replica
	mount_source
	"$A" ctl "$MNT" replication sync || t_fail "cycle $i: no catch-up after the restart"
	local p
	p=$("$PY" "$GENS" point "$MNT" "$T/log" --cut) \
		|| t_fail "cycle $i: the source after SIGKILL is not one state"
	[ "$p" -ge "$LAST" ] || t_fail "cycle $i: the source ($p) is behind its replica ($LAST)"
	t_log "cycle $i: the source restarted at write $p"
	writer_start
}

reconnected() {
	local s
	s=$(status)
	grep -qx "state running" <<<"$s" && [ "$(sed -n 's/^link_losses //p' <<<"$s")" -gt "$1" ] \
		&& [ "$(sed -n 's/^batches //p' <<<"$s")" -gt "$2" ]
}

# top_says_lost: top's replication line (from the samples) says it.
top_says_lost() {
	"$A" top --count 1 "$MNT" | grep -q '^replication reconnecting, held by link-lost  lag'
}

cycle_replica() {
	local losses batches
	losses=$(fig link_losses)
	kill -KILL "$R_PID"
	wait "$R_PID" 2>/dev/null || true
	check_replica
	# the writer's batches have met the dead link by now
	until_ok 10 "reconnecting" held_by_lost
	if [ "${ran[replica]}" -eq 0 ]; then
		t_assert_eq "$(r_json state)" reconnecting "stats --json's state"
		t_assert_eq "$(r_json held_by)" link-lost "stats --json's held_by"
		until_ok 10 "top's replication line" top_says_lost
	fi
	batches=$(fig batches)
	r_replica_start "$PORT"
	T_PIDS=("$R_PID" "$W_PID")
	until_ok 20 "reconnected by itself" reconnected "$losses" "$batches"
}

held_by_link() { status | grep -qx "held_by replication-link"; }
held_by_lost() {
	status | grep -qx "state reconnecting" && status | grep -qx "held_by link-lost"
}
shipping() { [ "$(fig batches)" -gt "$1" ] && ! status | grep -q "^held_by"; }

cycle_link() {
	local id batches n
	n=$(sessions_ended)
	id=$("$A" ctl "$MNT" fault inject replication-link)
	# held back: the thread is out of any batch, the replica idle
	until_ok 10 "held by the fault" held_by_link
	until_ok 10 "the connection dropped with the link" ended_past "$n"
	check_replica
	batches=$(fig batches)
	"$A" ctl "$MNT" fault clear "$id" >/dev/null
	until_ok 20 "shipping after the clear" shipping "$batches"
}

r_setup
t_log "seed $SEED, $CYCLES cycles"
r_secret "$T/secret" "twenty cycles"
r_replica_start
PORT=$R_PORT
mount_source
"$PY" "$GENS" fill "$MNT" "$T/log"
"$A" ctl "$MNT" replication sync || t_fail "the first batch"
LAST=0
writer_start
declare -A ran=([source]=0 [replica]=0 [link]=0)
for ((i = 1; i <= CYCLES; i++)); do
	kinds=(source replica link)
	kind=${kinds[RANDOM % 3]}
	pause_random
	"cycle_$kind"
	ran[$kind]=$((ran[$kind] + 1))
	t_log "cycle $i: $kind; the replica at write $LAST"
done
t_log "cycles: ${ran[source]} source, ${ran[replica]} replica, ${ran[link]} link"

writer_stop
"$A" ctl "$MNT" replication sync || t_fail "the last catch-up"
t_assert_eq "$(fig state)" running "state at the end"
src=$("$PY" "$GENS" point "$MNT" "$T/log") || t_fail "the source at the end"
r_sums "$MNT" "$T/src.sums"
t_umount
t_fsck
r_replica_stop
r_fsck "$REPLICA"
r_mount_replica
dst=$("$PY" "$GENS" point "$MNT2" "$T/log") || t_fail "the replica at the end"
r_sums "$MNT2" "$T/dst.sums"
r_umount_replica
t_assert_eq "$dst" "$src" "the replica's point after the catch-up"
cmp -s "$T/src.sums" "$T/dst.sums" \
	|| { diff "$T/src.sums" "$T/dst.sums" >&2; t_fail "the replica's files differ from the source's"; }
t_log "events: each loss paused (link-lost) and resumed"
python3 - "$STORE/events.jsonl" "${ran[replica]}" <<-'PY' || t_fail "replication events"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
lost = [e for e in ev if e["event"] == "replication_paused" and e["why"] == "link-lost"]
back = [e for e in ev if e["event"] == "replication_resumed" and e["why"] == "link-lost"]
print(len(lost), "paused link-lost,", len(back), "resumed", file=sys.stderr)
assert len(lost) == int(sys.argv[2]) == len(back), (lost, back)
PY
echo PASS
