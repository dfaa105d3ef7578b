#!/usr/bin/env bash
# lun_loop: a file inside the mount as this host's block device, through
# the kernel's loop driver, with a filesystem on it (the README's recipe):
#   truncate -s 256M MNT/lun0.img
#   losetup -f --show MNT/lun0.img      # /dev/loopN
#   mkfs.ext4 /dev/loopN && mount /dev/loopN DIR
# Files copied onto the ext4 read back identical after the ext4 is
# remounted, e2fsck finds it clean, the array counted the loop device's
# writes as host writes, and arraysim's own fsck is clean after unmount.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd losetup mkfs.ext4 e2fsck
T_PIDS=()
LOOP=
EXT=

# Undo what is set up beside the mount before lib.sh's teardown unmounts.
loop_teardown() {
	if [ -n "$EXT" ] && mountpoint -q "$EXT"; then umount "$EXT" || umount -l "$EXT"; fi
	[ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
	LOOP=
}

t_setup
trap 'rc=$?; loop_teardown; t_cleanup "$rc"' EXIT
trap 'loop_teardown; t_cleanup 130' INT
trap 'loop_teardown; t_cleanup 143' TERM
t_mount
truncate -s 256M "$MNT/lun0.img"
LOOP=$(losetup -f --show "$MNT/lun0.img") || t_skip "no loop device on this host (losetup failed)"
mkfs.ext4 -q -F "$LOOP" >"$T/mkfs.log" 2>&1 || t_fail "mkfs.ext4: $(cat "$T/mkfs.log")"
EXT=$T/ext
mkdir "$EXT"
mount "$LOOP" "$EXT" || t_fail "mount $LOOP failed"

head -c 48M /dev/urandom >"$T/data"
before=$(t_stat_json ops.write.bytes)
mkdir "$EXT/d"
for n in 1 2 3; do cp "$T/data" "$EXT/d/f$n"; done
umount "$EXT"
losetup -d "$LOOP"
# The loop device's writes reach the file before detach returns.
after=$(t_stat_json ops.write.bytes)
[ $((after - before)) -ge $((3 * 48 * 1048576)) ] ||
	t_fail "the array counted $((after - before)) bytes written, expected >= 144 MiB"

LOOP=$(losetup -f --show "$MNT/lun0.img")
e2fsck -fn "$LOOP" >"$T/e2fsck.log" 2>&1 || t_fail "e2fsck: $(tail -5 "$T/e2fsck.log")"
mount "$LOOP" "$EXT"
for n in 1 2 3; do cmp "$T/data" "$EXT/d/f$n" || t_fail "f$n read back other bytes"; done
dup=$(t_stat_json duplicate_hits)
umount "$EXT"
loop_teardown
# Three copies of the same file on ext4: the array saw the repeats, two
# copies' worth of 4 KiB blocks, less a few that the array stored rather
# than matched (24,573 of 24,576 in one run; the cause is not pinned down
# yet).
want=$((2 * 48 * 256 * 99 / 100))
[ "$dup" -ge "$want" ] || t_fail "duplicate_hits $dup, expected >= $want (99% of two copies)"
t_umount
t_fsck
echo "PASS"
