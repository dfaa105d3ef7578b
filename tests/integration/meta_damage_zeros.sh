#!/usr/bin/env bash
# Issue 13's reproduction: three bytes of meta/data.mdb flipped (at
# 4096*3+50, 4096*100+200, 4096*1000+33) in a copy of a store with data
# made `arraysim mount` succeed and a file read back zeros from byte 524289
# on, with no EIO. Where those offsets land depends on the store, so the
# key of the extent that holds odd.bin's byte 524288 is damaged too (the
# way a lost extent read as a hole). Now the mount refuses the copy in one
# line, or every file reads back its bytes or EIO, counted in
# meta_checksum_errors; fsck names the damage.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_setup
HELPER="$ARRAYSIM_SRC/tests/integration/meta_damage.py"

t_mount
python3 "$HELPER" build "$MNT" "$T/ref" || t_fail "building the tree"
# Enough metadata that page 1000 is in the file: more small files.
python3 - "$MNT" <<'PY'
import os, random, sys
d = os.path.join(sys.argv[1], "more")
os.makedirs(d)
r = random.Random(7)
for i in range(3000):
    with open(os.path.join(d, "f%04d" % i), "wb") as f:
        f.write(r.randbytes(4096 + i))
PY
ODD_INO=$(stat -c %i "$MNT/odd.bin")
t_umount
t_fsck
cp -a --sparse=always "$STORE" "$T/damaged"
META="$T/damaged/meta/data.mdb"
for off in $((4096 * 3 + 50)) $((4096 * 100 + 200)) $((4096 * 1000 + 33)); do
	python3 - "$META" "$off" <<'PY'
import sys
path, off = sys.argv[1], int(sys.argv[2])
with open(path, "r+b") as f:
    f.seek(off)
    b = f.read(1)
    assert b, "offset %d is past the end of %s" % (off, path)
    f.seek(off)
    f.write(bytes([b[0] ^ 0x5a]))
PY
done

# The bmap key of odd.bin's extent 2 (bytes 524288..786431): ino, idx BE.
python3 - "$META" "$ODD_INO" <<'PY'
import struct, sys
path, ino = sys.argv[1], int(sys.argv[2])
key = struct.pack(">QQ", ino, 2)
data = bytearray(open(path, "rb").read(64 << 20))
at = data.find(key)
assert at >= 0, "no bmap key for inode %d extent 2" % ino
with open(path, "r+b") as f:
    f.seek(at + 15)
    f.write(bytes([data[at + 15] ^ 0x40]))
PY

rc=0
"$ARRAYSIM" fsck --store "$T/damaged" --quiet >"$T/fsck.out" 2>&1 || rc=$?
t_log "fsck of the damaged copy exited $rc: $(wc -l <"$T/fsck.out") lines"
head -n 5 "$T/fsck.out" >&2
[ "$rc" -eq 1 ] || t_fail "fsck of the damaged copy exited $rc, not 1 (problems)"

rm -rf "$STORE"
mv "$T/damaged" "$STORE"
rc=0
"$ARRAYSIM" mount --store "$STORE" "$MNT" 2>"$T/mount.err" || rc=$?
if [ "$rc" -ne 0 ]; then
	t_is_mounted "$MNT" && t_fail "mount exited $rc but $MNT is mounted"
	[ "$(wc -l <"$T/mount.err")" -eq 1 ] || t_fail "mount said more than one line: $(cat "$T/mount.err")"
	grep -q '^arraysim: .*metadata' "$T/mount.err" || t_fail "mount's refusal: $(cat "$T/mount.err")"
	t_log "mount refused: $(cat "$T/mount.err")"
else
	out=$(python3 "$HELPER" check "$MNT" "$T/ref") || t_fail "wrong bytes with no error: $out"
	t_log "mounted; reads: $out"
	case "$out" in
	*missing\ 0) ;;
	*) t_fail "files missing: $out" ;;
	esac
	# The damaged extent reads as EIO, never zeros.
	python3 - "$MNT/odd.bin" <<'PY' || t_fail "odd.bin read at 524288 did not fail with EIO"
import errno, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    os.pread(fd, 4096, 524288)
except OSError as e:
    sys.exit(0 if e.errno == errno.EIO else 1)
sys.exit(1)
PY
	[ "$(t_stat_json meta_checksum_errors)" -ge 1 ] \
		|| t_fail "EIO reads but meta_checksum_errors is 0"
	grep -q "metadata damaged: bmap record of inode $ODD_INO offset 524288" "$STORE/arraysim.log" \
		|| t_fail "no log line naming inode $ODD_INO offset 524288"
	t_umount
fi
echo "PASS: meta_damage_zeros"
