#!/usr/bin/env bash
# top_report_name_emulated: the places a user reads a run from after the
# fact, or live, name what it emulated (issue 13, point 3; ctl status,
# stats and the metrics are says_what_it_emulates.sh's): the mount's line
# in arraysim.log, `top`'s header and the report's summary each say
# profile hybrid, scale 2, time scale 4, seed 7 and this build's version,
# as the mount event gives them.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd python3
A=$ARRAYSIM
VERSION=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$ARRAYSIM_SRC/meson.build" | head -1)
[ -n "$VERSION" ] || t_fail "no project version in meson.build"

t_setup
t_mount --profile hybrid --scale 2 --time-scale 4 --seed 7
echo data >"$MNT/f"
grep -q "profile hybrid, scale 2, time scale 4, seed 7, arraysim $VERSION" "$STORE/arraysim.log" ||
	t_fail "the mount's log line does not say what is emulated: $(grep -m3 mount "$STORE/arraysim.log")"
"$A" top --count 1 "$MNT" >"$T/top.out" || t_fail "arraysim top exited $?"
grep -qx "profile hybrid  scale 2  time scale 4  seed 7  arraysim $VERSION" "$T/top.out" ||
	t_fail "top's header: $(head -3 "$T/top.out")"
t_umount

"$A" report "$STORE" >/dev/null || t_fail "arraysim report exited $?"
grep -q "<td class=\"emulated\">profile hybrid, scale 2, time scale 4, seed 7 (arraysim $VERSION)</td>" "$STORE/report.html" ||
	t_fail "the report's summary: $(grep -o '<td class="emulated">[^<]*' "$STORE/report.html")"
echo "PASS"
