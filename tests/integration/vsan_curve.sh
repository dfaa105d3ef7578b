#!/usr/bin/env bash
# vsan_curve: issue 16's curve run on vsan-dell-r740xd with dedupe and
# compression off (as built) and on (workloads/curve-reduction.sh), on
# data half duplicate and compressible to about 40% (kept under vSAN's
# halving rule), at --scale 0.01 (32 outstanding: some 1,300 IOPS, far
# under any host's ceiling). Each curve's held steps reach their target
# within 10%; the run with reduction on reports more data reduction
# than dedupe's share alone could give, LZ4's part in it, and the run
# without compresses nothing; `arraysim report --curve` charts both,
# each its own colour, painted by Chromium when it is installed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"
t_require_cmd fio python3

PROFILE=vsan-dell-r740xd
# A timed figure test: the sanitized step runs these on one profile only
# (scripts/test.sh, TIMED_PROFILES); workload_curve covers the curve
# script's paths there.
t_only_profiles TIMED_PROFILES "$PROFILE"
t_setup
OUT=$T/curves
ARRAYSIM=$ARRAYSIM SCALE=0.01 QD=32 SIZE=16M RUNTIME=3 STEPS="30 60 90" \
	"$ARRAYSIM_SRC/workloads/curve-reduction.sh" "$PROFILE" "$OUT" ||
	t_fail "curve-reduction.sh failed"
ON=$PROFILE-dedupe-lz4

python3 - "$OUT" "$PROFILE" "$ON" <<'PY' || t_fail "curves (above)"
import json, sys
out, off_name, on_name = sys.argv[1:]
for run in (off_name, on_name):
    lines = [json.loads(l) for l in open(f"{out}/{run}.jsonl")]
    for l in lines:
        print(run, json.dumps(l))
    assert [l["pct"] for l in lines] == [0, 30, 60, 90], f"{run}: steps"
    for l in lines[1:]:
        assert abs(l["iops"] / l["target_iops"] - 1) <= 0.10, \
            f"{run} {l['pct']}%: {l['iops']} IOPS against a target of {l['target_iops']}"
off, on = (json.load(open(f"{out}/{n}.stats.json")) for n in (off_name, on_name))
keys = ("compression", "after_dedupe_bytes", "after_compression_bytes",
        "compression_ratio", "data_reduction_ratio")
for name, st in (("off", off), ("on", on)):
    print(name, {k: st[k] for k in keys})
assert off["compression"] == "none" and off["compression_ratio"] == 1, "off compresses"
assert on["compression"] == "lz4" and on["compression_ratio"] > 1.5, "on: LZ4 kept too little"
# fio's dedupe_percentage=50 gives dedupe at most 2:1.
assert on["data_reduction_ratio"] > 2 * 1.5, "on: dedupe and compression together"
PY

CHECK=(python3 "$ARRAYSIM_SRC/tests/integration/report_check.py" curve "$OUT/report.html"
	"$OUT/$PROFILE.jsonl,$OUT/$ON.jsonl")
if command -v chromium >/dev/null 2>&1; then
	t_render "$OUT/report.html" "$T/shot.png"
	[ -z "$(t_console_errors)" ] || t_fail "console errors: $(t_console_errors)"
	"${CHECK[@]}" "$T/shot.png" >&2 || t_fail "curve chart (above)"
else
	"${CHECK[@]}" >&2 || t_fail "curve chart (above)"
	t_log "chromium is not installed: the chart's structure passed, its rendering is untested"
fi
echo "PASS"
