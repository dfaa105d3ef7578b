#!/usr/bin/env bash
# report_controller: the rehearsal the issue names. A timed profile (3
# active-active controllers, failover_time 30 s) at --scale 10 is pulled
# one controller 2 s into a 10 s fio run and restored at 8 s (a scenario
# at time-scale 1): the array stalls for the 3 s failover. Then `arraysim
# report STORE` shows the pull as a marker with the degraded period and a
# stall inside it of about the failover's length, and headless Chromium
# renders the page with no console error, its screenshot holding the
# marker and the stall.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/report_lib.sh"
t_require_cmd fio chromium

CHECK=(python3 "$ARRAYSIM_SRC/tests/integration/report_check.py")
t_setup
cat >"$T/ctl3.ini" <<-'INI'
	[controllers]
	count = 3
	mode = active-active
	cores = 8
	failover_time = 30s
	[frontend]
	links = 2
	speed = 10GbE
	[tier flash]
	kind = ssd
	drives = 4
	capacity = 1G
	raid = raid5
	read_latency = 200us
	write_latency = 100us
	slots = 4
INI
t_mount --profile "$T/ctl3.ini" --scale 10 --seed 3
cat >"$T/pull.ini" <<-'INI'
	[scenario]
	name = controller-pull
	[at 2s]
	inject.c = controller id=0
	[at 8s]
	clear = c
INI
"$ARRAYSIM" ctl "$MNT" scenario run "$T/pull.ini" >/dev/null
t_fio --name=w --directory="$MNT" --rw=randrw --bs=4k --size=16M \
	--time_based --runtime=10 --ioengine=psync
"$ARRAYSIM" ctl "$MNT" scenario status | grep -q '^finished controller-pull step 2/2' ||
	t_fail "scenario: $("$ARRAYSIM" ctl "$MNT" scenario status)"
t_umount

out=$("$ARRAYSIM" report "$STORE") || t_fail "arraysim report exited $?"
# The summary is the first line; a host-bound or hang line may follow.
out=${out%%$'\n'*}
PAGE=$STORE/report.html
[[ $out == "$PAGE: run 1 of 1, "*", 1 faults, "[1-9]*" stalls" ]] || t_fail "report said: $out"
read -r inject_t clear_t < <(t_event_times "$STORE/events.jsonl")
marker_x=$("${CHECK[@]}" html "$PAGE" "$inject_t" "$clear_t") || t_fail "page structure (above)"
grep -q '<td>controller id=0</td>' "$PAGE" || t_fail "the controller pull is not in the summary"
# The stall the page reports lasts about the failover (3 s at --scale 10;
# per-second samples, so within a second either way).
stall=$(python3 - "$PAGE" <<-'PY'
	import re, sys
	page = open(sys.argv[1]).read()
	t = page.split('<table class="stalls">', 1)[1].split("</table>", 1)[0]
	rows = re.findall(r"<tr><td>[0-9.]+ s</td><td>[0-9.]+ s</td><td>([0-9.]+) s</td>", t)
	print(max(float(x) for x in rows) if rows else "")
	PY
)
t_log "pull at ${inject_t}s, restored at ${clear_t}s, marker at x=$marker_x, stall ${stall:-?} s"
python3 -c 'import sys; s=float(sys.argv[1] or 0); sys.exit(not 2.0 <= s <= 4.0)' "${stall:-0}" ||
	t_fail "the page's stall is '${stall}' s, not about the 3 s failover"

t_render "$PAGE" "$T/shot.png"
errors=$(t_console_errors)
[ -z "$errors" ] || t_fail "console errors rendering the report: $errors"
"${CHECK[@]}" png "$T/shot.png" "$marker_x" >&2 || t_fail "screenshot (above)"
echo "PASS"
