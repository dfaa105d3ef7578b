#!/usr/bin/env bash
# replication_fault: the link to the replica goes down under a fio write
# load, then comes back. While down no batch ships: the lag (seconds and
# bytes) and the backlog grow, `replication sync` is refused in one line,
# and the replica stays the state of the last batch: a copy of it is clean
# (fsck) and mounted holds exactly the files as of that batch. Up again,
# the next batch drains the backlog: after `replication sync` the replica
# holds the source's files. The event log says replication_paused (why:
# the fault), replication_lag once, replication_resumed and
# replication_caught_up; stats --json, /metrics, top and the samples carry
# the figures; the report has the lag chart with the events marked. A
# scenario's replication steps, and the shipped infinidat-replication.ini,
# run on a replicating mount.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replication_lib.sh"
. "$(dirname "$0")/prom_lib.sh"
t_require_cmd fio
t_require_cmd curl

A=$ARRAYSIM
ctl() { "$A" ctl "$MNT" "$@"; }
metrics() { curl -sf "http://127.0.0.1:$MPORT/metrics"; }
RPO=0.5 # lag past 2 x rpo = 1 s is a replication_lag event

r_setup
MPORT=$(free_port)
t_mount --replicate-to "$REPLICA" --rpo ${RPO}s --metrics 127.0.0.1:$MPORT
t_fio --name=before --directory="$MNT" --rw=write --bs=64k --size=8M \
	--ioengine=psync --end_fsync=1
ctl replication sync
r_sums "$MNT" "$T/before.sums"

t_log "link down, then 3 s of writes"
id=$(ctl fault inject replication-link)
t_fio --name=load --directory="$MNT" --rw=randwrite --bs=4k --size=8M \
	--ioengine=psync --fsync=16 --time_based --runtime=3 --rate=2m \
	--numjobs=2
lag1=$(r_json lag_s); back1=$(r_json backlog_txns); bytes1=$(r_json lag_bytes)
t_fio --name=more --directory="$MNT" --rw=write --bs=64k --size=2M \
	--ioengine=psync --end_fsync=1
lag2=$(r_json lag_s); back2=$(r_json backlog_txns); bytes2=$(r_json lag_bytes)
t_log "while down: lag $lag1 -> $lag2 s, $bytes1 -> $bytes2 bytes, backlog $back1 -> $back2"
python3 -c "import sys; a=list(map(float, sys.argv[1:])); sys.exit(not (a[0] > 2 * $RPO and a[1] > a[0] and a[3] > a[2] > 0 and a[5] > a[4] > 0))" \
	"$lag1" "$lag2" "$back1" "$back2" "$bytes1" "$bytes2" \
	|| t_fail "lag and backlog did not grow while the link was down"
t_assert_eq "$(r_json held_by)" "replication-link" "held_by while down"
t_assert_eq "$(r_json state)" "running" "state while down (no error state)"
rc=0
ctl replication sync 2>"$T/err" || rc=$?
t_assert_eq "$rc" "2" "exit status of replication sync while down"
t_assert_eq "$(wc -l <"$T/err")" "1" "lines of the refusal"
grep -q "replication-link fault holds batches back (fault $id" "$T/err" || t_fail "refusal: $(cat "$T/err")"
metrics >"$T/metrics.down"
grep -q '^arraysim_replication_up 0$' "$T/metrics.down" || t_fail "replication_up while down: $(grep replication_up "$T/metrics.down")"
lagm=$(awk '$1 == "arraysim_replication_lag_seconds" {print $2}' "$T/metrics.down")
python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 2 * $RPO)" "${lagm:-0}" || t_fail "lag_seconds in /metrics: '$lagm'"
for m in lag_bytes backlog_transactions batches_total wire_bytes_total saved_bytes_total; do
	grep -q "^arraysim_replication_$m [0-9]" "$T/metrics.down" || t_fail "/metrics lacks arraysim_replication_$m"
done
"$A" top --count 1 "$MNT" >"$T/top"
grep -q '^replication running, held by replication-link  lag [0-9.]* s' "$T/top" || t_fail "top: $(cat "$T/top")"

t_log "the replica while down: a copy is clean and is the state before the fault"
cp -a "$REPLICA" "$T/rcopy"
rm -f "$T/rcopy/lock"
"$A" fsck --store "$T/rcopy" >"$T/fsck" 2>&1 || t_fail "fsck of the replica's copy: $(cat "$T/fsck")"
"$A" mount --store "$T/rcopy" "$MNT2" || t_fail "mount of the replica's copy"
r_sums "$MNT2" "$T/copy.sums"
cpid=$(head -n 1 "$T/rcopy/lock" | tr -cd '0-9')
"$A" umount "$MNT2" || t_fail "umount of the replica's copy"
t_wait_pid_exit "$cpid" 30 || t_fail "the copy's daemon $cpid still running"
diff "$T/before.sums" "$T/copy.sums" >&2 || t_fail "the replica while down is not the state of the last batch"

t_log "link up: the next batch drains the backlog"
ctl fault clear "$id"
ctl replication sync
t_assert_eq "$(r_json backlog_txns)" "0" "backlog after the sync"
t_assert_eq "$(r_json held_by)" "" "held_by after the clear"
grep -q '^arraysim_replication_up 1$' <(metrics) || t_fail "replication_up after the clear"
r_sums "$MNT" "$T/after.sums"
cmp -s "$T/before.sums" "$T/after.sums" && t_fail "the load changed nothing"

t_log "a scenario pauses and resumes replication"
cat >"$T/pr.ini" <<-'INI'
	[at 0s]
	replication = pause
	[at 1s]
	replication = resume
INI
ctl scenario run "$T/pr.ini" time-scale=10 >/dev/null
t_scenario_wait 10 | grep -q '^finished' || t_fail "scenario: $(ctl scenario status)"
t_assert_eq "$(r_json state)" "running" "state after the scenario's resume"
t_log "the shipped infinidat-replication.ini runs (its 20 minutes in 1.2 ms)"
ctl scenario run "$ARRAYSIM_SRC/faults/scenarios/infinidat-replication.ini" time-scale=1000000 >/dev/null
t_scenario_wait 10 | grep -q '^finished infinidat-replication step 3/3' || t_fail "scenario: $(ctl scenario status)"
t_assert_eq "$(r_json state)" "stopped" "state after infinidat-replication.ini"
t_umount

t_log "events: paused, lag once, resumed, caught up"
python3 - "$STORE/events.jsonl" "$id" <<-'PY' || t_fail "replication events (events.jsonl above)"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
fid = int(sys.argv[2])
inj = next(e for e in ev if e["event"] == "inject" and e["id"] == fid)
clr = next(e for e in ev if e["event"] == "clear" and e["id"] == fid)
r = [e for e in ev if e["event"].startswith("replication_")]
first = next(i for i, e in enumerate(r) if e["event"] == "replication_paused"
             and e["why"] == "replication-link")
link = [e for e in r[first:] if e["t"] <= clr["t"] + 1.5]
names = [e["event"] for e in link]
print(names, file=sys.stderr)
assert names[0] == "replication_paused" and link[0]["why"] == "replication-link", link
assert link[0]["fault_id"] == fid and link[0]["t"] - inj["t"] < 0.5, link[0]
assert names.count("replication_lag") == 1, names
lag = next(e for e in link if e["event"] == "replication_lag")
assert lag["lag_s"] >= lag["threshold_s"] == 1.0, lag  # printed to the ms
res = next(e for e in link if e["event"] == "replication_resumed")
assert res["why"] == "replication-link" and res["t"] >= clr["t"], res
cu = next(e for e in link if e["event"] == "replication_caught_up")
assert cu["t"] >= res["t"] and cu["backlog_txns"] == 0, cu
assert lag["t"] < res["t"], (lag, res)
steps = [e for e in ev if e["event"] == "scenario_step"]
assert [(s["action"], s["verb"], s["error"]) for s in steps] == \
    [("replication", v, "") for v in ("pause", "resume", "pause", "resume",
                                      "stop")], steps
whys = [e["why"] for e in r if e["event"] == "replication_paused"]
assert whys == ["replication-link", "pause", "pause"], whys
PY
python3 - "$STORE/samples.jsonl" <<-'PY' || t_fail "samples lack the replication figures"
import json, sys
s = [json.loads(l) for l in open(sys.argv[1])]
held = [x for x in s if x.get("repl_held_by") == "replication-link"]
assert held and max(x["repl_lag_s"] for x in held) > 1, held
assert any(x["repl_wire_bytes_per_s"] > 0 for x in s)
assert all("repl_backlog_txns" in x and "repl_saved_bytes" in x for x in s)
PY

t_log "the replica after the catch-up holds the source's files"
r_fsck "$REPLICA"
r_mount_replica
r_sums "$MNT2" "$T/replica.sums"
r_umount_replica
diff "$T/after.sums" "$T/replica.sums" >&2 || t_fail "the replica differs from the source after the sync"

t_log "the report: the lag chart, the events marked"
"$A" report "$STORE" --out "$T/page.html" >/dev/null
python3 "$ARRAYSIM_SRC/tests/integration/report_check.py" replication "$T/page.html" \
	|| t_fail "report page"
echo "PASS"
