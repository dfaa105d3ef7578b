#!/usr/bin/env bash
# prometheus: a real Prometheus server (Debian's) scrapes a mount's
# --metrics endpoint every second while fio writes at a steady 16 MiB/s;
# through Prometheus's HTTP API, rate(arraysim_bytes_total{op="write"}[6s])
# at the end of the run matches the bandwidth fio reports within 10%. The
# exposition also parses as Prometheus reads it (promtool check metrics).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
t_require_cmd prometheus fio curl python3
T_PIDS=()

t_setup
MPORT=$(free_port)
t_mount --metrics "127.0.0.1:$MPORT"
curl -sf "http://127.0.0.1:$MPORT/metrics" >"$T/metrics.txt" || t_fail "GET /metrics failed"
if command -v promtool >/dev/null; then
	promtool check metrics <"$T/metrics.txt" >"$T/promtool.out" 2>&1 ||
		t_fail "promtool check metrics: $(cat "$T/promtool.out")"
fi
grep -q '^arraysim_op_latency_seconds_bucket{op="write",le="+Inf"} ' "$T/metrics.txt" ||
	t_fail "no write latency histogram in the exposition"
# The null profile has no array model: no tier, controller or drive series.
if grep -q '^arraysim_\(tier\|drive\|controller\|rebuild\)_' "$T/metrics.txt"; then
	t_fail "array series in the exposition of a null-profile mount"
fi
# What is emulated, for every profile (issue 13, point 3).
grep -q '^arraysim_info{profile="null",scale="1",time_scale="1",seed="0",version="[^"]*"} 1$' "$T/metrics.txt" ||
	t_fail "no arraysim_info for the null profile: $(grep arraysim_info "$T/metrics.txt" || echo none)"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MPORT/other")
t_assert_eq "$code" "404" "status of a path other than /metrics"

prom_start "$MPORT"

fio --name=steady --filename="$MNT/f" --size=256M --rw=write --bs=64k --rate=16m \
	--ioengine=psync --time_based --runtime=14 --output-format=json >"$T/fio.json" 2>"$T/fio.err" ||
	t_fail "fio: $(cat "$T/fio.err")"
end=$(date +%s.%N)
# Wait (bounded) for a scrape taken after the run, then ask for the rate
# over the last 6 s of the run.
for ((i = 0; i < 100; i++)); do
	python3 - "$API" "$end" <<-'PY' && break
	import json, sys, urllib.parse, urllib.request
	q = urllib.parse.urlencode({"query": 'timestamp(arraysim_bytes_total{op="write"})'})
	r = json.load(urllib.request.urlopen(f"{sys.argv[1]}/query?{q}"))["data"]["result"]
	sys.exit(not (r and float(r[0]["value"][1]) > float(sys.argv[2])))
	PY
	sleep 0.2
done
[ "$i" -lt 100 ] || t_fail "no scrape after the run in 20 s"
python3 - "$T/fio.json" "$API" "$end" <<-'PY' || t_fail "Prometheus rate vs fio (above)"
import json, sys, urllib.parse, urllib.request
fio = json.load(open(sys.argv[1]))["jobs"][0]["write"]["bw_bytes"]
api, end = sys.argv[2], float(sys.argv[3])
q = urllib.parse.urlencode({"query": 'rate(arraysim_bytes_total{op="write"}[6s])', "time": f"{end - 0.5:.3f}"})
res = json.load(urllib.request.urlopen(f"{api}/query?{q}"))["data"]["result"]
assert res, "no series"
prom = float(res[0]["value"][1])
print(f"fio {fio / 1e6:.2f} MB/s, Prometheus rate {prom / 1e6:.2f} MB/s, ratio {prom / fio:.3f}")
assert abs(prom / fio - 1) <= 0.10, "more than 10% apart"
PY
echo "PASS"
