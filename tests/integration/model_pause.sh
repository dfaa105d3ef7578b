#!/usr/bin/env bash
# model_pause: `ctl MNT model pause|resume` and `stats mark` (issue 18,
# point 4). Paused, 8 MiB written to a hybrid (tintri-t540, write-back)
# land in flash as the model would put them (2048 blocks resident and
# dirty) while no resource books any time; the event log names the pause
# and the resume. After a mark, `stats --array --since-mark` counts the
# I/O since the mark alone. Refusals are one line: pause on the null
# profile, --since-mark before any mark.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
t_mount --profile tintri-t540 --scale 0.2
rc=0
"$ARRAYSIM" stats "$MNT" --array --since-mark 2>"$T/err" >/dev/null || rc=$?
[ "$rc" -eq 2 ] && grep -q '^arraysim: stats: no mark' "$T/err" || t_fail "--since-mark without a mark: rc $rc, $(cat "$T/err")"
"$ARRAYSIM" ctl "$MNT" model pause || t_fail "model pause exited $?"
dd if=/dev/urandom of="$MNT/laid" bs=1M count=8 conv=fsync status=none
"$ARRAYSIM" stats "$MNT" --array --json >"$T/paused.json"
"$ARRAYSIM" ctl "$MNT" model resume || t_fail "model resume exited $?"
python3 - "$T/paused.json" <<-'PY' || t_fail "paused layout (above)"
	import json, sys
	d = json.load(open(sys.argv[1]))
	c = d["cache"]
	print("# paused: cache resident %d dirty %d" % (c["resident"], c["dirty"]), file=sys.stderr)
	assert c["resident"] == 2048 and c["dirty"] == 2048, c
	for name, t in d["tiers"].items():
	    assert t["iops"] == 0 and t["mbps"] == 0, "tier %s booked time: %r" % (name, t)
	PY
python3 - "$STORE/events.jsonl" <<-'PY' || t_fail "event log lacks the pause and resume"
	import json, sys
	ev = [json.loads(l)["event"] for l in open(sys.argv[1])]
	assert "model_pause" in ev and "model_resume" in ev, ev
	assert ev.index("model_pause") < ev.index("model_resume"), ev
	PY

dd if=/dev/urandom of="$MNT/before" bs=64k count=64 oflag=direct status=none
"$ARRAYSIM" ctl "$MNT" stats mark || t_fail "stats mark exited $?"
dd if="$MNT/laid" of=/dev/null bs=4k count=100 iflag=direct status=none
"$ARRAYSIM" stats "$MNT" --array --json >"$T/all.json"
"$ARRAYSIM" stats "$MNT" --array --since-mark --json >"$T/mark.json"
python3 - "$T/all.json" "$T/mark.json" <<-'PY' || t_fail "since-mark figures (above)"
	import json, sys
	whole, mark = (json.load(open(p)) for p in sys.argv[1:3])
	lin = lambda d: d["tiers"]["link.in"]["mbps"] * d["elapsed_s"]
	lout = lambda d: d["tiers"]["link.out"]["mbps"] * d["elapsed_s"]
	print("# MB in over the mount %.2f, since the mark %.2f; out since the mark %.2f"
	      % (lin(whole), lin(mark), lout(mark)), file=sys.stderr)
	assert lin(whole) > 4.0, "the 4 MiB written before the mark are not counted at all"
	assert lin(mark) < 0.01, "writes before the mark counted since it"
	assert 0.3 < lout(mark) < 0.5, "100 x 4 KiB read since the mark: %.3f MB" % lout(mark)
	PY
t_umount

t_mount
rc=0
"$ARRAYSIM" ctl "$MNT" model pause 2>"$T/err" || rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q '^arraysim: ctl: model pause: the null profile' "$T/err" \
	|| t_fail "model pause on the null profile: rc $rc, $(cat "$T/err")"
t_umount
t_log "ok"
