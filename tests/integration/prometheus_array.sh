#!/usr/bin/env bash
# prometheus_array: the array model's series through a real Prometheus.
# A mount of the built-in hybrid profile (flash cache over HDDs) at
# --scale 200 (a backing drive's rebuild, 70% of 4 TB at 855 MB/s, takes
# 16 s; its detection window 30 s is 150 ms) is scraped every second.
# Not faster: the model books a rebuild in 1 MiB chunks, 400,000 a second
# at --scale 500, and under ASan a scrape then took 0.2-0.5 s here; on a
# loaded CI host scrapes were missed and the 6.5 s rebuild showed only
# two values between 0 and 1.
# Through Prometheus's HTTP API: after fio, the per-tier operation
# counters exist for both tiers and the cache tier's writes are counted,
# the controllers' CPU series name their counter (the hybrid's: usage);
# a failed standby controller shows as arraysim_controller_up 0, a lost
# path as arraysim_path_up 0; a pulled backing drive shows as rebuilding
# in arraysim_drive_state, and arraysim_rebuild_progress_ratio rises
# through values between 0 and 1, never falling, to 1, when the returned
# drive is ok again. The exposition passes promtool check metrics with
# the drive out.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
t_require_cmd prometheus fio curl python3
T_PIDS=()
ctl() { "$ARRAYSIM" ctl "$MNT" "$@"; }

# wait_value QUERY WANT [SECS]: poll Prometheus (bounded, SECS, default
# 20) until the query's one series has value WANT.
wait_value() {
	local i v secs=${3:-20}
	for ((i = 0; i < secs * 5; i++)); do
		v=$(prom_value "$1")
		[ "$v" = "$2" ] && return 0
		sleep 0.2
	done
	t_fail "$1: $v after $secs s, expected $2"
}

t_setup
MPORT=$(free_port)
t_mount --profile hybrid --scale 200 --metrics "127.0.0.1:$MPORT"
prom_start "$MPORT"

t_fio --name=mix --filename="$MNT/f" --size=32M --rw=randrw --bs=4k \
	--ioengine=psync --time_based --runtime=2
t_log "per-tier counters, as Prometheus has them"
wait_value 'count(arraysim_tier_ops_total{tier="cache"})' 2
wait_value 'count(arraysim_tier_ops_total{tier="backing"})' 2
w=$(prom_value 'arraysim_tier_ops_total{tier="cache",op="write"}')
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 0)' "$w" ||
	t_fail "cache tier writes: $w, expected > 0 after fio wrote"
wait_value 'count(arraysim_tier_drive_latency_seconds_count)' 2
wait_value 'arraysim_array_up' 1
wait_value 'count(arraysim_resource_busy_seconds_total{kind="controller",part="slots",counter="usage"})' 2
wait_value 'count(arraysim_resource_busy_seconds_total{counter!=""})' 2

t_log "a failed standby controller"
wait_value 'arraysim_controller_up{controller="1"}' 1
cid=$(ctl fault inject controller id=1)
wait_value 'arraysim_controller_up{controller="1"}' 0
ctl fault clear "$cid" >/dev/null
wait_value 'arraysim_controller_up{controller="1"}' 1

t_log "a lost path"
pid=$(ctl fault inject path id=1)
wait_value 'arraysim_path_up{path="1"}' 0
wait_value 'arraysim_path_up{path="0"}' 1
ctl fault clear "$pid" >/dev/null
wait_value 'arraysim_path_up{path="1"}' 1

t_log "a pulled backing drive, rebuilt"
wait_value 'arraysim_rebuild_progress_ratio{tier="backing"}' 1
did=$(ctl fault inject drive tier=backing id=3)
wait_value 'arraysim_drive_state{tier="backing",drive="3",state="rebuilding"}' 1
curl -sf "http://127.0.0.1:$MPORT/metrics" >"$T/metrics.txt" || t_fail "GET /metrics failed"
if command -v promtool >/dev/null; then
	promtool check metrics <"$T/metrics.txt" >"$T/promtool.out" 2>&1 ||
		t_fail "promtool check metrics: $(cat "$T/promtool.out")"
fi
ctl fault clear "$did" >/dev/null # back: the rebuild runs to its end
wait_value 'arraysim_rebuild_progress_ratio{tier="backing"}' 1 60
wait_value 'arraysim_drive_state{tier="backing",drive="3",state="ok"}' 1
wait_value 'arraysim_rebuild_remaining_bytes{tier="backing"}' 0
python3 - "$API" <<-'PY' || t_fail "rebuild progress over time (above)"
import json, sys, urllib.parse, urllib.request
q = urllib.parse.urlencode({"query": 'arraysim_rebuild_progress_ratio{tier="backing"}[90s]'})
r = json.load(urllib.request.urlopen(f"{sys.argv[1]}/query?{q}"))["data"]["result"]
v = [float(x[1]) for x in r[0]["values"]]
# From the pull on: the first value below 1 to the end.
start = next(i for i, x in enumerate(v) if x < 1)
run = v[start:]
print("rebuild progress per scrape:", " ".join(f"{x:.3f}" for x in run))
assert all(b >= a for a, b in zip(run, run[1:])), "progress fell"
assert sum(0 < x < 1 for x in run) >= 3, "fewer than 3 scrapes mid-rebuild"
assert run[-1] == 1, "did not end at 1"
PY
echo "PASS"
