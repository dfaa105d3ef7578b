#!/usr/bin/env bash
# killpriv: the daemon takes FUSE_HANDLE_KILLPRIV_V2 (fs/channel.c), so it,
# not the kernel, clears set-ID bits and file capabilities, as the Linux
# VFS does on a local file system (fs/README.md):
#   - a write by a caller without CAP_FSETID (nobody) clears set-user-ID,
#     and set-group-ID where group execute is set; root's write keeps them;
#   - a truncate by nobody (ftruncate, and an O_TRUNC open) clears them;
#   - a chown clears them;
#   - a write by root removes security.capability (getcap shows nothing),
#     as do a truncate and a chown;
#   - a capability set before a remount is removed by a write after it;
#   - on the writeback cache mount the kernel no longer asks for
#     security.capability before each write(): 1,000 write()s of 4 KiB
#     make a handful of xattr ops, not 1,000.
# Each on a default mount and on a -o writeback_cache mount.
# About 8 s here (80 files for the set of capabilities to grow).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd setcap getcap setpriv python3 truncate
[ "$(id -u)" -eq 0 ] || t_skip "needs root (chown, setcap, setpriv)"

t_setup
unset ARRAYSIM_WRITEBACK_CACHE # this test sets the option itself
chmod 755 "$T" # nobody must reach the mount point

as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
mode_of() { stat -c %a "$1"; }
# A world-writable file with @mode's set-ID bits, 8 KiB of data.
mkfile() {
	rm -f "$1"
	head -c 8192 /dev/urandom >"$1"
	chmod "$2" "$1"
}
# write(2) of 4 KiB at offset 0 of an existing file, as "$@" (a prefix
# such as as_nobody, or nothing).
write4k() {
	local f=$1
	shift
	"$@" dd if=/dev/zero of="$f" bs=4k count=1 conv=notrunc status=none
}
has_cap() { case $(getcap "$1") in *cap_net_raw*) return 0 ;; esac; return 1; }

checks() {
	local f=$MNT/f what=$1
	mkfile "$f" 6777
	write4k "$f" as_nobody
	t_assert_eq "$(mode_of "$f")" 777 "$what: nobody's write to a 6777 file"
	# Setgid without group exec, the writer in the file's group: kept.
	mkfile "$f" 2767
	chgrp 65534 "$f"
	chmod 2767 "$f"
	write4k "$f" as_nobody
	t_assert_eq "$(mode_of "$f")" 2767 "$what: nobody's write, setgid without group exec"
	mkfile "$f" 6777
	write4k "$f"
	t_assert_eq "$(mode_of "$f")" 6777 "$what: root's write (CAP_FSETID)"
	mkfile "$f" 6777
	as_nobody truncate -s 100 "$f"
	t_assert_eq "$(mode_of "$f")" 777 "$what: nobody's ftruncate"
	mkfile "$f" 6777
	as_nobody sh -c ': >"$1"' sh "$f"
	t_assert_eq "$(mode_of "$f")" 777 "$what: nobody's O_TRUNC open"
	mkfile "$f" 6777
	chown 65534 "$f"
	t_assert_eq "$(mode_of "$f")" 777 "$what: chown"

	mkfile "$f" 755
	setcap cap_net_raw+ep "$f"
	has_cap "$f" || t_fail "$what: setcap did not stick: '$(getcap "$f")'"
	write4k "$f"
	t_assert_eq "$(getcap "$f")" "" "$what: capability after root's write"
	setcap cap_net_raw+ep "$f"
	truncate -s 100 "$f"
	t_assert_eq "$(getcap "$f")" "" "$what: capability after root's truncate"
	setcap cap_net_raw+ep "$f"
	chown 65534 "$f"
	t_assert_eq "$(getcap "$f")" "" "$what: capability after a chown"
	# Another file's capability stays: the removal is per inode.
	mkfile "$MNT/g" 755
	setcap cap_net_raw+ep "$MNT/g"
	write4k "$f"
	has_cap "$MNT/g" || t_fail "$what: a write to f removed g's capability"
}

xattr_ops() { t_stat_json ops.xattr.count; }

t_mount -o allow_other
checks "default mount"
# The inodes with capabilities are known again after a remount (loaded at
# open): on direct I/O the kernel never asks, the daemon alone removes.
setcap cap_net_raw+ep "$MNT/f"
t_remount
has_cap "$MNT/f" || t_fail "capability lost by a remount: '$(getcap "$MNT/f")'"
write4k "$MNT/f"
t_assert_eq "$(getcap "$MNT/f")" "" "capability after root's write, remounted"
# Enough files that the in-memory set grows (from 64 slots, half full)
# both as capabilities are set and as a remount loads them.
mkdir "$MNT/many"
for i in $(seq 1 80); do
	mkfile "$MNT/many/$i" 755
	setcap cap_net_raw+ep "$MNT/many/$i"
done
for i in $(seq 1 40); do write4k "$MNT/many/$i"; done
t_remount
for i in $(seq 41 80); do
	has_cap "$MNT/many/$i" || t_fail "file $i lost its capability by a remount"
	write4k "$MNT/many/$i"
done
t_assert_eq "$(getcap -r "$MNT/many")" "" "capabilities after a write to each of 80 files"
t_umount

t_mount -o allow_other,writeback_cache
checks "writeback_cache mount"
# 1,000 write()s of 4 KiB to one file; the loop makes no xattr call of
# its own. Without KILLPRIV_V2 the kernel asks before each (about 1,000);
# with it, once after each attribute refresh (ATTR_TIMEOUT, 1 s).
mkfile "$MNT/w" 644
x0=$(xattr_ops)
python3 -c 'import os,sys
fd = os.open(sys.argv[1], os.O_WRONLY)
b = b"y" * 4096
for i in range(1000):
    os.write(fd, b)
os.fsync(fd)
os.close(fd)' "$MNT/w"
x1=$(xattr_ops)
t_log "xattr ops for 1,000 write()s: $((x1 - x0))"
[ $((x1 - x0)) -le 20 ] || t_fail "1,000 write()s on the writeback cache made $((x1 - x0)) xattr ops (at most 20 expected)"
t_umount
t_log "ok"
