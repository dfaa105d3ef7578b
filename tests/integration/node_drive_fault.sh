#!/usr/bin/env bash
# node_drive_fault: a drive fault on a profile of several nodes, through
# FUSE. xtremio-xbrick4 (4 bricks of 25 SSDs, raid6 inside each brick) at
# --scale 0.1, in a copy with small drives (capacity 32M: 22.4 MB to
# rebuild at 70% fill, about 2.7 s at a tenth of the rebuild rate) and the
# pull noticed at once (detection_window 0; the real 30 s would be 5
# minutes at this scale). Under a fio write-then-verify load, drive 30
# (brick 1's drive 5, by the array-wide id the snapshot prints) is pulled
# and, once the rebuild runs, returned. Checked: the pull is accepted (not
# "not modelled"), the events log the rebuild and its end, the samples
# show one drive rebuilding then none, `stats --array` shows brick 1's
# other drives doing the rebuild's work (each busier than any drive of
# the other bricks), fio verifies every byte, nothing is lost, fsck is
# clean after. An id past the 100 drives is
# refused with one line; controller 2 (brick 1's first) is taken with 7
# left serving; path 5 (brick 1's port 1) is lost with 15 left serving,
# path 16 of 16 refused with one line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio python3

t_setup
A=$ARRAYSIM
ctl() { "$A" ctl "$MNT" "$@"; }

"$A" profile show xtremio-xbrick4 |
	sed -e 's/^capacity = 400G/capacity = 32M/' \
		-e 's/^detection_window = 30s/detection_window = 0/' >"$T/xb.ini"
grep -q '^capacity = 32M' "$T/xb.ini" || t_fail "the profile copy did not take"
t_mount --profile "$T/xb.ini" --scale 0.1 --seed 1

if out=$(ctl fault inject drive id=100 2>&1); then
	t_fail "drive id=100 of 100 accepted: $out"
fi
t_log "refused: $out"
[[ "$out" == *"no drive 100 in tier flash: it has 100"* ]] ||
	t_fail "unexpected refusal: $out"

cat >"$T/load.fio" <<-JOB
	[global]
	directory=$MNT
	size=24M
	fallocate=none
	verify=crc32c
	do_verify=1
	verify_fatal=1
	randrepeat=1
	ioengine=libaio
	direct=1
	iodepth=4
	[rand4k]
	rw=randwrite
	bs=4k
	[seq64k]
	rw=write
	bs=64k
JOB
fio --output="$T/fio.out" "$T/load.fio" &
fio_pid=$!
T_PIDS+=("$fio_pid")
# The pull lands under load: once fio's writes reach the array.
for ((i = 0; i < 100; i++)); do
	[ "$(t_stat_json blocks_written)" -gt 0 ] && break
	sleep 0.05
done

did=$(ctl fault inject drive id=30) || t_fail "drive 30 refused"
t_log "pulled drive 30 (fault $did)"
for ((i = 0; i < 100; i++)); do
	grep -q '"event":"rebuild"' "$STORE/events.jsonl" && break
	sleep 0.05
done
grep -q '"event":"rebuild"' "$STORE/events.jsonl" || t_fail "no rebuild event"
t_wait_event rebuild_progress "$did" 20 # 10% rebuilt: mid-rebuild
ctl fault clear "$did"
t_log "returned drive 30 while rebuilding"

wait "$fio_pid" || { cat "$T/fio.out" >&2; t_fail "fio failed (verify?)"; }
for ((i = 0; i < 200; i++)); do
	grep -q '"event":"rebuild_end"' "$STORE/events.jsonl" && break
	sleep 0.1
done
grep '"event":"rebuild' "$STORE/events.jsonl" >&2 || true
grep -q '"event":"rebuild_end"' "$STORE/events.jsonl" || t_fail "no rebuild_end event"
grep -q '"event":"data_loss"' "$STORE/events.jsonl" && t_fail "data lost"
t_wait_sample 's["drives_rebuilding"] == 0 and s["rebuild_left_bytes"] == 0'
"$A" stats --array --json "$MNT" >"$T/array.json"
python3 - "$T/array.json" "$STORE/samples.jsonl" <<-'PY' || t_fail "the rebuild is not where it belongs (above)"
	import json, sys
	res = json.load(open(sys.argv[1]))["resources"]
	mb = lambda i: res["flash%d" % i]["mbps"]
	brick = [mb(i) for i in range(25, 50) if i != 30]
	rest = [mb(i) for i in range(100) if i // 25 != 1]
	print("# MB/s per drive: brick 1 (rebuilding) %.2f to %.2f, drive 30 %.2f,"
	      " other bricks %.2f to %.2f" % (min(brick), max(brick), mb(30),
	      min(rest), max(rest)), file=sys.stderr)
	# The rebuild reads 23 MB per MB rebuilt on brick 1 alone.
	assert min(brick) > 2 * max(rest), "brick 1 not the busiest"
	rows = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
	rows = [r for r in rows if "drives_rebuilding" in r]
	during = [r for r in rows if r["drives_rebuilding"]]
	print("# samples rebuilding: %d, left %s" % (len(during),
	      [r["rebuild_left_bytes"] for r in during]), file=sys.stderr)
	assert during, "no sample shows the rebuild"
	assert all(r["drives_rebuilding"] == 1 for r in during)
	assert rows[-1]["drives_rebuilding"] == 0 and rows[-1]["rebuild_left_bytes"] == 0
	PY

# Controllers by array-wide id too (4 bricks of 2): brick 1's first is
# taken, its partner serves on (7 of 8); paths likewise (4 bricks of 4).
cid=$(ctl fault inject controller id=2) || t_fail "controller 2 refused"
grep -q '"event":"serving","id":'"$cid"',"serving":7' "$STORE/events.jsonl" ||
	t_fail "no serving event with 7 controllers left"
ctl fault clear "$cid"
pid=$(ctl fault inject path id=5) || t_fail "path 5 refused"
grep -q '"event":"serving","id":'"$pid"',"serving":15' "$STORE/events.jsonl" ||
	t_fail "no serving event with 15 paths left"
ctl fault clear "$pid"
if out=$(ctl fault inject path id=16 2>&1); then
	t_fail "path id=16 of 16 accepted: $out"
fi
[[ "$out" == *"no path 16: profile "*" has 16 (0 to 15)"* ]] ||
	t_fail "unexpected refusal: $out"
t_umount
t_fsck
t_log "ok"
