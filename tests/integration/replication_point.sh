#!/usr/bin/env bash
# replication_point: the replica is the replicated point, whole. fio writes
# and verifies pass 1 on the source; `replication sync`, then `pause`;
# pass 2 overwrites every block, and the source is unmounted while paused
# (no last batch). The replica mounts with pass 1, and fio verify_only of
# pass 1 passes on it: nothing acknowledged before the sync is missing,
# nothing after it is mixed in. The source mounts again, replicating to the
# same replica: its catch-up has no conflict (the blocks pass 2 freed were
# held pending across the unmount and the mount), and the replica then
# verifies as pass 2.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replication_lib.sh"
t_require_cmd fio

r_setup
r_jobfile "$T/write1.fio" "$MNT" 0 1
r_jobfile "$T/write2.fio" "$MNT" 0 2
r_jobfile "$T/verify1.fio" "$MNT2" 1 1
r_jobfile "$T/verify2.fio" "$MNT2" 1 2

t_mount --replicate-to "$REPLICA" --rpo 200ms
t_log "pass 1, replicated; pass 2 while paused"
t_fio "$T/write1.fio"
"$ARRAYSIM" ctl "$MNT" replication sync
"$ARRAYSIM" ctl "$MNT" replication pause
r_sums "$MNT" "$T/pass1.sums"
t_fio "$T/write2.fio"
r_sums "$MNT" "$T/pass2.sums"
cmp -s "$T/pass1.sums" "$T/pass2.sums" && t_fail "pass 2 wrote the same bytes as pass 1"
t_umount
r_fsck "$REPLICA"

t_log "the replica verifies as pass 1"
r_mount_replica
t_fio "$T/verify1.fio"
# fio's crc32c verify checks each block against itself, not against the
# pass: the files' checksums tell the passes apart.
r_sums "$MNT2" "$T/replica1.sums"
cmp -s "$T/pass1.sums" "$T/replica1.sums" || t_fail "the replica is not pass 1"
r_umount_replica

t_log "the source again: catch-up, then the replica verifies as pass 2"
t_mount --replicate-to "$REPLICA"
"$ARRAYSIM" ctl "$MNT" replication sync || t_fail "no catch-up after the pause"
t_umount
t_fsck
r_fsck "$REPLICA"
r_mount_replica
t_fio "$T/verify2.fio"
r_sums "$MNT2" "$T/replica2.sums"
cmp -s "$T/pass2.sums" "$T/replica2.sums" || t_fail "the caught-up replica is not pass 2"
r_umount_replica
