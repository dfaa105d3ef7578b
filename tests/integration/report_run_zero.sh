#!/usr/bin/env bash
# report_run_zero: `arraysim report --run N` counts runs from 1. --run 0
# once meant the last run (the default when --run is left out); now it is
# refused with one line and exit 2, like --run past the last, and leaving
# --run out still picks the last. On a store made by hand (two mounts in
# its event log): no mount needed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_setup
A=$ARRAYSIM

cat >"$STORE/events.jsonl" <<-'EV'
	{"ts":"2026-11-30T07:00:00.000000Z","t":0.0,"event":"mount"}
	{"ts":"2026-11-30T07:00:01.000000Z","t":1.0,"event":"inject","id":1,"rule":"error op=write errno=EIO"}
	{"ts":"2026-11-30T07:00:02.000000Z","t":2.0,"event":"unmount"}
	{"ts":"2026-11-30T07:00:10.000000Z","t":0.0,"event":"mount"}
	{"ts":"2026-11-30T07:00:12.000000Z","t":2.0,"event":"unmount"}
EV

rc=0
"$A" report "$STORE" --run 0 --out "$T/x.html" >"$T/out" 2>"$T/err" || rc=$?
t_assert_eq "$rc" 2 "exit status for --run 0"
t_assert_eq "$(wc -l <"$T/err")" 1 "lines of the --run 0 error"
grep -q '^arraysim: report: --run 0: runs count from 1' "$T/err" || t_fail "error: $(cat "$T/err")"
[ ! -e "$T/x.html" ] || t_fail "--run 0 wrote a page"

"$A" report "$STORE" --run 1 --out "$T/1.html" | grep -q "run 1 of 2, .*, 1 faults" || t_fail "--run 1"
"$A" report "$STORE" --out "$T/2.html" | grep -q "run 2 of 2, .*, 0 faults" || t_fail "no --run: the last"
rc=0
"$A" report "$STORE" --run 3 --out "$T/x.html" 2>"$T/err" || rc=$?
t_assert_eq "$rc" 2 "exit status for --run 3 of 2"
echo "PASS"
