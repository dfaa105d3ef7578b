#!/usr/bin/env bash
# says_what_it_emulates: a mount names what it emulates everywhere a user
# or a tool looks (issue 13, point 3: `ctl status` always said "profile
# null", and nothing else named the profile, scale, time scale, seed or
# version), and `arraysim mount --time-scale` reaches the model (it was in
# the option table's test but not in the command: point 4). A profile file
# with failover_time 10 s at --scale 2 --time-scale 20: `ctl status`,
# `stats` text and JSON, the mount event and arraysim_info all say so, and
# a controller pull stalls 0.5 s (10 s / 20), not 5 s (10 s / 2).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd python3 curl

t_setup
cat >"$T/two ctl.ini" <<-'INI'
	[controllers]
	count = 2
	mode = active-active
	cores = 4
	failover_time = 10s
	[frontend]
	links = 1
	speed = 10GbE
	[tier flash]
	kind = ssd
	drives = 4
	capacity = 1G
	raid = raid10
	read_latency = 200us
	write_latency = 100us
	slots = 4
INI
PORT=$((20000 + RANDOM % 20000))
t_mount --profile "$T/two ctl.ini" --scale 2 --time-scale 20 --seed 42 \
	--metrics "$PORT"
PROFILE=$(realpath "$T/two ctl.ini")
VERSION=$("$ARRAYSIM" ctl "$MNT" status | sed -n 's/^version //p')
[ -n "$VERSION" ] || t_fail "ctl status has no version line"

"$ARRAYSIM" ctl "$MNT" status >"$T/status"
for want in "profile $PROFILE" "scale 2" "time_scale 20" "seed 42"; do
	grep -qxF "$want" "$T/status" || t_fail "ctl status lacks '$want'"
done
"$ARRAYSIM" stats "$MNT" >"$T/stats"
for key in profile scale time_scale version seed; do
	grep -qE "^  $key +" "$T/stats" || t_fail "stats text lacks $key"
done
grep -qF "$PROFILE" "$T/stats" || t_fail "stats text does not name the profile"
t_stats_json >"$T/stats.json"
curl -sf "http://127.0.0.1:$PORT/metrics" >"$T/metrics" ||
	t_fail "no metrics on port $PORT"
id=$("$ARRAYSIM" ctl "$MNT" fault inject controller id=0)
t_wait_event stall "$id" 5
python3 - "$T/stats.json" "$STORE/events.jsonl" "$T/metrics" "$PROFILE" "$VERSION" <<-'PY' || t_fail "what is emulated is misnamed (above)"
	import json, sys
	stats, events, metrics, profile, version = sys.argv[1:6]
	want = {"profile": profile, "scale": 2, "time_scale": 20, "seed": 42,
	        "version": version}
	s = json.load(open(stats))
	for k, v in want.items():
	    assert s[k] == v, "stats --json %s: %r, not %r" % (k, s[k], v)
	ev = [json.loads(l) for l in open(events)]
	mount = [e for e in ev if e["event"] == "mount"][-1]
	for k, v in want.items():
	    assert mount[k] == v, "mount event %s: %r, not %r" % (k, mount[k], v)
	info = [l for l in open(metrics) if l.startswith("arraysim_info{")]
	assert info == ['arraysim_info{profile="%s",scale="2",time_scale="20",'
	                'seed="42",version="%s"} 1\n' % (profile, version)], info
	stall = [e for e in ev if e["event"] == "stall"][-1]
	print("# controller pull: stall lasts %.3f s" % stall["lasts_s"],
	      file=sys.stderr)
	assert abs(stall["lasts_s"] - 0.5) < 1e-6, stall
	PY
t_umount
t_log "ok"
