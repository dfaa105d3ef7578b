#!/usr/bin/env bash
# tests/fs/posix.sh POSIX_SEMANTICS: POSIX behaviour of a mounted arraysim.
#
#   1. mount with -o allow_other,default_permissions and run posix_semantics
#      (tests/fs/posix/, a file per topic) on the mountpoint: one line per check;
#   2. multi-user: what uid 65534 (via setpriv) may and may not do to files
#      of root's, each as the errno a python3 call of its gets;
#   3. remount and compare what must persist: modes, owners, link counts,
#      ns mtimes and ctimes, symlink targets, xattr values, contents
#      (and, before that, that an unlinked open file's blocks are freed
#      once its last fd closes, by `arraysim stats`);
#   4. remount with --kernel-cache and run posix_semantics again;
#   5. umount and fsck: the store is clean after all of it.
#
# Every part runs even when an earlier one failed; the exit status is 1 if
# anything failed. Run by `meson test --suite fs posix`; by hand:
#   ARRAYSIM=build/tools/arraysim bash tests/fs/posix.sh build/tests/fs/posix_semantics
set -euo pipefail
. "$(dirname "$0")/../integration/lib.sh"

POSIX_EXE=${1:-}
[ -n "$POSIX_EXE" ] && [ -x "$POSIX_EXE" ] || t_fail "usage: posix.sh POSIX_SEMANTICS_EXE (got '$POSIX_EXE')"
[ "$(id -u)" -eq 0 ] || t_skip "needs root (allow_other, chown, setpriv)"
t_require_cmd setpriv sha256sum

FAILS=0
# ok WHAT / bad WHAT: one line per check of this script.
ok() { echo "ok   $*"; }
bad() {
	echo "FAIL $*"
	FAILS=$((FAILS + 1))
}
# expect WHAT GOT WANT
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', expected '$3'"; fi
}

t_setup
# The nobody user must be able to reach $MNT.
chmod 0755 "$T"
MOUNT_OPTS=(-o allow_other,default_permissions)
t_mount "${MOUNT_OPTS[@]}"

# ---- 1. posix_semantics ------------------------------------------------
t_log "posix_semantics $MNT"
rc=0
timeout -k 10 200 "$POSIX_EXE" "$MNT" || rc=$?
if [ "$rc" -ne 0 ]; then
	bad "posix_semantics exited $rc"
	t_is_mounted || t_fail "$MNT is no longer mounted after posix_semantics (daemon died?)"
fi

# ---- 2. multi-user ------------------------------------------------------
# nobody_try OP PATH: what uid/gid 65534 gets for OP on PATH: OK or an errno
# name. /usr/bin/python3: a pyenv shim under /root is not nobody's to run.
nobody_try() {
	(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups -- /usr/bin/python3 -c '
import errno, os, sys
op, p = sys.argv[1], sys.argv[2]
try:
    if op == "read":
        open(p, "rb").read()
    elif op == "append":
        with open(p, "ab") as f:
            f.write(b"x")
    elif op == "create":
        open(p, "xb").close()
    elif op == "mkdir":
        os.mkdir(p)
    elif op == "truncate":
        os.truncate(p, 0)
    elif op == "unlink":
        os.unlink(p)
    elif op == "rename":
        os.rename(p, p + ".moved")
    elif op == "chmod":
        os.chmod(p, 0o777)
    elif op == "chown":
        os.chown(p, 65534, 65534)
    elif op == "utime_set":
        os.utime(p, (1, 1))
    elif op == "utime_now":
        os.utime(p)
    elif op == "setxattr":
        os.setxattr(p, "user.nobody", b"v")
    elif op == "readdir":
        os.listdir(p)
    else:
        sys.exit("nobody_try: unknown op " + op)
    print("OK")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
' "$1" "$2") 2>&1
}
# nobody_expect OP PATH WANT
nobody_expect() {
	expect "multiuser: nobody $1 ${2#"$MNT"/}" "$(nobody_try "$1" "$2")" "$3"
}

t_log "multi-user checks"
chmod 0755 "$MNT"
MU=$MNT/multiuser
mkdir -m 0755 "$MU"
printf 'root data\n' >"$MU/ro"
chmod 0644 "$MU/ro"
expect "multiuser: ro owned by root, 0644" "$(stat -c '%u:%g %a' "$MU/ro")" "0:0 644"
nobody_expect read "$MU/ro" OK
nobody_expect append "$MU/ro" EACCES
nobody_expect truncate "$MU/ro" EACCES
nobody_expect chmod "$MU/ro" EPERM
nobody_expect chown "$MU/ro" EPERM
nobody_expect utime_set "$MU/ro" EPERM
nobody_expect utime_now "$MU/ro" EACCES
nobody_expect setxattr "$MU/ro" EACCES
expect "multiuser: ro unchanged after nobody's attempts" "$(cat "$MU/ro")" "root data"
# In a root-owned 0755 directory nobody can list but not change entries.
nobody_expect readdir "$MU" OK
nobody_expect create "$MU/new" EACCES
nobody_expect mkdir "$MU/newdir" EACCES
nobody_expect unlink "$MU/ro" EACCES
nobody_expect rename "$MU/ro" EACCES
# Private file, private directory.
printf 'secret\n' >"$MU/private" && chmod 0600 "$MU/private"
nobody_expect read "$MU/private" EACCES
mkdir -m 0700 "$MU/closed" && printf 'x\n' >"$MU/closed/inner" && chmod 0644 "$MU/closed/inner"
nobody_expect read "$MU/closed/inner" EACCES
nobody_expect readdir "$MU/closed" EACCES
# A world-writable file.
printf 'w\n' >"$MU/open" && chmod 0666 "$MU/open"
nobody_expect append "$MU/open" OK
# A sticky world-writable directory: own files yes, root's no.
mkdir -m 1777 "$MU/sticky"
printf 'r\n' >"$MU/sticky/roots"
nobody_expect create "$MU/sticky/mine" OK
expect "multiuser: nobody's new file is owned by 65534:65534" \
	"$(stat -c '%u:%g' "$MU/sticky/mine" 2>&1)" "65534:65534"
nobody_expect unlink "$MU/sticky/roots" EPERM
nobody_expect unlink "$MU/sticky/mine" OK
# A write by a non-owner clears set-user-ID.
printf 's\n' >"$MU/suid" && chmod 04777 "$MU/suid"
nobody_expect append "$MU/suid" OK
expect "multiuser: set-user-ID cleared by nobody's write" "$(stat -c '%a' "$MU/suid")" "777"

# ---- space of an unlinked file comes back after its last close ----------
t_log "space release of an unlinked, open file"
stat_blocks() { echo "$(t_stat_json live_blocks) $(t_stat_json unique_blocks)"; }
head -c $((8 * 1024 * 1024)) /dev/urandom >"$T/orphan.src"
dd if="$T/orphan.src" of="$MNT/orphan" bs=1M conv=fsync status=none
read -r live0 uniq0 <<<"$(stat_blocks)"
exec 9<"$MNT/orphan"
rm "$MNT/orphan"
read -r live1 uniq1 <<<"$(stat_blocks)"
expect "orphan: blocks still held while open" "$live1 $uniq1" "$live0 $uniq0"
[ "$(sha256sum <&9 | cut -d' ' -f1)" = "$(sha256sum <"$T/orphan.src" | cut -d' ' -f1)" ] \
	&& ok "orphan: readable through the open fd" || bad "orphan: content differs through the open fd"
exec 9<&-
# The release reaches the daemon asynchronously: allow it 5 s.
for ((i = 0; i < 50; i++)); do
	read -r live2 uniq2 <<<"$(stat_blocks)"
	[ "$live2" -le $((live0 - 2048)) ] && break
	sleep 0.1
done
expect "orphan: 2048 live blocks freed after the last close" "$live2" "$((live0 - 2048))"
expect "orphan: 2048 unique blocks freed after the last close" "$uniq2" "$((uniq0 - 2048))"

# ---- 3. what survives a remount ----------------------------------------
t_log "persistence across a remount"
P=$MNT/persist
mkdir "$P"
head -c 300000 /dev/urandom >"$P/data"
chmod 0751 "$P/data"
chown 1234:5678 "$P/data"
ln "$P/data" "$P/data.link"
ln -s "some/target/../path" "$P/sym"
ln -s "$P/data" "$P/abs.sym"
mkdir -m 2750 "$P/dir"
mkdir "$P/dir/sub1" "$P/dir/sub2"
printf '' >"$P/empty"
truncate -s 5G "$P/sparse"
printf 'tail' | dd of="$P/sparse" bs=1 seek=$((5 * 1024 * 1024 * 1024 - 4)) conv=notrunc status=none
printf 'mid' | dd of="$P/sparse" bs=1 seek=$((3 * 1024 * 1024 * 1024 + 4095)) conv=notrunc status=none
/usr/bin/python3 - "$P" <<'EOF'
import os, sys
p = sys.argv[1]
os.setxattr(p + "/data", "user.k1", b"value one")
os.setxattr(p + "/data", "user.bin", bytes(range(256)))
os.setxattr(p + "/data", "user.empty", b"")
os.setxattr(p + "/dir", "user.d", b"on a dir")
EOF
touch -m -d @1500000000.123456789 "$P/data"
touch -h -m -d @1300000000.987654321 "$P/sym"
touch -m -d @1600000000.000000999 "$P/dir"

# snapshot: everything that must read back identically after a remount.
snapshot() {
	local f
	(
		cd "$P"
		for f in data data.link sym abs.sym dir dir/sub1 empty sparse; do
			stat -c '%n type=%F mode=%a uid=%u gid=%g nlink=%h size=%s ino=%i mtime=%.9Y ctime=%.9Z' "$f"
		done
		echo "sym -> $(readlink sym)"
		echo "abs.sym -> $(readlink abs.sym)"
		sha256sum data data.link empty
		# The sparse file's data blocks and a hole, not all 5 GiB.
		echo "sparse tail: $(tail -c 8 sparse | od -An -tx1)"
		echo "sparse mid: $(dd if=sparse bs=4096 skip=786431 count=3 status=none | sha256sum)"
		echo "sparse hole: $(dd if=sparse bs=1M skip=2048 count=4 status=none | sha256sum)"
		/usr/bin/python3 - <<'EOF'
import os
for f in ("data", "dir"):
    for k in sorted(os.listxattr(f)):
        print(f, k, os.getxattr(f, k).hex())
EOF
		ls -a dir | tr '\n' ' '
		echo
	) 2>&1
}
snapshot >"$T/before"
# Sanity: the facts the brief names explicitly, before the remount too.
grep -q '^data .*nlink=2 ' "$T/before" || bad "persist: data nlink is not 2 before the remount"
grep -q 'mtime=1500000000.123456789 ' "$T/before" || bad "persist: data mtime not set to ns precision"

t_remount
snapshot >"$T/after"
if diff -u "$T/before" "$T/after" >"$T/diff"; then
	ok "persist: modes, owners, nlink, ns times, symlinks, xattrs and contents survive a remount"
else
	bad "persist: state differs after the remount:"
	cat "$T/diff"
fi
expect "persist: nobody can still read ro after the remount" "$(nobody_try read "$MU/ro")" OK
expect "persist: nobody still cannot append to ro" "$(nobody_try append "$MU/ro")" EACCES

# ---- 4. the same with --kernel-cache --------------------------------------
# The page cache instead of direct I/O: other kernel paths (mmap, buffered
# writes, killing set-user-ID on write), same semantics.
t_log "posix_semantics with --kernel-cache"
t_remount --kernel-cache "${MOUNT_OPTS[@]}"
rc=0
timeout -k 10 200 "$POSIX_EXE" "$MNT" || rc=$?
if [ "$rc" -ne 0 ]; then
	bad "posix_semantics with --kernel-cache exited $rc"
	t_is_mounted || t_fail "$MNT is no longer mounted after posix_semantics (daemon died?)"
fi
printf 's\n' >"$MU/suid2" && chmod 04777 "$MU/suid2"
nobody_expect append "$MU/suid2" OK
expect "kernel-cache: set-user-ID cleared by nobody's write" "$(stat -c '%a' "$MU/suid2")" "777"
if diff -u "$T/before" <(snapshot) >"$T/diff"; then
	ok "kernel-cache: the persisted state reads the same"
else
	bad "kernel-cache: the persisted state reads differently:"
	cat "$T/diff"
fi

# ---- 5. umount and fsck --------------------------------------------------
t_log "umount and fsck"
t_umount
rc=0
out=$("$ARRAYSIM" fsck --store "$STORE" 2>&1) || rc=$?
if [ "$rc" -eq 0 ]; then
	ok "fsck: store clean after the posix run"
else
	printf '%s\n' "$out" | head -n 40
	bad "fsck: exited $rc after the posix run (0 = clean)"
fi

echo "posix.sh: $FAILS failed"
[ "$FAILS" -eq 0 ]
