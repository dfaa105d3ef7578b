#!/usr/bin/env bash
# degraded_latency: infinidat-6303 rebuilding a pulled drive, measured
# through FUSE, against the report's 1.37 ms average read latency during
# the rebuild (../shared/reference/arrays.md).
#
# The report's background load: 150K IOPS, 8 KiB, random, 50/50. At
# --scale 0.02 that is 3000 IOPS, under this host's ceiling, and every
# latency is 50 times the array's. Reads hit the flash cache 90% of the
# time, as the profile assumes (tests/tiers/test_profiles.c runs the same
# in emulated time): 1350 reads/s of a file read once before (resident),
# 150 reads/s of a file never read (each block once: misses on the
# rebuilding HDD tier), 1500 writes/s. The drive is noticed at once
# (detection_window 0 in a copy of the profile; at scale 0.02 the real
# 30 s would be 25 minutes), the rebuild then lasts 50 hours.
#
# Checked: the mean read latency, scaled back, within 15% of 1.37 ms.
# Writes are printed, not checked: the model's 0.43 ms is not the
# report's 1.63 ms (faults/README.md, "Not done yet").
#
# Then one controller of three pulled, the report's 9 ms reads and 8 ms
# writes while degraded: at --scale 0.01 (1500 IOPS offered, latencies
# 100 times the array's), with the 1200 I/Os outstanding the profile
# assumes for the report's load generator (two fio jobs: 1140 for the
# hot reads and the writes, 60 for the cold reads, as their shares of
# the load). failover_time is 10 ms in the copy (1 s at this scale; the
# real 10 s would be 17 minutes). The queue does not stay full through
# the stall's end: fio, held at its iodepth, does not make up all the
# I/Os it missed, and the backlog drains; two controllers short of 150K
# then take a few seconds to fill it again (arraysim_requests_in_flight
# in a manual run, at 1.2 s steps from the start: 850, 206, 770, 1143,
# 1200, 1198, 1200): so a 6 s ramp. Both within 15%.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio python3

t_setup
A=$ARRAYSIM

# latencies HIT MISS WRITE: from the last fio run's JSON, the mean read
# latency over jobs HIT and MISS and the mean write latency of job WRITE,
# scaled back to the array's (ms), and the share of reads in HIT (%).
latencies() {
	python3 - "$T/fio.$T_FIO_N.out" "$SCALE" "$@" <<-'PY'
	import json, sys
	out, scale, hit, miss, write = sys.argv[1:]
	jobs = {j["jobname"]: j for j in json.load(open(out))["jobs"]}
	def side(job, kind):
	    x = jobs[job][kind]
	    return x["total_ios"], x["lat_ns"]["mean"] / 1e6 * float(scale)
	(nh, lh), (nm, lm) = side(hit, "read"), side(miss, "read")
	print("%.3f %.0f %.3f" % ((nh * lh + nm * lm) / (nh + nm),
	                          100.0 * nh / (nh + nm), side(write, "write")[1]))
	PY
}
# within GOT WANT: GOT within 15% of WANT.
within() { python3 -c 'import sys; g, w = map(float, sys.argv[1:]); sys.exit(abs(g - w) > 0.15 * w)' "$1" "$2"; }
SCALE=0.02
"$A" profile show infinidat-6303 |
	sed 's/^detection_window = 30s/detection_window = 0/' >"$T/inf.ini"
t_mount
head -c 8M /dev/urandom >"$MNT/hot"
head -c 48M /dev/urandom >"$MNT/cold"
t_umount
t_mount --profile "$T/inf.ini" --scale "$SCALE" --seed 1
cat "$MNT/hot" >/dev/null # resident in the flash cache from now on
"$A" ctl "$MNT" fault inject drive id=0 >/dev/null
grep -q '"event":"rebuild"' "$STORE/events.jsonl" || t_fail "no rebuild started"

cat >"$T/load.fio" <<-JOB
	[global]
	ioengine=libaio
	direct=1
	bs=8k
	runtime=8
	time_based
	rate_process=poisson
	[hit]
	filename=$MNT/hot
	rw=randread
	rate_iops=1350
	iodepth=64
	[miss]
	filename=$MNT/cold
	rw=randread
	rate_iops=150
	iodepth=128
	[write]
	filename=$MNT/hot
	rw=randwrite
	rate_iops=1500
	iodepth=64
JOB
t_fio --output-format=json "$T/load.fio"
read -r read hits wlat < <(latencies hit miss write)
t_log "rebuilding at scale $SCALE: reads $read ms (report 1.37; $hits% hits), writes $wlat ms (report 1.63, not reproduced)"
within "$read" 1.37 || t_fail "read latency off the report's"
t_umount
t_fsck

SCALE=0.01
"$A" profile show infinidat-6303 |
	sed 's/^failover_time = 10s/failover_time = 10ms/' >"$T/inf-ctl.ini"
grep -q '^failover_time = 10ms' "$T/inf-ctl.ini" || t_fail "no failover_time to shorten"
t_mount --profile "$T/inf-ctl.ini" --scale "$SCALE" --seed 1
cat "$MNT/hot" >/dev/null
cat >"$T/ctl.fio" <<-JOB
	[global]
	ioengine=libaio
	direct=1
	bs=8k
	runtime=8
	ramp_time=6
	time_based
	rate_process=poisson
	[hot]
	filename=$MNT/hot
	rw=randrw
	rwmixread=47
	rate_iops=675,750
	iodepth=1140
	[miss]
	filename=$MNT/cold
	rw=randread
	rate_iops=75
	iodepth=60
JOB
"$A" ctl "$MNT" fault inject controller id=1 >/dev/null
t_fio --output-format=json "$T/ctl.fio"
read -r read hits wlat < <(latencies hot miss hot)
t_log "one controller of 3 down at scale $SCALE: reads $read ms (report 9), writes $wlat ms (report 8); $hits% read hits"
within "$read" 9 && within "$wlat" 8 || t_fail "degraded latency off the report's"
t_umount
t_fsck
