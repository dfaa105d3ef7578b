#!/usr/bin/env bash
# array_faults: array-level faults on a mount with a timed profile, under
# a load (tests/integration/ioload.py, 4 KiB reads at QD1). The profile
# (3 active-active controllers, 2 links, raid5 of 4 SSDs) runs at --scale
# 10, so its failover_time of 10 s is 1 s and its multipath_timeout of
# 5 s is 0.5 s; a scenario at time-scale 10 pulls a controller and later
# a path. Checked: the longest reads last the stalls within 10%; nothing
# fails; a second controller lost shuts the array down (EIO) and
# restoring brings it back; a fail-slow drive adds the modelled service
# time within 15%; a pull inside the detection window goes unnoticed; a
# pull after it starts a rebuild of used / rate, logged live as it ends;
# fsck is clean after. Then the shipped Infinidat scenarios on
# infinidat-6303 at --scale 10: the switch loss stalls reads 0.5 s, the
# drive pull schedules a 360 s rebuild.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd python3

t_setup
A=$ARRAYSIM
LOAD="$ARRAYSIM_SRC/tests/integration/ioload.py"
ctl() { "$A" ctl "$MNT" "$@"; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# within GOT WANT TOL: |got - want| <= tol * want
within() { python3 -c 'import sys; g,w,t=map(float,sys.argv[1:]); sys.exit(abs(g-w) > t*w)' "$@"; }

# start_load FILE SECONDS OUT: the load in the background (load_pid),
# returning once its first read is done.
start_load() {
	rm -f "$T/ready"
	python3 "$LOAD" "$1" "$2" --ready "$T/ready" >"$3" &
	T_PIDS+=($!)
	load_pid=$!
	for ((i = 0; i < 100; i++)); do
		[ -e "$T/ready" ] && return 0
		sleep 0.05
	done
	t_fail "the load did not start in 5 s"
}

cat >"$T/fa.ini" <<-'INI'
	[controllers]
	count = 3
	mode = active-active
	cores = 8
	failover_time = 10s
	recovery_time = 2s
	[frontend]
	links = 2
	speed = 10GbE
	multipath_timeout = 5s
	[tier flash]
	kind = ssd
	drives = 4
	capacity = 1G
	raid = raid5
	read_latency = 200us
	write_latency = 100us
	slots = 4
	fill = 50%
	rebuild_rate = 50M/s
	detection_window = 2s
INI
t_mount --profile "$T/fa.ini" --scale 10 --seed 3
python3 -c 'import os; fd=os.open("'"$MNT"'/f", os.O_WRONLY|os.O_CREAT, 0o644); os.write(fd, os.urandom(16<<20)); os.fsync(fd)'
sha=$(sha256sum <"$MNT/f")

t_log "scenario at time-scale 10: controller 0 at 0.1 s, back at 2 s; path 1 at 2.5 s, back at 4 s"
cat >"$T/pull.ini" <<-'INI'
	[scenario]
	name = pull
	[at 1s]
	inject.c = controller id=0
	[at 20s]
	clear = c
	[at 25s]
	inject.p = path id=1
	[at 40s]
	clear = p
INI
start_load "$MNT/f" 4.5 "$T/load.json"
ctl scenario run "$T/pull.ini" time-scale=10 >/dev/null
wait "$load_pid"
cat "$T/load.json" >&2
t_assert_eq "$(json "$T/load.json" 'd["errors"]')" "{}" "errors under the scenario"
# The two longest reads are the two stalls, in order: 1 s, then 0.5 s.
read -r l1 a1 l2 a2 <<<"$(json "$T/load.json" '" ".join("%f %f" % (x["lat_s"], x["at_s"]) for x in sorted(d["longest"][:2], key=lambda x: x["at_s"]))')"
t_log "stalls measured: $l1 s (model 1.0), $l2 s (model 0.5)"
within "$l1" 1.0 0.10 || t_fail "controller stall $l1 s, model 1.0 s"
within "$l2" 0.5 0.10 || t_fail "path stall $l2 s, model 0.5 s"
grep -q '"event":"stall","id":[0-9]*,"in_s":0.000000,"lasts_s":1.000000' "$STORE/events.jsonl" \
	|| t_fail "no 1 s stall in the event log"
grep -q '"event":"stall","id":[0-9]*,"in_s":0.000000,"lasts_s":0.500000' "$STORE/events.jsonl" \
	|| t_fail "no 0.5 s stall in the event log"
for ((i = 0; i < 100; i++)); do
	ctl scenario status | grep -q '^finished' && break
	sleep 0.05
done
t_assert_eq "$(ctl fault list)" "" "faults left after the scenario"

t_log "two of three controllers: shut down, EIO; one back: online"
id0=$(ctl fault inject controller id=0)
id1=$(ctl fault inject controller id=1)
grep -q '"event":"shutdown","id":'"$id1" "$STORE/events.jsonl" || t_fail "no shutdown event"
if dd if="$MNT/f" of=/dev/null bs=4k count=1 2>"$T/dd.err"; then
	t_fail "read succeeded on a shut-down array"
fi
grep -q 'Input/output error' "$T/dd.err" || t_fail "not EIO: $(cat "$T/dd.err")"
ctl fault clear "$id1"
grep -q '"event":"online","id":'"$id1" "$STORE/events.jsonl" || t_fail "no online event"
dd if="$MNT/f" of=/dev/null bs=4k count=1 2>/dev/null || t_fail "read failed after the restore"
ctl fault clear "$id0"

t_log "errors: no such controller, no such tier, bad factor: one line each"
for bad in "controller id=3" "drive tier=cache id=0" "drive id=4" "drive-slow id=0 factor=0.5"; do
	rc=0
	ctl fault inject $bad >/dev/null 2>"$T/err" || rc=$?
	[ "$rc" -ne 0 ] || t_fail "fault inject $bad succeeded"
	[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q '^arraysim: ' "$T/err" \
		|| t_fail "fault inject $bad: $(cat "$T/err")"
done

# 500x makes the drive's 20 us (200 us at --scale 10) 10 ms, so the
# host's own share of a read (tens of us, more under a sanitizer) is
# small beside what the model adds.
t_log "fail-slow: drive 0 (offset 0 of raid5) at 500x: +9.98 ms a read (200 us x 499 / 10)"
python3 "$LOAD" "$MNT/f" 1 --offset 0 >"$T/base.json"
sid=$(ctl fault inject drive-slow id=0 factor=500)
python3 "$LOAD" "$MNT/f" 1 --offset 0 >"$T/slow.json"
ctl fault clear "$sid"
base=$(json "$T/base.json" 'd["mean_s"]')
slow=$(json "$T/slow.json" 'd["mean_s"]')
added=$(python3 -c "print($slow - $base)")
t_log "mean read: $base s, slow $slow s: added $added s (model 0.00998)"
within "$added" 0.00998 0.15 || t_fail "fail-slow added $added s, model 0.00998 s"

t_log "a pull back inside the detection window (0.2 s): unnoticed"
did=$(ctl fault inject drive id=1)
ctl fault clear "$did"
grep -q '"event":"unnoticed","id":'"$did" "$STORE/events.jsonl" || t_fail "quick pull was noticed"

t_log "a pull left in: rebuild of 512 MiB at 500 MiB/s (50M/s x 10) = 1.024 s, noticed 0.2 s later"
did=$(ctl fault inject drive id=2)
line=$(grep '"event":"rebuild","id":'"$did" "$STORE/events.jsonl") || t_fail "no rebuild event"
lasts=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["lasts_s"])' "$line")
within "$lasts" 1.024 0.01 || t_fail "rebuild lasts $lasts s, want 1.024"
python3 "$LOAD" "$MNT/f" 1.5 >"$T/rebuild.json"
t_assert_eq "$(json "$T/rebuild.json" 'd["errors"]')" "{}" "errors during the rebuild"
ctl fault clear "$did" # back after it was noticed: the rebuild goes on
t_wait_event rebuild_end "$did" 5
t0=$(t_event_t inject "$did")
t1=$(t_event_t rebuild_end "$did")
took=$(python3 -c "print($t1 - $t0)")
t_log "rebuild_end logged $took s after the pull (model 0.2 + 1.024)"
within "$took" 1.224 0.02 || t_fail "rebuild_end $took s after the pull, model 1.224"
t_assert_eq "$(grep -c '"event":"rebuild_progress","id":'"$did"',' "$STORE/events.jsonl")" 9 "rebuild_progress events"
[ -n "$(t_event_t noticed "$did")" ] || t_fail "no noticed event"
# Live transitions of the earlier faults: each stall's end, the quick
# pull never noticed.
t_assert_eq "$(grep -c '"event":"stall_end"' "$STORE/events.jsonl")" 3 "stall_end events (controller, path, controller)"
[ -z "$(t_event_t noticed "$(($did - 1))")" ] || t_fail "the quick pull was noticed"

t_assert_eq "$(sha256sum <"$MNT/f")" "$sha" "contents after the faults"
t_umount
t_fsck

t_log "shipped scenarios on infinidat-6303 at --scale 10: the switch loss (time-scale 100) stalls 0.5 s"
t_mount --profile infinidat-6303 --scale 10 --seed 3
python3 -c 'import os; fd=os.open("'"$MNT"'/g", os.O_WRONLY|os.O_CREAT, 0o644); os.write(fd, os.urandom(8<<20)); os.fsync(fd)'
start_load "$MNT/g" 2.5 "$T/switch.json"
n0=$(wc -l <"$STORE/events.jsonl")
ctl scenario run "$ARRAYSIM_SRC/faults/scenarios/infinidat-switch-loss.ini" time-scale=100 >/dev/null
wait "$load_pid"
t_assert_eq "$(json "$T/switch.json" 'd["errors"]')" "{}" "errors in the switch loss"
l=$(json "$T/switch.json" 'd["max_s"]')
t_log "switch loss: longest read $l s (model 0.5)"
within "$l" 0.5 0.10 || t_fail "switch loss stall $l s, model 0.5 s"
# Four paths at once: four stall events, all ending together (one stall).
t_assert_eq "$(tail -n +$((n0 + 1)) "$STORE/events.jsonl" | grep -c '"event":"stall",')" 4 "stall events, one per path lost"
t_assert_eq "$(tail -n +$((n0 + 1)) "$STORE/events.jsonl" | grep -c '"event":"stall_end"')" 1 "stall_end events (the four are one stall)"
t_log "the drive pull: rebuild of 70% of 6 TB in 1 h / 10"
ctl scenario run "$ARRAYSIM_SRC/faults/scenarios/infinidat-drive-pull.ini" time-scale=100 >/dev/null
for ((i = 0; i < 100; i++)); do
	grep -q '"event":"rebuild",.*"bytes":4617948836659' "$STORE/events.jsonl" && break
	sleep 0.05
done
line=$(grep '"event":"rebuild",.*"bytes":4617948836659' "$STORE/events.jsonl") || t_fail "no rebuild event"
lasts=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["lasts_s"])' "$line")
within "$lasts" 360 0.01 || t_fail "infinidat rebuild lasts $lasts s, want 360"
ctl scenario stop
ctl fault clear all
t_umount
t_fsck
