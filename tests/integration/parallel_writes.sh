#!/usr/bin/env bash
# parallel_writes: several writers on disjoint ranges of ONE file at once
# (FOPEN_PARALLEL_DIRECT_WRITES lets the kernel send them concurrently; the
# daemon queues them into group commits) read back exactly (fio crc32c
# verify), after a remount too, and the store checks clean. Two shapes:
# 4k-aligned random writes at QD8 per job, and 6 KiB writes whose ranges
# end inside a 4 KiB block, so neighbouring jobs complete each other's
# partial edge blocks (read-modify-write) while both are in flight.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio

JOBS=4
ALIGNED=4M            # per job, 4 KiB multiple
EDGY=$((6144 * 171))  # per job, 6 KiB writes; 171 odd: ranges end mid-block

write_jobfile() { # FILE VERIFY_ONLY
	cat >"$1" <<-JOB
	[global]
	direct=1
	ioengine=libaio
	iodepth=8
	fallocate=none
	verify=crc32c
	do_verify=1
	verify_fatal=1
	verify_dump=0
	verify_only=$2
	randrepeat=1
	numjobs=$JOBS
	group_reporting

	[aligned]
	filename=$MNT/aligned
	rw=randwrite
	bs=4k
	size=$ALIGNED
	offset_increment=$ALIGNED

	[edgy]
	stonewall
	filename=$MNT/edgy
	rw=randwrite
	bs=6k
	size=$EDGY
	offset_increment=$EDGY
	JOB
}

t_setup
t_mount
write_jobfile "$T/write.fio" 0
write_jobfile "$T/verify.fio" 1

t_log "$JOBS writers per file, disjoint ranges, verify"
t_fio "$T/write.fio"
t_assert_eq "$(stat -c %s "$MNT/aligned")" "$((JOBS * $(numfmt --from=iec $ALIGNED)))" "size of aligned"
t_assert_eq "$(stat -c %s "$MNT/edgy")" "$((JOBS * EDGY))" "size of edgy"

t_log "remount, verify_only"
t_remount
t_fio "$T/verify.fio"
t_umount
t_fsck
