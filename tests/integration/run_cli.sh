#!/usr/bin/env bash
# run_cli: `arraysim run` as a CI step (issue 18, point 3). An expectation
# that holds exits 0; one made false by a bit-rot rule (a rotted block read
# back: checksum_errors 1) exits 1; the command's own status passes
# through; a TERM to run reaches the command and run still unmounts; the
# scenario starts with the command and --report writes the page; what run
# made in TMPDIR is gone after each; bad --expect is one line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
export TMPDIR=$T/tmp
mkdir "$TMPDIR"
# left: nothing of run's is left in TMPDIR nor mounted.
left() {
	[ -z "$(ls -A "$TMPDIR")" ] || t_fail "$1: left in TMPDIR: $(ls -A "$TMPDIR")"
	grep -q "$TMPDIR" /proc/self/mountinfo && t_fail "$1: a mount is left under $TMPDIR"
	return 0
}
run_rc() {
	local rc=0
	"$ARRAYSIM" run "$@" >"$T/out" 2>"$T/err" || rc=$?
	echo "$rc"
}

# fio expands ${ARRAYSIM_MNT} from the environment run sets.
cat >"$T/job.fio" <<'FIO'
[w]
directory=${ARRAYSIM_MNT}
rw=randrw
bs=4k
size=8M
ioengine=psync
verify=crc32c
FIO
rc=$(run_rc --profile allflash --expect 'lost_reads == 0' --expect 'checksum_errors==0' -- \
	fio --output=/dev/null --aux-path="$T" "$T/job.fio")
t_assert_eq "$rc" 0 "run with a fio job, expectations that hold ($(cat "$T/err"))"
grep -q 'expect lost_reads (0): holds' "$T/err" || t_fail "no verdict line: $(cat "$T/err")"
left "fio run"

rot='dd if=/dev/urandom of="$ARRAYSIM_MNT/x" bs=64k count=1 conv=fsync status=none &&
	"$ARRAYSIM" ctl "$ARRAYSIM_MNT" fault inject bitrot path=/x offset=4096 >/dev/null &&
	! cat "$ARRAYSIM_MNT/x" >/dev/null 2>&1'
rc=$(run_rc --expect 'checksum_errors == 0' -- sh -c "$rot")
t_assert_eq "$rc" 1 "run whose expectation a bit-rot rule made false ($(cat "$T/err"))"
grep -q 'expect checksum_errors (1): FALSE' "$T/err" || t_fail "verdict: $(cat "$T/err")"
left "bit-rot run"

rc=$(run_rc --expect 'lost_reads == 0' -- sh -c 'exit 7')
t_assert_eq "$rc" 7 "the command's exit status"
left "exit 7"

# TERM to run: the command gets it (143), the array is unmounted.
"$ARRAYSIM" run --store "$STORE" --mountpoint "$MNT" -- sleep 60 2>"$T/err" &
pid=$!
T_PIDS=("$pid")
for ((i = 0; i < 200; i++)); do
	t_is_mounted && pgrep -f -x 'sleep 60' -P "$pid" >/dev/null && break
	sleep 0.05
done
t_is_mounted || t_fail "run did not mount $MNT within 10 s"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
T_PIDS=()
t_assert_eq "$rc" 143 "run's status after a TERM"
t_is_mounted && t_fail "run left $MNT mounted after a TERM"

scen=$ARRAYSIM_SRC/faults/scenarios/infinidat-controller-pull.ini
[ -f "$scen" ] || t_fail "no $scen"
rc=$(run_rc --profile infinidat-6303 --scale 0.05 --scenario "$scen" --report "$T/r.html" \
	--expect 'lost_reads==0' -- sh -c 'dd if=/dev/zero of="$ARRAYSIM_MNT/z" bs=64k count=16 status=none')
t_assert_eq "$rc" 0 "run with a scenario and a report ($(cat "$T/err"))"
[ -s "$T/r.html" ] || t_fail "--report wrote nothing"
left "scenario run"

for bad in 'lost_reads' 'lost_reads = 0' '== 0' 'lost_reads == x' 'nope == 0'; do
	rc=$(run_rc --expect "$bad" -- true)
	t_assert_eq "$rc" 2 "--expect '$bad'"
	[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q '^arraysim: run: ' "$T/err" || t_fail "--expect '$bad': $(cat "$T/err")"
	left "--expect '$bad'"
done
t_log "ok"
