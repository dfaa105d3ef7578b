#!/usr/bin/env bash
# report_labels: the report's fault labels never overlap. A store made by
# hand (no mount) with what infinidat-switch-loss.ini at time-scale=10
# logs, four path faults injected in the same instant and cleared in the
# same instant, and more markers close by (a count=3 rule, a torn write,
# a clear of all): once they were drawn in two alternating rows and
# overprinted. A hang after every fault was cleared is flagged on the
# command's output too. Checked on the label boxes the page emits and, with
# chromium, on the boxes Chromium renders (getBoundingClientRect in a
# probe copy of the page; the page itself has no script).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"
t_setup
A=$ARRAYSIM

python3 - "$STORE" <<-'PY'
import json, sys
store = sys.argv[1]
with open(store + "/samples.jsonl", "w") as f:
    for t in range(1, 25):
        # 20 and 21: nothing completes, and the writes of 22 waited 2.5 s
        # with every fault cleared (18.1 s): a hang to flag.
        iops = 0 if t in (20, 21) else 1000
        p99 = 2.5e6 if t == 22 else 900
        f.write(json.dumps({"t": t, "interval_s": 1, "write_iops": iops,
                            "write_p99_us": p99}) + "\n")
ev = []
for i in range(4):
    ev.append({"t": 6.0 + i * 1e-4, "event": "inject", "id": i + 1,
               "rule": "path id=%d" % i})
    ev.append({"t": 6.0 + i * 1e-4, "event": "stall", "id": i + 1,
               "in_s": 0, "lasts_s": 0.5})
ev.append({"t": 6.2, "event": "inject", "id": 5,
           "rule": "error op=write errno=EIO count=3 path=/very/long/path/*"})
ev.append({"t": 6.4, "event": "rule_done", "id": 5, "hits": 3})
ev.append({"t": 6.5, "event": "torn_write", "id": 6})
for i in range(4):
    ev.append({"t": 18.0 + i * 1e-4, "event": "clear", "id": i + 1})
ev.append({"t": 18.1, "event": "clear", "id": 0})
ev.append({"t": 23.9, "event": "inject", "id": 7,
           "rule": "latency latency=20ms op=read near the right edge"})
with open(store + "/events.jsonl", "w") as f:
    for e in ev:
        f.write(json.dumps(e) + "\n")
PY

"$A" report "$STORE" >"$T/out" || t_fail "arraysim report exited $?"
grep -q "^$STORE/report.html: 1 of the stalls with no fault active: hangs to explain" "$T/out" \
	|| t_fail "the hang at 19..21 s is not flagged: $(cat "$T/out")"
t_check_labels "$STORE/report.html"
echo "PASS"
