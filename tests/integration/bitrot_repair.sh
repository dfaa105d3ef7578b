#!/usr/bin/env bash
# bitrot_repair: a rotted block the array has redundancy for reads back
# whole, rebuilt from it; without that redundancy, EIO (store/bitrot.c).
#
# A raid1 of 2 SSDs: every block has a mirror. Bit rot on one block of
# /x: the report calls it repairable, nothing lost; /x reads back byte
# for byte and repaired_reads counts it. Drive 1 pulled: the mirror is
# gone, so the rotted block is EIO (checksum_errors) while the rest of
# the store, on drive 0, reads as before. Once the drive is back and
# rebuilt, the rotted block is repaired again. fsck still finds the
# rotted copy (nothing rewrites it).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/loss_lib.sh"
t_require_cmd python3

t_setup
A=$ARRAYSIM
ctl() { "$A" ctl "$MNT" "$@"; }

front_ini >"$T/r1.ini"
cat >>"$T/r1.ini" <<-'INI'
	[tier flash]
	kind = ssd
	drives = 2
	capacity = 1G
	raid = raid1
	read_latency = 100us
	write_latency = 50us
	slots = 8
	fill = 5%
	rebuild_rate = 100M/s
	detection_window = 100ms
INI

t_mount --profile "$T/r1.ini" --seed 3
head -c 12288 /dev/urandom >"$T/x"
head -c 16384 /dev/urandom >"$T/z"
cp "$T/x" "$MNT/x"
cp "$T/z" "$MNT/z"

t_log "rot block 1 of /x on a mirror: repairable, nothing lost"
ctl fault inject bitrot path=/x offset=4096 >"$T/report"
grep -qx 'repairable block [0-9]*' "$T/report" || t_fail "report: $(cat "$T/report")"
grep -qx 'corrupted 1 blocks referenced 0 times' "$T/report" || t_fail "report: $(cat "$T/report")"
grep -q '^lost ' "$T/report" && t_fail "a repairable block was reported lost: $(cat "$T/report")"
grep -q '"event":"block_rotted","block":[0-9]*,"repairable":true' "$STORE/events.jsonl" ||
	t_fail "no block_rotted event"
cmp "$MNT/x" "$T/x" || t_fail "the rotted file did not read back as written"
t_assert_eq "$(t_stat_json repaired_reads)" "1" "repaired_reads"
t_assert_eq "$(t_stat_json checksum_errors)" "0" "checksum_errors"

t_log "pull drive 1: no mirror left for the rotted block"
did=$(ctl fault inject drive id=1)
cat "$MNT/x" >/dev/null 2>"$T/err" && t_fail "read the rotted block with its mirror gone"
grep -q 'Input/output error' "$T/err" || t_fail "reading /x: $(cat "$T/err")"
[ "$(t_stat_json checksum_errors)" -ge 1 ] || t_fail "checksum_errors not counted"
cmp "$MNT/z" "$T/z" || t_fail "a file without the rotted block changed"
dd if="$MNT/x" of="$T/x0" bs=4096 count=1 status=none || t_fail "block 0 of /x, not rotted, failed"
cmp "$T/x0" <(head -c 4096 "$T/x") || t_fail "block 0 of /x changed"

t_log "drive 1 back and rebuilt (51 MiB at 100 MiB/s): repairable again"
ctl fault clear "$did"
t_wait_event rebuild_end "$did"
cmp "$MNT/x" "$T/x" || t_fail "after the rebuild the rotted file did not read back"
t_assert_eq "$(t_stat_json repaired_reads)" "2" "repaired_reads after the rebuild"

t_umount
rc=0
"$A" fsck --store "$STORE" >"$T/fsck.out" 2>&1 || rc=$?
t_assert_eq "$rc" "1" "fsck of a store with a rotted copy"
echo "PASS"
