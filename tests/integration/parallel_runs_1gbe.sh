#!/usr/bin/env bash
# parallel_runs_1gbe: the bonnie++/Postmark report's one quantitative
# observation (arrays.md, the Tintri/Tegile/Nexsan/ZFS NFS datastores over
# one 1 GbE link): 2 to 4 parallel runs "only added latency once the
# 1Gbps pipe was full". A prediction, on the 1 GbE NFS profile we have
# (synology-1813-raid5-1gbe at --scale 0.5, so that the host keeps pace
# under a sanitizer: the link is then 62.5 MB/s, and so is every bound):
# 1, 2 and 4 runs of 1 MiB sequential writes, one outstanding each.
# - 2 and 4 runs move the same total within 10%, no more than the link
#   carries (1 GbE less the profile's 22.6% write overhead, +5%);
# - each of 4 runs waits about twice as long as each of 2 (1.6x to 2.5x);
# - one run does not fill the pipe alone (its total is below 2 runs').
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio python3

t_setup
t_mount --profile synology-1813-raid5-1gbe --scale 0.5
t_fio --name=lay --directory="$MNT" --rw=write --bs=1M --size=96M --numjobs=4 \
	--filename_format='run.$jobnum' --ioengine=psync
# runs N: N parallel runs for 4 s; prints "total_MB/s mean_latency_ms".
runs() {
	t_fio --name="runs$1" --directory="$MNT" --rw=write --bs=1M --size=96M --numjobs="$1" \
		--filename_format='run.$jobnum' --ioengine=psync --time_based --runtime=4 \
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
python3 - "$bw1" "$lat1" "$bw2" "$lat2" "$bw4" "$lat4" <<'PY' || t_fail "parallel runs (above)"
import sys
bw1, lat1, bw2, lat2, bw4, lat4 = map(float, sys.argv[1:])
link = 0.5 * 125e6 / 1.22606 / 1e6 * 1.05
assert abs(bw4 / bw2 - 1) <= 0.10, f"4 runs moved {bw4:.1f} MB/s against 2 runs' {bw2:.1f}"
assert bw4 <= link and bw2 <= link, f"more than the link carries ({link:.1f} MB/s)"
assert 1.6 <= lat4 / lat2 <= 2.5, f"latency of 4 runs / 2 runs = {lat4 / lat2:.2f}"
assert bw1 < bw2, f"one run ({bw1:.1f} MB/s) already filled the pipe"
PY
t_umount
t_fsck
echo "PASS"
