#!/usr/bin/env bash
# replication_infinidat: the Infinidat evaluation's replication resiliency
# test end to end (issue 17), as the shipped scenario
# infinidat-replication-controller-pull.ini runs it: fill a volume,
# replicate it, start the 8 KiB 50/50 random job, enable replication at
# 5 min, pull 1 of the 3 controllers at 10 min for 10 min, stop
# replication at 46 min. Then the report shows the lag chart with the
# replication events (the pause while replication is off, the lag, the
# resume, the catch-up) and the controller pull shaded on it, and the
# replica is a clean copy of the source as of its last batch.
#
# The stated scale: infinidat-6303 at --scale 120 and the scenario at
# time-scale=120, so the array's clock and the scenario's run at the same
# speed (its stalls and recovery 120 times shorter) and 46 minutes take
# 23 s. The job has the evaluation's shape (8 KiB, random, 50/50) but not
# its 150K IOPS x 120: it offers 2 x 250 IOPS, a load this 2-vCPU host
# keeps pace with, so the array runs lightly loaded and what is rehearsed
# is the sequence, not the evaluation's saturation. --rpo 0.5s is 60 s of
# the scenario's time; a lag past 2 rpo (1 s) is an event, so the 2.5 s
# with replication off make one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replication_lib.sh"
t_require_cmd fio

A=$ARRAYSIM
ctl() { "$A" ctl "$MNT" "$@"; }
TS=120

r_setup
t_mount --profile infinidat-6303 --scale $TS --seed 3 --replicate-to "$REPLICA" --rpo 0.5s
t_log "fill the volume and replicate it"
t_fio --name=fill --directory="$MNT" --filename=vol --rw=write --bs=1m --size=32M \
	--ioengine=psync --end_fsync=1
ctl replication sync
t_assert_eq "$(r_json backlog_txns)" "0" "backlog after the initial sync"

t_log "the job, and the scenario at time-scale $TS (46 minutes in 23 s)"
fio --name=job --directory="$MNT" --filename=vol --rw=randrw --rwmixread=50 \
	--bs=8k --size=32M --ioengine=psync --numjobs=2 --rate_iops=125,125 \
	--fsync=32 --time_based --runtime=20 --output="$T/job.out" &
FIO_PID=$!
T_PIDS+=("$FIO_PID")
ctl scenario run "$ARRAYSIM_SRC/faults/scenarios/infinidat-replication-controller-pull.ini" \
	time-scale=$TS >/dev/null
wait "$FIO_PID" || { cat "$T/job.out" >&2; t_fail "the job's fio exited $?"; }
# The job ends at 20 s, before the scenario's stop at 23 s: one more batch
# makes the replica the source's last state, which the stop keeps.
ctl replication sync
r_sums "$MNT" "$T/source.sums"
t_scenario_wait 30 | grep -q '^finished infinidat-replication-controller-pull step 5/5' \
	|| t_fail "scenario: $(ctl scenario status)"
t_assert_eq "$(r_json state)" "stopped" "replication after the scenario"
t_umount

t_log "the events: replication off, lag, on, caught up; the controller pulled and back"
read -r inj clr < <(python3 - "$STORE/events.jsonl" <<-'PY'
	import json, sys
	ev = [json.loads(l) for l in open(sys.argv[1])]
	# From the scenario's pause on (a slow host, ASan, can lag past 2 rpo
	# during the fill already: an episode of its own before it).
	r = [e for e in ev if e["event"].startswith("replication_")]
	r = r[next(i for i, e in enumerate(r) if e["event"] == "replication_paused"
	           and e["why"] == "pause"):]
	names = [e["event"] for e in r]
	print(names, file=sys.stderr)
	want = ["replication_paused", "replication_lag", "replication_resumed",
	        "replication_caught_up"]
	assert names[:4] == want, names
	assert r[2]["why"] == "pause", r[:3]
	inj = next(e for e in ev if e["event"] == "inject"
	               and e["rule"].split()[0] == "controller")
	clr = next(e for e in ev if e["event"] == "clear" and e["id"] == inj["id"])
	# time-scale 120: resume at 2.5 s, the pull at 5 s, back at 10 s
	assert r[2]["t"] < inj["t"] < clr["t"], (r[2], inj, clr)
	assert abs((clr["t"] - inj["t"]) - 5.0) < 0.5, (inj, clr)
	print(inj["t"], clr["t"])
PY
) || t_fail "events (events.jsonl above)"

t_log "the report: the lag chart, the catch-up, the controller pull shaded"
"$A" report "$STORE" --out "$T/page.html" >/dev/null
python3 "$ARRAYSIM_SRC/tests/integration/report_check.py" replication-scenario \
	"$T/page.html" "$inj" "$clr" || t_fail "report page"

t_log "the replica: clean, and the source's files as of its last batch"
r_fsck "$REPLICA"
r_mount_replica
r_sums "$MNT2" "$T/replica.sums"
r_umount_replica
cmp -s "$T/source.sums" "$T/replica.sums" || t_fail "the replica differs from the source"
echo "PASS"
