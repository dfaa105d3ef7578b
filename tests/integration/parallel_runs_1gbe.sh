#!/usr/bin/env bash
# parallel_runs_1gbe PROFILE: the bonnie++/Postmark report's one
# quantitative observation (arrays.md, the Tintri/Tegile/Nexsan/ZFS NFS
# datastores over one 1 GbE link): 2 to 4 parallel runs "only added
# latency once the 1Gbps pipe was full". A prediction, on a 1 GbE NFS
# profile at --scale 0.2 (the link is then about 20-25 MB/s, and a 1 MiB
# write costs the host about 20 ms of a core under ASan on a loaded 2-core
# machine, so even 4 runs leave it half idle; at 0.5, 1 run was host-bound
# there and the shape was the host's, not the model's): 1, 2 and 4 runs of
# 1 MiB sequential writes, one outstanding each. The pipe is the
# profile's link after its write overhead, as `profile show` states it
# (synology-1813-raid5-1gbe: its published SEQ write Q32, 96.7 MB/s;
# opensolaris-b132: 1 GbE less 6% framing, 117.5 MB/s), times the scale.
# - the pipe full: 4 runs move the link's write rate within 10%, and
#   2 runs already 80% to 105% of it;
# - each of 4 runs waits about twice as long as each of 2 (1.6x to 2.5x);
# - one run does not fill the pipe alone (its total is below 2 runs').
# Direct I/O, so that each 1 MiB write reaches the array as one request,
# as from an NFS client: buffered, this mount delivered it as 1 MiB - 16
# bytes, then 16 (measured 2026-12-04); each tail then waits on the link
# behind the other runs' transfers and on the SSDs behind their writes,
# the runs fall into step and the link idles (tests/tiers/
# test_parallel_runs.c: tegile-ha2200ep moved 17.6 and 20.1 MB/s at 2
# and 4 runs so, 23.5 and 23.5 direct).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio python3

PROFILE=${1:-synology-1813-raid5-1gbe}
SCALE=0.2
PIPE=$("$ARRAYSIM" profile show "$PROFILE" |
	sed -n 's/.*per link, after overhead: .* reads, \([0-9.]*\) MB\/s writes/\1/p')
[ -n "$PIPE" ] || t_fail "profile show $PROFILE states no link write rate"

t_setup
t_mount --profile "$PROFILE" --scale "$SCALE"
t_fio --name=lay --directory="$MNT" --rw=write --bs=1M --size=96M --numjobs=4 \
	--filename_format='run.$jobnum' --ioengine=psync --direct=1
# runs N: N parallel runs for 4 s; prints "total_MB/s mean_latency_ms".
runs() {
	t_fio --name="runs$1" --directory="$MNT" --rw=write --bs=1M --size=96M --numjobs="$1" \
		--filename_format='run.$jobnum' --ioengine=psync --direct=1 --time_based --runtime=4 \
		--ramp_time=1 --group_reporting --output-format=json
	python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["jobs"][0]["write"]
print(w["bw_bytes"] / 1e6, w["clat_ns"]["mean"] / 1e6)' "$T/fio.$T_FIO_N.out"
}
read -r bw1 lat1 < <(runs 1)
read -r bw2 lat2 < <(runs 2)
read -r bw4 lat4 < <(runs 4)
t_log "1 run: $bw1 MB/s, $lat1 ms; 2 runs: $bw2 MB/s, $lat2 ms each; 4 runs: $bw4 MB/s, $lat4 ms each"
"$ARRAYSIM" stats --array "$MNT" | grep 'host-bound' >&2 || true
python3 - "$bw1" "$lat1" "$bw2" "$lat2" "$bw4" "$lat4" "$SCALE" "$PIPE" <<'PY' || t_fail "parallel runs (above)"
import sys
bw1, lat1, bw2, lat2, bw4, lat4, scale, link = map(float, sys.argv[1:])
pipe = scale * link
assert abs(bw4 / pipe - 1) <= 0.10, f"4 runs moved {bw4:.1f} MB/s, the full pipe is {pipe:.1f}"
assert 0.80 <= bw2 / pipe <= 1.05, f"2 runs moved {bw2:.1f} MB/s, the full pipe is {pipe:.1f}"
assert 1.6 <= lat4 / lat2 <= 2.5, f"latency of 4 runs / 2 runs = {lat4 / lat2:.2f}"
assert bw1 < bw2, f"one run ({bw1:.1f} MB/s) already filled the pipe"
PY
t_umount
t_fsck
echo "PASS"
