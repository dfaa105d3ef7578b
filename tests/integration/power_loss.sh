#!/usr/bin/env bash
# power_loss: `fault inject power-loss` drops exactly what was not made
# durable. With the background sync off, a client's fsync is the only sync:
# everything before the last fsync survives the power loss and the
# remount, byte for byte; every write, create, overwrite and unlink after it
# is gone. Until the unmount, every operation fails with EIO. Twice, so the
# second loss starts from a store the first one restored. fsck is clean.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
# Without --power-loss the state is not kept: a clear refusal.
t_mount --sync-interval 0
rc=0
"$ARRAYSIM" ctl "$MNT" fault inject power-loss >/dev/null 2>"$T/err" || rc=$?
t_assert_eq "$rc" "2" "power-loss on a mount without --power-loss"
grep -q 'mount with --power-loss' "$T/err" || t_fail "error: $(cat "$T/err")"
echo ok >"$MNT/still-works" || t_fail "the mount stopped working after a refused power loss"
t_umount
t_mount --sync-interval 0 --seed 3 --power-loss
A=$ARRAYSIM

# put FILE BYTE SIZE [fsync]: write SIZE bytes of BYTE, fsync when asked.
put() {
	python3 - "$@" <<-'PY'
	import os, sys
	path, byte, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
	fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
	os.pwrite(fd, bytes([byte]) * size, 0)
	if len(sys.argv) > 4:
	    os.fsync(fd)
	os.close(fd)
	PY
}
# has FILE BYTE SIZE: FILE holds exactly SIZE bytes of BYTE.
has() {
	python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); sys.exit(d != bytes([int(sys.argv[2])]) * int(sys.argv[3]))' "$@"
}

mkdir "$MNT/dir"
put "$MNT/dir/kept" 65 100000
put "$MNT/gone-later" 66 5000
put "$MNT/overwritten" 67 20000 fsync # the fsync makes all of the above durable

put "$MNT/overwritten" 68 20000 # not synced from here on
put "$MNT/new" 69 8192
mkdir "$MNT/newdir"
rm "$MNT/gone-later"
head -c 1048576 /dev/urandom >"$MNT/big"

"$A" ctl "$MNT" fault inject power-loss >"$T/out"
grep -q '^power lost: [1-9][0-9]* commits since the last sync are gone' "$T/out" ||
	t_fail "power-loss answer: $(cat "$T/out")"
grep -q '"event":"inject","id":0,"rule":"power-loss"' "$STORE/events.jsonl" ||
	t_fail "no power-loss event in the log"
if put "$MNT/after" 70 10 2>/dev/null; then t_fail "a write succeeded after the power loss"; fi
if cat "$MNT/dir/kept" >/dev/null 2>&1; then t_fail "a read succeeded after the power loss"; fi
if mkdir "$MNT/d2" 2>/dev/null; then t_fail "a mkdir succeeded after the power loss"; fi

t_remount
has "$MNT/dir/kept" 65 100000 || t_fail "dir/kept lost or changed"
has "$MNT/gone-later" 66 5000 || t_fail "the unlink after the last fsync survived"
has "$MNT/overwritten" 67 20000 || t_fail "the overwrite after the last fsync survived"
for f in new newdir big after d2; do
	[ ! -e "$MNT/$f" ] || t_fail "$f, made after the last fsync, survived"
done

t_log "a second power loss, from the restored store"
put "$MNT/second" 71 4096 fsync
put "$MNT/dir/kept" 72 100 # unsynced overwrite of a surviving file
"$A" ctl "$MNT" fault inject power-loss >/dev/null
t_remount
has "$MNT/second" 71 4096 || t_fail "second: fsync'd before the 2nd loss, lost"
has "$MNT/dir/kept" 65 100000 || t_fail "dir/kept: unsynced overwrite survived the 2nd loss"
t_umount
"$A" fsck --store "$STORE" >"$T/fsck.out" 2>&1 || t_fail "fsck after power losses: $(cat "$T/fsck.out")"
[ ! -e "$STORE/meta.next" ] && [ ! -e "$STORE/meta.old" ] || t_fail "left-over meta.next or meta.old"
echo "PASS"
