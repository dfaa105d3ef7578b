#!/usr/bin/env bash
# replication_sync: --replication-mode sync. In the model, each write gains
# the replication link's round trip, its payload's transfer and the
# replica's ack: fio QD1 4 KiB random writes, once async and once sync,
# and the mean completion latency differs by what the daemon says a sync
# 4 KiB write adds (`replication status`: sync_write_4k_us), within 10%.
# For the data, an fsync returns once the replica has what it covers: a
# copy of the replica taken right after has the file; under a
# replication-link fault the fsync fails (EIO) instead of claiming it,
# and succeeds once the fault is cleared.
#
# Why these numbers: allflash 100 km from its replica (a metro pair at
# the distance sync replication is usually held to) has a 1.05 ms round
# trip at scale 1, but its own 4 KiB write (about 140 us) is below what a
# shared host takes per FUSE write, and a write the host finishes late
# hides the model's time. At --scale 0.1 every duration is ten times
# longer: the write about 1.4 ms, which the host keeps pace with, and
# the sync addition about 11.5 ms, far above the host's jitter (the
# host's lateness grows a little with the longer waits: 3 to 6% of the
# addition at 50 km, so 100 km keeps it well inside the 10%). No batch runs
# during the fio runs (--rpo 60s, no background sync), so both runs pay
# the same host costs and differ by the model alone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replication_lib.sh"
t_require_cmd fio

A=$ARRAYSIM
r_setup

t_log "refusals"
rc=0
"$A" mount --store "$STORE" --replication-mode sync "$MNT" 2>"$T/err" || rc=$?
[ "$rc" -ne 0 ] || t_fail "--replication-mode without --replicate-to was accepted"
grep -qx "arraysim: mount: --replication-mode needs --replicate-to" "$T/err" \
	|| t_fail "refusal: $(cat "$T/err")"
rc=0
"$A" mount --store "$STORE" --replicate-to "$REPLICA" --replication-mode semi \
	"$MNT" 2>"$T/err" || rc=$?
[ "$rc" -ne 0 ] || t_fail "--replication-mode semi was accepted"
grep -qx "arraysim: mount: --replication-mode: 'semi' is not sync or async" \
	"$T/err" || t_fail "refusal: $(cat "$T/err")"

# allflash, its replica 100 km away: the round trip comes from the distance.
"$A" profile show allflash | sed 's/^distance_km = .*/distance_km = 100/' >"$T/metro.ini"
"$A" profile show "$T/metro.ini" >"$T/shown"
grep -qx "; replication round trip 1050.0 us, .*" "$T/shown" \
	|| t_fail "profile show: $(grep round "$T/shown")"

# run MODE: mount, fio QD1 randwrite for 5 s, the clat mean in us in
# $T/clat.MODE; left mounted.
run() {
	t_mount --profile "$T/metro.ini" --scale 0.1 --replicate-to "$REPLICA" \
		--replication-mode "$1" --rpo 60s --sync-interval 0
	"$A" ctl "$MNT" status | grep -qx "replication $1" \
		|| t_fail "ctl status does not say replication $1"
	fio --name=qd1 --directory="$MNT" --size=16M --bs=4k --rw=randwrite \
		--ioengine=psync --iodepth=1 --time_based --runtime=5 \
		--output-format=json --output="$T/fio.$1.json" \
		|| t_fail "fio ($1) exited $?"
	python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["jobs"][0]["write"]
print("%.1f" % (w["clat_ns"]["mean"] / 1e3))' "$T/fio.$1.json" >"$T/clat.$1"
}

# fsync_file NAME TEXT: write and fsync $MNT/NAME; its errno (0: none).
fsync_file() {
	python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, sys.argv[2].encode())
try:
    os.fsync(fd)
    print(0)
except OSError as e:
    print(e.errno)
os.close(fd)' "$MNT/$1" "$2"
}

t_log "async"
run async
t_assert_eq "$(r_json mode)" "asynchronous" "stats --json replication.mode"
t_umount
rm -rf "$STORE"/* "$REPLICA"

t_log "sync"
run sync
t_assert_eq "$(r_json mode)" "synchronous" "stats --json replication.mode"
"$A" ctl "$MNT" replication status >"$T/status"
cat "$T/status" >&2
grep -qx "mode synchronous" "$T/status" || t_fail "replication status: no mode synchronous"
rtt=$(sed -n 's/^link_rtt_us \([0-9.]*\)$/\1/p' "$T/status")
add=$(sed -n 's/^sync_write_4k_us \([0-9.]*\) .*/\1/p' "$T/status")
[ -n "$rtt" ] && [ -n "$add" ] || t_fail "replication status has no link figures"
t_assert_eq "$(r_json sync_write_4k_us)" "$add" "stats --json sync_write_4k_us"
a=$(cat "$T/clat.async") s=$(cat "$T/clat.sync")
t_log "clat mean: async $a us, sync $s us; modelled: round trip $rtt us, a sync 4 KiB write +$add us"
python3 -c '
import sys
a, s, add = map(float, sys.argv[1:])
d = s - a
print("--- sync - async = %.1f us, %.1f%% of the modelled %.1f" % (d, 100 * d / add, add), file=sys.stderr)
sys.exit(abs(d - add) > 0.1 * add)' "$a" "$s" "$add" \
	|| t_fail "sync mode did not add the modelled $add us (within 10%)"

t_log "an fsync'd file is on the replica when fsync returns"
t_assert_eq "$(fsync_file synced "the first")" 0 "fsync's errno"
cp -a "$REPLICA" "$T/rcopy"
rm -f "$T/rcopy/lock"
"$A" mount --store "$T/rcopy" "$MNT2" || t_fail "mount of the replica's copy"
t_assert_eq "$(cat "$MNT2/synced")" "the first" "the fsync'd file on the replica"
cpid=$(head -n 1 "$T/rcopy/lock" | tr -cd '0-9')
"$A" umount "$MNT2" || t_fail "umount of the replica's copy"
t_wait_pid_exit "$cpid" 30 || t_fail "the copy's daemon $cpid still running"

t_log "under a replication-link fault, fsync fails; cleared, it succeeds"
id=$("$A" ctl "$MNT" fault inject replication-link)
t_assert_eq "$(fsync_file held "the second")" 5 "fsync's errno under the fault"
rc=0
"$A" ctl "$MNT" sync 2>"$T/err" || rc=$?
[ "$rc" -ne 0 ] || t_fail "ctl sync under the fault succeeded"
grep -q "durable here, not on the replica" "$T/err" || t_fail "ctl sync: $(cat "$T/err")"
"$A" ctl "$MNT" fault clear "$id"
t_assert_eq "$(fsync_file held "the second")" 0 "fsync's errno after the clear"
t_assert_eq "$(r_json backlog_txns)" 0 "backlog after a sync fsync"
t_umount
t_fsck
r_fsck "$REPLICA"
