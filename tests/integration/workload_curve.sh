#!/usr/bin/env bash
# workload_curve: workloads/curve.sh on a timed mount (hybrid, --scale
# 0.2): the maximum run first, then the job held at 30% and 60% of it.
# Each held step reaches its target within 10% (the array has the
# headroom, so fio's rate limit is what sets the pace), stays below the
# maximum, and every line carries IOPS and latency. Then `arraysim
# report --curve` charts it: a point per held step where its IOPS and
# latency put it, painted by Chromium when it is installed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"
t_require_cmd fio python3

t_setup
t_mount --profile hybrid --scale 0.2
DIR=$MNT SIZE=16M RUNTIME=3 QD=8 STEPS="30 60" \
	"$ARRAYSIM_SRC/workloads/curve.sh" "$ARRAYSIM_SRC/workloads/vdbench-curve.fio" >"$T/curve.jsonl" ||
	t_fail "curve.sh failed"
cat "$T/curve.jsonl"
python3 - "$T/curve.jsonl" <<'PY' || t_fail "curve (above)"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [l["pct"] for l in lines] == [0, 30, 60], "steps"
top = lines[0]["iops"]
assert top > 0 and lines[0]["lat_mean_us"] > 0, "no maximum"
for l in lines[1:]:
    t = l["target_iops"]
    assert abs(l["iops"] / t - 1) <= 0.10, f"{l['pct']}%: {l['iops']} IOPS against a target of {t}"
    assert l["iops"] < top, f"{l['pct']}% above the maximum"
    assert l["lat_mean_us"] > 0 and l["lat_p99_us"] > 0, "no latency"
PY
t_umount

"$ARRAYSIM" report "$STORE" --curve "$T/curve.jsonl" --out "$T/report.html" ||
	t_fail "arraysim report --curve failed"
CHECK=(python3 "$ARRAYSIM_SRC/tests/integration/report_check.py")
if command -v chromium >/dev/null 2>&1; then
	t_render "$T/report.html" "$T/shot.png"
	[ -z "$(t_console_errors)" ] || t_fail "console errors: $(t_console_errors)"
	"${CHECK[@]}" curve "$T/report.html" "$T/curve.jsonl" "$T/shot.png" >&2 ||
		t_fail "curve chart (above)"
else
	"${CHECK[@]}" curve "$T/report.html" "$T/curve.jsonl" >&2 ||
		t_fail "curve chart (above)"
	t_log "chromium is not installed: the chart's structure passed, its rendering is untested"
fi
echo "PASS"
