#!/usr/bin/env bash
# replication_sigkill: the source daemon SIGKILLed at a random moment while
# fio overwrites files on it (fsyncs as sync points, a 100 ms rpo), cycle
# after cycle. Each time the replica is fsck-clean (never a half-applied
# batch); the source mounts again, replicating to the same replica, and
# `replication sync` catches up (a full batch, no conflict); a restart
# onto an up-to-date replica ships no block bytes; at the end the replica
# mounts with the source's files, byte for byte. REPL_SIGKILL_SEED repeats a run's kill moments.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replication_lib.sh"
t_require_cmd fio

CYCLES=${REPL_SIGKILL_CYCLES:-5}
SEED=${REPL_SIGKILL_SEED:-$RANDOM}
RANDOM=$SEED

r_setup
t_log "seed $SEED, $CYCLES cycles"
for ((i = 1; i <= CYCLES; i++)); do
	t_mount --replicate-to "$REPLICA" --rpo 100ms
	"$ARRAYSIM" ctl "$MNT" replication sync \
		|| t_fail "cycle $i: no catch-up after the restart"
	pid=$(t_daemon_pid)
	fio --name=w --directory="$MNT" --nrfiles=4 --rw=randwrite --bs=16k \
		--size=8M --time_based --runtime=20 --fsync=16 --ioengine=psync \
		--fallocate=none --randseed="$i" --output="$T/fio.$i" >/dev/null 2>&1 &
	T_PIDS=("$!")
	# The moment of the kill is the test's random input, not a wait.
	sleep "$(printf '0.%03d' $((300 + RANDOM % 700)))"
	kill -KILL "$pid"
	t_wait_pid_exit "$pid" 10 || t_fail "cycle $i: daemon $pid survived SIGKILL"
	fusermount3 -uz "$MNT" 2>/dev/null || umount -l "$MNT"
	wait "${T_PIDS[0]}" || true
	T_PIDS=()
	r_fsck "$REPLICA"
	t_log "cycle $i: killed; replica clean"
done

t_mount --replicate-to "$REPLICA"
"$ARRAYSIM" ctl "$MNT" replication sync
# Once more, with nothing written: the restart's full batch finds every
# block on the replica and ships no block bytes.
t_remount
"$ARRAYSIM" ctl "$MNT" replication sync
t_assert_eq "$(r_json blocks_shipped)" 0 "blocks shipped to an up-to-date replica"
t_assert_eq "$(r_json blocks_have)" "$(t_stat_json unique_blocks)" \
	"blocks the up-to-date replica had"
r_sums "$MNT" "$T/src.sums"
t_umount
t_fsck
r_fsck "$REPLICA"
r_mount_replica
r_sums "$MNT2" "$T/dst.sums"
cmp -s "$T/src.sums" "$T/dst.sums" \
	|| { diff "$T/src.sums" "$T/dst.sums" >&2; t_fail "the replica's files differ from the source's"; }
r_umount_replica
