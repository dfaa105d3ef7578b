#!/usr/bin/env bash
# fio_verify: data written through the mount reads back exactly (fio crc32c
# verify), for every combination of block size (4k, 8k, 64k, 1M), pattern
# (sequential write, randwrite) and I/O path (O_DIRECT via libaio, buffered
# psync); and it is still there, byte for byte, after an umount and remount
# (fio verify_only replays the same jobs and only reads).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio

# 16 jobs x 16 MiB = 256 MiB written, then read back twice (verify pass, and
# verify_only after the remount): enough to cross many 4 KiB dedupe blocks
# and 1 MiB requests, small enough for a 2-core CI box.
JOB_SIZE=${FIO_VERIFY_JOB_SIZE:-16M}

# write_jobfile FILE VERIFY_ONLY: the job matrix. All jobs run at once, each
# on its own file (jobname.0.0), so the daemon also sees concurrent writers.
write_jobfile() {
	{
		cat <<-JOB
		[global]
		directory=$MNT
		size=$JOB_SIZE
		fallocate=none
		verify=crc32c
		do_verify=1
		verify_fatal=1
		verify_dump=0
		verify_only=$2
		randrepeat=1
		JOB
		local bs rw path
		for bs in 4k 8k 64k 1M; do
			for rw in write randwrite; do
				for path in direct buffered; do
					echo
					echo "[$rw-$bs-$path]"
					echo "rw=$rw"
					echo "bs=$bs"
					if [ "$path" = direct ]; then
						echo "direct=1"
						echo "ioengine=libaio"
						echo "iodepth=8"
					else
						echo "direct=0"
						echo "ioengine=psync"
					fi
				done
			done
		done
	} >"$1"
}

t_setup
t_mount

write_jobfile "$T/write.fio" 0
write_jobfile "$T/verify.fio" 1

t_log "write + verify matrix"
t_fio "$T/write.fio"

# Every job wrote its whole file: sizes are exact.
want=$(numfmt --from=iec "$JOB_SIZE")
njobs=0
for f in "$MNT"/*.0.0; do
	t_assert_eq "$(stat -c %s "$f")" "$want" "size of $f"
	njobs=$((njobs + 1))
done
t_assert_eq "$njobs" 16 "number of files fio wrote"

t_log "remount, verify_only"
t_remount
t_fio "$T/verify.fio"

t_umount
t_fsck
