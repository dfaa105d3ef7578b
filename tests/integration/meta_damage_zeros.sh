#!/usr/bin/env bash
# Issue 13's reproduction: three bytes of meta/data.mdb flipped (at
# 4096*3+50, 4096*100+200, 4096*1000+33) in a copy of a store with data
# made `arraysim mount` succeed and a file read back zeros from byte 524289
# on, with no EIO. Now the mount refuses the copy in one line, or every
# file reads back its bytes or EIO; and fsck names the damage whenever
# any of the three lands in a page in use.
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

rc=0
"$ARRAYSIM" fsck --store "$T/damaged" --quiet >"$T/fsck.out" 2>&1 || rc=$?
t_log "fsck of the damaged copy exited $rc: $(wc -l <"$T/fsck.out") lines"
head -n 5 "$T/fsck.out" >&2

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
	"eio 0 missing 0") ;;
	*missing\ 0) [ "$(t_stat_json meta_checksum_errors)" -ge 1 ] \
		|| t_fail "EIO reads but meta_checksum_errors is 0" ;;
	*) t_umount; [ "$rc" -eq 1 ] || t_fail "files missing and fsck exited $rc" ;;
	esac
	t_is_mounted "$MNT" && t_umount
fi
echo "PASS: meta_damage_zeros"
