#!/usr/bin/env bash
# report: the rehearsal report of a real run. fio writes for about 6 s
# while a scenario (time-scale 10) injects 200 ms of write latency, which
# all but stalls it, and an EIO fault on /err/*, which a writer there
# hits, and clears both 2 s later. Then `arraysim report STORE`:
#   - the page is self-contained, and every chart has the inject marker at
#     the x its time maps to, the degraded period, and a stall inside it;
#     the summary lists both faults, the EIO hits and the stall's length
#   - headless Chromium renders it with no console error (checked to be
#     seen, on a page that has one), and its screenshot has pixels of the
#     marker's colour in the marker's column, of the stall and of the
#     degraded shading
#   - no two fault labels of a chart overlap, in the boxes the page emits
#     and in those Chromium renders (report_lib.sh's t_check_labels)
# Without chromium the page's structure is still checked, then the test
# skips (77), saying so.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"
t_require_cmd fio

CHECK=(python3 "$ARRAYSIM_SRC/tests/integration/report_check.py")
t_setup
t_mount --seed 3
A=$ARRAYSIM
ctl() { "$A" ctl "$MNT" "$@"; }

mkdir "$MNT/err"
cat >"$T/stall.ini" <<-'INI'
	[scenario]
	name = write-stall
	[at 20s]
	inject.eio = error op=write path=/err/*
	inject.slow = latency latency=200ms op=write
	[at 40s]
	clear = slow
	clear = eio
INI
ctl scenario run "$T/stall.ini" time-scale=10 >/dev/null
# The EIO fault first: an operation two faults match is logged under the
# first one's id, and the writer's writes should count as its hits.
# A writer in /err: its writes fail with EIO while the fault is active.
(
	for ((i = 0; i < 60; i++)); do
		echo x 2>/dev/null >"$MNT/err/f$i" || true
		sleep 0.1 # a paced writer, not a wait for anything
	done
) &
writer=$!
t_fio --name=w --directory="$MNT" --rw=randwrite --bs=4k --size=32M \
	--time_based --runtime=6 --ioengine=psync
wait "$writer"
for ((i = 0; i < 100; i++)); do
	ctl scenario status | grep -q '^finished' && break
	sleep 0.1
done
ctl scenario status | grep -q '^finished write-stall step 4/4' \
	|| t_fail "scenario: $(ctl scenario status)"
t_umount

out=$("$A" report "$STORE") || t_fail "arraysim report exited $?"
# The summary is the first line; a host-bound or hang line may follow.
out=${out%%$'\n'*}
PAGE=$STORE/report.html
[[ $out == "$PAGE: run 1 of 1, "*", 2 faults, "*" stalls" ]] || t_fail "report said: $out"
# Where the scenario's steps landed, in the event log's time.
read -r inject_t clear_t < <(t_event_times "$STORE/events.jsonl")
marker_x=$("${CHECK[@]}" html "$PAGE" "$inject_t" "$clear_t") || t_fail "page structure (above)"
grep -q '<td>error op=write errno=EIO path=/err/\*</td>' "$PAGE" || t_fail "EIO fault not in the summary"
hits=$(sed -n 's|.*<td>error op=write errno=EIO path=/err/\*</td>.*<td>\([0-9]*\)</td></tr>|\1|p' "$PAGE")
[ "${hits:-0}" -gt 0 ] || t_fail "no EIO hits in the summary ('$hits')"
errors=$(sed -n 's|.*<th>errors returned</th><td>\([0-9]*\)</td>.*|\1|p' "$PAGE")
[ "${errors:-0}" -gt 0 ] || t_fail "no errors returned in the summary ('$errors')"
t_log "inject at ${inject_t}s, clear at ${clear_t}s, marker at x=$marker_x, $hits EIO hits"

# A second run, a remount: --run picks either, the last by default.
t_mount --seed 3
t_umount
"$A" report "$STORE" --run 1 --out "$T/run1.html" | grep -q "run 1 of 2" || t_fail "--run 1"
cmp -s <(sed 's|<td>1 of 1 (|<td>1 of 2 (|' "$PAGE") "$T/run1.html" || t_fail "--run 1 differs from the first report"
"$A" report "$STORE" --out "$T/run2.html" | grep -q "run 2 of 2, .*, 0 faults, 0 stalls" || t_fail "the last run"
rc=0
"$A" report "$STORE" --run 3 --out "$T/x.html" 2>"$T/err" || rc=$?
t_assert_eq "$rc" 2 "exit status for --run 3 of 2"
grep -q "^arraysim: report: --run 3: .* has 2 run(s)" "$T/err" || t_fail "error: $(cat "$T/err")"

# Fault labels never overlap: as emitted, and as Chromium renders them.
t_check_labels "$PAGE"

command -v chromium >/dev/null 2>&1 \
	|| t_skip "chromium is not installed (apt install chromium): the page's structure passed, its rendering is untested"


# The check must see an error when there is one.
printf '<!DOCTYPE html><html><body><script>no_such_function();</script></body></html>\n' >"$T/broken.html"
t_render "$T/broken.html" "$T/broken.png"
[ -n "$(t_console_errors)" ] || t_fail "a page with a script error logged no console error: the check sees nothing"

t_render "$PAGE" "$T/shot.png"
errors=$(t_console_errors)
[ -z "$errors" ] || t_fail "console errors rendering the report: $errors"
"${CHECK[@]}" png "$T/shot.png" "$marker_x" >&2 || t_fail "screenshot (above)"
echo "PASS"
