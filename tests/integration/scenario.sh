#!/usr/bin/env bash
# scenario: fault timelines run by the daemon. A scenario at time-scale 10
# injects a write error, clears it and cuts the power; the event log has
# every step at its scaled time (never early; late by less than 250 ms, a
# loaded 2-core machine's scheduling delay with margin), the error
# hit only while active, and the remount shows the last synced state. A
# long scenario stops on request with nothing injected. The shipped
# scenarios parse. A bad file: one line naming FILE:LINE, exit 2.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
t_mount --sync-interval 0 --seed 5 --power-loss
A=$ARRAYSIM
ctl() { "$A" ctl "$MNT" "$@"; }

# wait_finished: poll the scenario's status (bounded) until it ends.
wait_finished() {
	local i
	for ((i = 0; i < 200; i++)); do
		ctl scenario status | grep -q '^finished' && return 0
		sleep 0.05
	done
	t_fail "scenario still running after 10 s: $(ctl scenario status)"
}

mkdir "$MNT/s"
python3 -c 'import os; fd=os.open("'"$MNT"'/s/kept", os.O_WRONLY|os.O_CREAT, 0o644); os.write(fd, b"k"*9000); os.fsync(fd)'
cat >"$T/cut.ini" <<-'INI'
	[scenario]
	name = err-then-cut
	[at 1s]
	inject.e = error op=write path=/s/*
	[at 2s]
	clear = e
	[at 3s]
	inject = power-loss
INI
ctl scenario run "$T/cut.ini" time-scale=10 >"$T/run.out"
grep -qx 'running err-then-cut: 3 steps over 0.300 s' "$T/run.out" || t_fail "run: $(cat "$T/run.out")"
wait_finished
ctl scenario status | grep -q '^finished err-then-cut step 3/3' || t_fail "status: $(ctl scenario status)"
python3 - "$STORE/events.jsonl" <<-'PY' || t_fail "scenario steps not at their scaled times (events.jsonl above)"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
start = [e for e in ev if e["event"] == "scenario_start"][-1]
steps = [e for e in ev if e["event"] == "scenario_step"]
assert [s["action"] for s in steps] == ["inject", "clear", "inject"], steps
for s, want in zip(steps, (0.1, 0.2, 0.3)):
    late = s["t"] - start["t"] - want
    print(f"step at {want:.1f} s: {late * 1000:.1f} ms late")
    assert 0 <= late < 0.25, (s, want, late)
    assert s["error"] == "", s
assert any(e["event"] == "scenario_end" for e in ev)
PY
ctl fault list | grep -q . && t_fail "faults left active: $(ctl fault list)"
if echo x >"$MNT/s/after" 2>/dev/null; then t_fail "a write succeeded after the scenario cut the power"; fi
t_remount --sync-interval 0 --seed 5 --power-loss
cmp <(python3 -c 'import sys; sys.stdout.write("k"*9000)') "$MNT/s/kept" || t_fail "s/kept changed"

t_log "stop a long scenario before its first step"
printf '[at 1h]\ninject = error\n' >"$T/long.ini"
ctl scenario run "$T/long.ini" >/dev/null
ctl scenario status | grep -q '^running' || t_fail "status: $(ctl scenario status)"
rc=0
ctl scenario run "$T/long.ini" >/dev/null 2>&1 || rc=$?
t_assert_eq "$rc" "2" "a second scenario while one runs"
ctl scenario stop
ctl scenario status | grep -q '^finished .* step 0/1' || t_fail "after stop: $(ctl scenario status)"
t_assert_eq "$(ctl fault list)" "" "faults after stopping before the first step"

# refused FILE WHY: scenario FILE is refused on this mount, in one line
# saying WHY (a grep pattern), before anything runs.
refused() {
	local rc=0
	ctl scenario run "$1" time-scale=1000000 >/dev/null 2>"$T/err" || rc=$?
	t_assert_eq "$rc" "2" "exit status for $1 on this mount"
	grep -q "^arraysim: ctl: $1: $2" "$T/err" || t_fail "$1: $(cat "$T/err")"
}

t_log "shipped scenarios parse; a bad one is refused with FILE:LINE"
for f in "$ARRAYSIM_SRC"/faults/scenarios/*.ini; do
	case "$f" in
	*/infinidat-replication*)
		# Replication steps: refused on a mount without --replicate-to
		# (replication_fault.sh runs them on a replicating mount).
		refused "$f" "its replication steps need a mount with --replicate-to DEST"
		;;
	*/infinidat-*)
		# Array faults: refused on this null mount, in one line
		# (tests/integration/array_faults.sh runs them on a timed one).
		refused "$f" ".* is an array fault: it needs a timed array profile"
		;;
	*)
		ctl scenario run "$f" time-scale=1000000 >/dev/null || t_fail "$f does not run"
		ctl scenario stop
		;;
	esac
done
ctl fault clear all
printf '[at 1s]\ninject = error\n[at 2s]\ninject = melt\n' >"$T/bad.ini"
rc=0
ctl scenario run "$T/bad.ini" >/dev/null 2>"$T/err" || rc=$?
t_assert_eq "$rc" "2" "exit status for a bad scenario"
t_assert_eq "$(wc -l <"$T/err")" "1" "lines of error"
grep -q "^arraysim: ctl: $T/bad.ini:4: inject: unknown fault kind 'melt'" "$T/err" || t_fail "error: $(cat "$T/err")"
t_umount
"$A" fsck --store "$STORE" >/dev/null || t_fail "fsck after the scenarios"
echo "PASS"
