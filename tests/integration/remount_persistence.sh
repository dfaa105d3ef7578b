#!/usr/bin/env bash
# remount_persistence: everything a file system keeps survives an umount and
# remount unchanged: file sizes around the 4 KiB block edges (0, 1, 4095,
# 4096, 4097, 1 MiB + 3), a sparse file's hole, duplicate content, dirs,
# symlinks, hard links, user xattrs, modes (incl. setuid/sticky), owners and
# timestamps (mtime to the nanosecond as set). fsck is clean afterwards.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
t_mount

# rnd N: N pseudo-random bytes (urandom would do; a seed makes failures
# reproducible).
rnd() { python3 -c 'import random,sys; r=random.Random(int(sys.argv[2])); sys.stdout.buffer.write(r.randbytes(int(sys.argv[1])))' "$1" "$2"; }

# setxattr FILE NAME VALUE / dumpxattrs DIR: setfattr/getfattr when installed
# (apt attr), otherwise the same through python's os.*xattr.
setxattr() {
	if command -v setfattr >/dev/null; then
		setfattr -h -n "$2" -v "$3" "$1"
	else
		python3 -c 'import os,sys; os.setxattr(sys.argv[1], sys.argv[2], sys.argv[3].encode(), follow_symlinks=False)' "$@"
	fi || t_fail "setting xattr $2 on $1"
}
dumpxattrs() {
	python3 - "$1" <<-'PY'
	import os, sys
	root = sys.argv[1]
	for d, dirs, files in sorted(os.walk(root)):
	    for n in sorted(dirs + files) + ([""] if d == root else []):
	        p = os.path.join(d, n) if n else d
	        if os.path.islink(p):
	            continue  # user.* xattrs are not allowed on symlinks
	        for k in sorted(os.listxattr(p)):
	            print(os.path.relpath(p, root), k, os.getxattr(p, k).hex())
	PY
}

M=$MNT
mkdir -p "$M/d1/d2/d3" "$M/empty-dir" "$M/sticky"
for n in 0 1 4095 4096 4097 $((1048576 + 3)); do
	rnd "$n" "$n" >"$M/f-$n"
done
# Duplicate content: two 1 MiB files with the same bytes, one shifted copy.
rnd 1048576 7 >"$M/d1/dup-1"
rnd 1048576 7 >"$M/d1/d2/dup-2"
# Sparse: 64 KiB data, a 1 MiB hole, 64 KiB data.
rnd 65536 11 >"$M/sparse"
rnd 65536 12 | dd of="$M/sparse" bs=65536 seek=17 conv=notrunc status=none
truncate -s 4000000 "$M/d1/d2/d3/truncated-up"     # all hole
rnd 9000 13 >"$M/d1/truncated-down"; truncate -s 5000 "$M/d1/truncated-down"
# Links.
ln -s f-4097 "$M/link-rel"
ln -s "$M/f-1" "$M/link-abs"
ln -s does-not-exist "$M/link-dangling"
ln -s d1/d2 "$M/link-dir"
ln "$M/f-4096" "$M/d1/hard-4096"
ln "$M/f-4096" "$M/d1/d2/hard-4096-b"
# xattrs (user.*), incl. an empty value and a 1000-byte one.
setxattr "$M/f-1" user.color blue
setxattr "$M/f-1" user.empty ""
setxattr "$M/d1" user.dir "on a directory"
setxattr "$M/f-4096" user.shared "seen through all hard links"
setxattr "$M/sparse" user.long "$(printf 'x%.0s' $(seq 1 1000))"
# Modes and owners.
chmod 0600 "$M/f-0"; chmod 0640 "$M/f-1"; chmod 0444 "$M/f-4095"
chmod 4755 "$M/f-4097"; chmod 2750 "$M/d1/d2"; chmod 1777 "$M/sticky"
chmod 0700 "$M/empty-dir"
chown 1234:5678 "$M/f-4095"; chown 4321 "$M/d1/dup-1"; chown :100 "$M/d1/d2/d3"
chown -h 777:888 "$M/link-rel"
# Timestamps last (every write above changed some mtime): fixed ones, incl.
# nanoseconds, an old date and a symlink's own.
touch -m -d '2001-02-03 04:05:06.123456789' "$M/f-4096"
touch -m -d '1980-01-01 00:00:00' "$M/f-0"
touch -h -m -d '2010-10-10 10:10:10.5' "$M/link-abs"
touch -m -d '2020-02-29 12:00:00.000000001' "$M/d1/d2/d3"

# manifest: everything stat shows that a remount must keep, sorted by path.
# (Hard links: %n and the shared inode; inode numbers themselves may change,
# so the inode of each file is replaced by its first path.)
manifest() {
	(cd "$MNT" && find . -printf '%i\t%p\t%y\t%m\t%U:%G\t%s\t%n\t%T@\t%l\n') | sort -t$'\t' -k2,2 |
		awk -F'\t' 'BEGIN { OFS = "\t" }
		{ if (!($1 in first)) first[$1] = $2; $1 = first[$1]; print }'
	(cd "$MNT" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
	# Whether the sparse file is reported as holey (st_blocks) must not
	# change either; its hole's zeros are covered by sha256sum.
	python3 -c 'import os,sys; s=os.stat(sys.argv[1]); print("sparse-hole", s.st_blocks * 512 < s.st_size // 2)' "$MNT/sparse"
	dumpxattrs "$MNT"
}

manifest >"$T/before"
# 5 xattrs set; user.shared shows on all 3 names of f-4096: 7 lines.
t_assert_eq "$(grep -c ' user\.' "$T/before")" 7 "xattr lines listed before the remount"

t_remount
manifest >"$T/after"
diff -u "$T/before" "$T/after" >&2 || t_fail "metadata or data changed across the remount (diff above: - before, + after)"

t_umount
t_fsck
