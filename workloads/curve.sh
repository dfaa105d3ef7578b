#!/usr/bin/env bash
# workloads/curve.sh: a VDBench-style curve run. The job at full speed
# first (its maximum, per direction), then held at 10%, 20% ... 100% of
# that maximum with fio's rate_iops, each step RUNTIME seconds; one JSON
# line a step on stdout, what the reports draw as latency against IOPS:
#   {"pct":50,"target_iops":..,"iops":..,"read_iops":..,"write_iops":..,
#    "lat_mean_us":..,"lat_p99_us":..}
# (pct 0 is the maximum run.) The job file takes RATE_R and RATE_W (read
# and write IOPS; 0 for no limit), as workloads/vdbench-curve.fio does.
#   DIR=MNT SIZE=4G RUNTIME=30 QD=32 workloads/curve.sh workloads/vdbench-curve.fio
#   STEPS="10 50 90" ...    only those percentages
#   DEDUPE_PCT=50 COMPRESS_PCT=50 ...   reducible data (vdbench-curve.fio)
set -euo pipefail
export DEDUPE_PCT=${DEDUPE_PCT:-0} COMPRESS_PCT=${COMPRESS_PCT:-0}
JOB=${1:?usage: curve.sh JOB.fio}
STEPS=${STEPS:-10 20 30 40 50 60 70 80 90 100}
OUT=$(mktemp -d /tmp/arraysim-curve.XXXXXX)
trap 'rm -rf "$OUT"' EXIT

# step PCT R W: run the job at read/write rates R and W, print its line.
step() {
	RATE_R=$2 RATE_W=$3 fio --output-format=json --output="$OUT/$1.json" "$JOB" >/dev/null ||
		{ echo "curve.sh: fio failed at $1%" >&2; exit 1; }
	python3 - "$OUT/$1.json" "$1" "$2" "$3" <<'PY'
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
r = sum(j["read"]["iops"] for j in jobs)
w = sum(j["write"]["iops"] for j in jobs)
ios = sum(j[d]["total_ios"] for j in jobs for d in ("read", "write"))
mean = sum(j[d]["clat_ns"]["mean"] * j[d]["total_ios"] for j in jobs for d in ("read", "write"))
p99 = max(j[d]["clat_ns"].get("percentile", {}).get("99.000000", 0) for j in jobs for d in ("read", "write"))
print(json.dumps({"pct": int(sys.argv[2]), "target_iops": int(sys.argv[3]) + int(sys.argv[4]),
                  "iops": round(r + w, 1), "read_iops": round(r, 1), "write_iops": round(w, 1),
                  "lat_mean_us": round(mean / ios / 1e3, 1) if ios else 0,
                  "lat_p99_us": round(p99 / 1e3, 1)}))
PY
}

max=$(step 0 0 0)
echo "$max"
read -r R W < <(python3 -c 'import json, sys; m = json.loads(sys.argv[1]); print(m["read_iops"], m["write_iops"])' "$max")
for p in $STEPS; do
	# fio's rate_iops is an integer per direction; 0 would mean no limit.
	r=$(python3 -c "print(max(1, round($R * $p / 100)))")
	w=$(python3 -c "print(max(1, round($W * $p / 100)))")
	step "$p" "$r" "$w"
done
