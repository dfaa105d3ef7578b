#!/usr/bin/env bash
# node_controller_pull: "pull a controller under load", the array
# evaluation's failure rehearsal, on the two profiles of several nodes
# through FUSE. Each at --scale 0.1 (as node_drive_fault.sh: this QD4 load
# of 4 KiB requests, a few ms each in the model, stays under the host's
# ceiling: 2% of replies host-bound here on a quiet host, 17% at load
# average 5, neither near the stall's tolerance) and --time-scale 10, so the
# profile's failover_time of 10 s (100 s at the scale alone) is a 1 s stall.
# A fio random-write load with verify_backlog (every 32 writes read back
# and checked, throughout) runs from before the pull to after the
# restore; under it:
# - xtremio-xbrick4: controller 5 (brick 2's second) is pulled. Checked:
#   the `stall` event lasts failover_time / time scale, its `stall_end`
#   comes that long after it (within +10%, -1%: a timer of the fault
#   completer, late by the host's scheduling, never early), fio's longest
#   request waited the stall (within 10%: the stall plus a request's few
#   ms), then `stats --array --since-mark` over the next requests: ctl5
#   takes none, its partner ctl4 over 1.25 times the mean of the other
#   six, every other controller serving; restored, `serving_again`, and
#   ctl5 serves with ctl4 back under 1.25 times the mean. (ctl4 does its
#   own work and ctl5's, less the mirror copies of brick 2's writes it no
#   longer receives with no partner up, tiers/model.c: about 1.55 times
#   the others' at this half-write load; 1.25 lies between that and 1.)
# - vsan-dell-r740xd: host 3 (its one "controller") is pulled: a node
#   down. Checked: the same stall; then host 3's controller, network
#   ports and drives take nothing while every other host serves, and
#   its data's reads go to the other hosts' members: the drives of hosts
#   4 to 7 (the next up, which the model asks) each do more per request
#   than before the pull, by over a quarter of what host 3's did;
#   restored, the events `serving` (7, then 8), `resync` (bytes > 0),
#   nine `resync_progress` and `resync_end`, and host 3 serving again,
#   its drives included. No other integration test pulls a vSAN host
#   (node_drive_fault.sh: drives, controllers and paths of
#   xtremio-xbrick4, no load on the controller; vsan_*.sh: no faults).
# Both: fio exits 0 (no I/O error, verify clean), no data_loss event,
# fsck clean. Measured: 28 s here (2 cores at load average 4.5, shared
# with other builds and tests; a python start took a second then, and the
# test starts about 15 of them a profile), mostly mounts, fsck and polls.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio python3

t_setup
A=$ARRAYSIM
TS=10 # --time-scale
ctl() { "$A" ctl "$MNT" "$@"; }

# failover_s PROFILE: its failover_time in seconds (profile show prints
# it in s).
failover_s() {
	"$A" profile show "$1" | sed -n 's/^failover_time = \([0-9.]*\)s$/\1/p'
}

# window OUT N: mark, then wait (bounded, 20 s) until the front-end
# links have taken N requests since; the `stats --array --since-mark --json`
# of that window in OUT.
window() {
	ctl stats mark >/dev/null
	local end=$((SECONDS + 20))
	while ((SECONDS < end)); do
		kill -0 "$fio_pid" 2>/dev/null ||
			{ cat "$T/fio.json" >&2; t_fail "fio ended early (above)"; }
		"$A" stats --array --since-mark --json "$MNT" >"$1"
		python3 - "$1" "$2" <<-'PY' && return 0
			import json, sys
			d = json.load(open(sys.argv[1]))
			t = d["tiers"]
			n = t["link.in"]["iops"] + t["link.out"]["iops"]
			sys.exit(n * d["elapsed_s"] < int(sys.argv[2]))
		PY
		sleep 0.1
	done
	t_fail "fewer than $2 requests in 20 s: is the load running?"
}

# start_load: the fio load in the background (fio_pid), once its writes
# reach the array.
start_load() {
	cat >"$T/load.fio" <<-JOB
		[global]
		directory=$MNT
		size=8M
		bs=4k
		rw=randwrite
		ioengine=libaio
		direct=1
		iodepth=4
		verify=crc32c
		verify_backlog=32
		verify_fatal=1
		time_based
		runtime=60
		[load]
	JOB
	# Runs until finish_load creates the trigger file (fio then ends its
	# job as at its runtime, exit 0): the load spans the steps however
	# slowly a loaded host takes them.
	rm -f "$T/stop"
	fio --output-format=json --output="$T/fio.json" --aux-path="$T" \
		--trigger-file="$T/stop" "$T/load.fio" &
	fio_pid=$!
	T_PIDS+=("$fio_pid")
	local end=$((SECONDS + 10))
	while ((SECONDS < end)); do
		[ "$(t_stat_json blocks_written)" -gt 0 ] && return 0
		sleep 0.05
	done
	t_fail "fio's writes did not reach the array in 10 s"
}

# pull ID WANT_S: pull controller ID under the load; once its stall has
# ended, check it in the events: it lasts WANT_S, and its stall_end came
# that long after it (-1%, +10%: a timer, late by the host's scheduling).
pull() {
	cid=$(ctl fault inject controller id="$1") || t_fail "controller $1 refused"
	t_log "pulled controller $1 (fault $cid)"
	grep -q '"event":"stall","id":'"$cid"',' "$STORE/events.jsonl" ||
		t_fail "no stall event for controller $1"
	t_wait_event stall_end "$cid" 10
	python3 - "$STORE/events.jsonl" "$cid" "$2" <<-'PY' || t_fail "the stall (above)"
		import json, sys
		ev = {}
		for l in open(sys.argv[1]):
		    e = json.loads(l)
		    if e.get("id") == int(sys.argv[2]):
		        ev.setdefault(e["event"], e)
		want, s = float(sys.argv[3]), ev["stall"]
		took = ev["stall_end"]["t"] - s["t"]
		print("# stall lasts %.6f s, ended %.6f s after it (model %.6f)"
		      % (s["lasts_s"], took, want), file=sys.stderr)
		assert s["in_s"] == 0 and abs(s["lasts_s"] - want) < 1e-6
		assert 0.99 * want <= took <= 1.1 * want
	PY
}

# finish_load WANT_S: fio done, no error, verify clean; its longest
# request waited the stall.
finish_load() {
	touch "$T/stop"
	wait "$fio_pid" || { cat "$T/fio.json" >&2; t_fail "fio failed (I/O error or verify)"; }
	python3 - "$T/fio.json" "$1" <<-'PY' || t_fail "fio's figures (above)"
		import json, sys
		j = json.load(open(sys.argv[1]))["jobs"][0]
		want = float(sys.argv[2])
		w, r = j["write"], j["read"]
		mx = max(w["clat_ns"]["max"], r["clat_ns"]["max"]) / 1e9
		print("# fio: %d writes, %d verified, error %d, longest %.3f s"
		      " (stall %.3f)" % (w["total_ios"], r["total_ios"], j["error"],
		      mx, want), file=sys.stderr)
		assert j["error"] == 0
		assert r["total_ios"] > 0, "nothing verified"
		assert 0.9 * want <= mx <= 1.1 * want, "no request waited the stall"
	PY
	grep -q '"event":"data_loss"' "$STORE/events.jsonl" && t_fail "data lost"
	return 0
}

t_log "xtremio-xbrick4: controller 5 (brick 2's second) pulled under load"
stall=$(awk -v f="$(failover_s xtremio-xbrick4)" -v s="$TS" 'BEGIN { print f / s }')
t_mount --profile xtremio-xbrick4 --scale 0.1 --time-scale "$TS" --seed 1
start_load
pull 5 "$stall"
window "$T/down.json" 300
ctl fault clear "$cid"
t_wait_event serving_again "$cid" 10
window "$T/back.json" 300
python3 - "$T/down.json" "$T/back.json" <<-'PY' || t_fail "controllers (above)"
	import json, sys
	def ctl(f):
	    r = json.load(open(f))["resources"]
	    return [r["ctl%d" % i]["iops"] for i in range(8)]
	down, back = ctl(sys.argv[1]), ctl(sys.argv[2])
	print("# IOPS per controller, ctl5 down:", down, file=sys.stderr)
	print("# IOPS per controller, ctl5 back:", back, file=sys.stderr)
	rest = lambda v: sum(v[i] for i in range(8) if i not in (4, 5)) / 6
	assert down[5] == 0, "the pulled controller served"
	assert all(down[i] > 0 for i in range(8) if i != 5), "a survivor idle"
	assert down[4] > 1.25 * rest(down), "the partner did not take its share"
	assert all(v > 0 for v in back), "not every controller serving"
	assert back[4] < 1.25 * rest(back), "the partner still carries ctl5's share"
	PY
finish_load "$stall"
t_umount
t_fsck

t_log "vsan-dell-r740xd: host 3 pulled under load (node down), back (resync)"
T2=$T/vsan
mkdir "$T2"
STORE=$T2/store MNT=$T2/mnt
mkdir "$STORE" "$MNT"
stall=$(awk -v f="$(failover_s vsan-dell-r740xd)" -v s="$TS" 'BEGIN { print f / s }')
t_mount --profile vsan-dell-r740xd --scale 0.1 --time-scale "$TS" --seed 1
start_load
window "$T/base.json" 300
pull 3 "$stall"
window "$T/down.json" 300
ctl fault clear "$cid"
t_wait_event serving_again "$cid" 10
t_wait_event resync_end "$cid" 10
python3 - "$STORE/events.jsonl" "$cid" <<-'PY' || t_fail "host 3's events (above)"
	import json, sys
	ev = [json.loads(l) for l in open(sys.argv[1])]
	ev = [e for e in ev if e.get("id") == int(sys.argv[2])]
	names = [e["event"] for e in ev]
	print("# events of the pull:", " ".join(names), file=sys.stderr)
	serving = [e["serving"] for e in ev if e["event"] == "serving"]
	assert serving == [7, 8], "hosts serving: %s, want 7 then 8" % serving
	rs = [e for e in ev if e["event"] == "resync"]
	assert rs and rs[0]["bytes"] > 0, "no resync of what host 3 missed"
	print("# resync of %d bytes" % rs[0]["bytes"], file=sys.stderr)
	assert names.count("resync_progress") == 9, "resync_progress 10..90%"
	assert names.index("resync") < names.index("resync_end")
	PY
window "$T/back.json" 300
python3 - "$T/base.json" "$T/down.json" "$T/back.json" <<-'PY' || t_fail "hosts (above)"
	import json, re, sys
	# Array-wide drive ids: a host has 2 cache and 14 capacity devices.
	PER = {"cache": 2, "backing": 14}
	def hosts(f):
	    d = json.load(open(f))
	    r, t = d["resources"], d["tiers"]
	    # Per request taken (a 4 KiB request crosses its link once), so
	    # that windows of different rates compare.
	    req = t["link.in"]["iops"] + t["link.out"]["iops"]
	    ops = lambda pre: sum(v["iops"] for k, v in r.items()
	                          if k.startswith(pre)) / req
	    drv = [re.fullmatch(r"(cache|backing)(\d+)", k) for k in r]
	    return [(ops("ctl%d" % n), ops("ic%d." % n), sum(
	        r[m[0]]["iops"] for m in drv
	        if m and int(m[2]) // PER[m[1]] == n) / req) for n in range(8)]
	base, down, back = (hosts(f) for f in sys.argv[1:4])
	for name, h in ("up", base), ("3 down", down), ("3 back", back):
	    print("# per request, (ctl, network, drive) ops of each host, %s: %s"
	          % (name, " ".join("(%.2f %.2f %.2f)" % x for x in h)),
	          file=sys.stderr)
	assert down[3] == (0, 0, 0), "the down host did work"
	assert all(down[n][0] > 0 for n in range(8) if n != 3), "a host idle"
	# Host 3's data read from the members on the next hosts up (4 to 7,
	# raid6's 4 data members: faults/README.md): each of their drives
	# busier by over a quarter of what host 3's did.
	for n in range(4, 8):
	    assert down[n][2] - base[n][2] > base[3][2] / 4, \
	        "host %d does not serve host 3's reads" % n
	assert all(h[0] > 0 and h[1] > 0 for h in back), "a host idle"
	assert back[3][2] > base[3][2] / 2, "host 3's drives not serving again"
	PY
finish_load "$stall"
t_umount
t_fsck
t_log "ok"
