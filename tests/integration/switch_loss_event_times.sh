#!/usr/bin/env bash
# switch_loss_event_times: the shipped infinidat-switch-loss.ini at
# time-scale=10 on infinidat-6303 (4 of 8 paths lost in one instant, so
# each path's stall overlaps the one before) logs event times that are
# times: every in_s, lasts_s and serves_in_s is finite, at least 0 and
# under a day. It once logged "in_s":18446744073.7, an unsigned
# subtraction wrapped. Then the report of the run lays out its labels
# with no overlap (report_lib.sh's t_check_labels).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"
t_setup
t_mount --profile infinidat-6303 --scale 10 --seed 3
ctl() { "$ARRAYSIM" ctl "$MNT" "$@"; }

# A paced reader, so that there is I/O for the stalls to hold up.
head -c 1M /dev/urandom >"$MNT/f"
(
	for ((i = 0; i < 200; i++)); do
		dd if="$MNT/f" of=/dev/null bs=4k count=1 skip=$((i % 256)) iflag=direct 2>/dev/null || true
		sleep 0.1
	done
) &
reader=$!
ctl scenario run "$ARRAYSIM_SRC/faults/scenarios/infinidat-switch-loss.ini" time-scale=10 >/dev/null
t_scenario_wait 30 | grep -q '^finished infinidat-switch-loss' || t_fail "scenario: $(ctl scenario status)"
kill "$reader" 2>/dev/null || true
wait "$reader" 2>/dev/null || true
t_umount

python3 - "$STORE/events.jsonl" <<-'PY' || t_fail "event times (above)"
import json, math, sys
bad, n = [], 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    for k, v in e.items():
        if k in ("in_s", "lasts_s", "serves_in_s"):
            n += 1
            if not (isinstance(v, (int, float)) and math.isfinite(v)
                    and 0 <= v < 86400):
                bad.append(line.strip())
stalls = sum(1 for l in open(sys.argv[1]) if '"event":"stall"' in l)
print("%d times in %d stall events, %d bad" % (n, stalls, len(bad)),
      file=sys.stderr)
if stalls < 4:
    sys.exit("expected a stall event per path lost, got %d" % stalls)
if bad:
    sys.exit("garbage times:\n" + "\n".join(bad[:5]))
PY

"$ARRAYSIM" report "$STORE" >/dev/null || t_fail "arraysim report exited $?"
t_check_labels "$STORE/report.html"
echo "PASS"
