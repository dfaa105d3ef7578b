#!/usr/bin/env bash
# replication_tcp_sigkill: the `arraysim replica` process SIGKILLed at a
# random moment while fio overwrites files on a source replicating to it
# over loopback TCP (a 100 ms rpo), cycle after cycle. Each time the
# source's replication fails (the connection is gone) and the replica's
# store is fsck-clean (never a half-applied batch); the replica restarts
# on the same port, `replication start` reconnects with a full batch and
# `replication sync` catches up. At the end the replica mounts with the
# source's files, byte for byte. REPL_SIGKILL_SEED repeats a run's kill
# moments.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replication_lib.sh"
t_require_cmd fio

CYCLES=${REPL_SIGKILL_CYCLES:-3}
SEED=${REPL_SIGKILL_SEED:-$RANDOM}
RANDOM=$SEED

# r_wait_state STATE: the source's replication reaches STATE within 20 s.
r_wait_state() {
	local i
	for ((i = 0; i < 400; i++)); do
		"$ARRAYSIM" ctl "$MNT" replication status | grep -qx "state $1" && return 0
		sleep 0.05
	done
	t_fail "replication not $1 within 20 s: $("$ARRAYSIM" ctl "$MNT" replication status)"
}

r_setup
t_log "seed $SEED, $CYCLES cycles"
r_secret "$T/secret" "kill -9 secret"
r_replica_start
PORT=$R_PORT
t_mount --replicate-to "127.0.0.1:$PORT" --replication-secret-file "$T/secret" --rpo 100ms
"$ARRAYSIM" ctl "$MNT" replication sync || t_fail "the first batch"
fio --name=w --directory="$MNT" --nrfiles=4 --rw=randwrite --bs=16k \
	--size=8M --time_based --runtime=600 --fsync=16 --ioengine=psync \
	--fallocate=none --randseed="$SEED" --output="$T/fio.out" >/dev/null 2>&1 &
FIO=$!
T_PIDS+=("$FIO")
for ((i = 1; i <= CYCLES; i++)); do
	# The moment of the kill is the test's random input, not a wait.
	sleep "$(printf '0.%03d' $((300 + RANDOM % 700)))"
	kill -KILL "$R_PID"
	wait "$R_PID" 2>/dev/null || true
	r_wait_state failed
	r_fsck "$REPLICA"
	r_replica_start "$PORT"
	"$ARRAYSIM" ctl "$MNT" replication start
	"$ARRAYSIM" ctl "$MNT" replication sync \
		|| t_fail "cycle $i: no catch-up after the replica's restart"
	t_log "cycle $i: killed; replica clean; caught up"
done
kill -TERM "$FIO"
wait "$FIO" 2>/dev/null || true
"$ARRAYSIM" ctl "$MNT" replication sync
r_sums "$MNT" "$T/src.sums"
t_umount
t_fsck
r_replica_stop
r_fsck "$REPLICA"
r_mount_replica
r_sums "$MNT2" "$T/dst.sums"
cmp -s "$T/src.sums" "$T/dst.sums" \
	|| { diff "$T/src.sums" "$T/dst.sums" >&2; t_fail "the replica's files differ from the source's"; }
r_umount_replica
