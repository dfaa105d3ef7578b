#!/usr/bin/env bash
# writeback_cache: mount -o writeback_cache, the kernel's writeback cache
# (a client's page cache in front of the array; fs/ops.c asks for it in
# INIT, fs/ops_reply.c opens files without direct_io). What the kernel
# then does differently, each checked on a real mount:
#   - `ctl status` says writeback_cache on (off without the option);
#   - small buffered writes reach the array coalesced (a 512-byte dd:
#     a few large WRITEs, not 2048);
#   - a partial-page write to a file opened O_WRONLY makes the kernel READ
#     the page first through that write-only handle, and the bytes around
#     the write survive;
#   - O_APPEND is the kernel's: the daemon writes where it is told (the
#     pages go back at page-aligned offsets), the data is not appended
#     twice;
#   - the kernel owns mtime while pages are dirty: an mtime set by
#     utime() with dirty pages outstanding is what the file keeps;
#   - fsync pushes the dirty pages as WRITEs before FSYNC: after a
#     SIGKILL of the daemon the fsync'd bytes read back (what was not
#     fsync'd may be lost; tests/integration/sigkill_fsync.sh with
#     ARRAYSIM_WRITEBACK_CACHE=1 runs its three kills the same way);
#   - with the io_uring transport too, when the kernel offers it.
# 23-29 s here beside other helpers' runs (null profile, small files:
# seven mounts).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_setup
unset ARRAYSIM_WRITEBACK_CACHE # this test sets the option itself

ops() { t_stat_json "ops.$1.count"; }

t_mount
t_assert_eq "$(t_status writeback_cache)" off "status without the option"
t_umount

t_mount -o writeback_cache
t_assert_eq "$(t_status writeback_cache)" on "status with -o writeback_cache"

# Coalesced: 1 MiB in 512-byte writes, then fsync.
w0=$(ops write)
head -c 1M /dev/urandom >"$T/small"
dd if="$T/small" of="$MNT/small" bs=512 conv=fsync status=none
n=$(($(ops write) - w0))
[ "$n" -ge 1 ] && [ "$n" -le 16 ] || t_fail "1 MiB in 512-byte writes reached the array as $n WRITEs (want 1..16)"
cmp -s "$T/small" "$MNT/small" || t_fail "the coalesced file reads back different"

# A file of 3 pages and a bit, on the store and out of the page cache.
head -c 13000 /dev/urandom >"$T/f"
cp "$T/f" "$MNT/f"
t_remount
r0=$(ops read)
# O_WRONLY, 100 bytes inside page 0 and 100 straddling pages 1 and 2.
python3 - "$MNT/f" "$T/f" <<'PY'
import os, sys
patch = [(1000, b"W" * 100), (8150, b"X" * 100)]
fd = os.open(sys.argv[1], os.O_WRONLY)
for off, b in patch:
    os.pwrite(fd, b, off)
os.close(fd)
with open(sys.argv[2], "r+b") as f:
    for off, b in patch:
        f.seek(off)
        f.write(b)
PY
[ $(($(ops read) - r0)) -ge 1 ] || t_fail "no READ for partial pages of an O_WRONLY file: the path is not exercised"
t_remount
cmp -s "$T/f" "$MNT/f" || t_fail "partial-page writes through O_WRONLY: the file reads back different"

# O_APPEND: twice 3000 bytes onto 13000, not page-aligned.
python3 - "$MNT/f" "$T/f" <<'PY'
import os, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    for c in b"AB":
        os.write(fd, bytes([c]) * 3000)
    os.close(fd)
PY
t_remount
t_assert_eq "$(stat -c %s "$MNT/f")" 19000 "size after two O_APPEND writes"
cmp -s "$T/f" "$MNT/f" || t_fail "O_APPEND: the file reads back different"

# mtime set while pages are dirty: the pages go first, then the mtime.
python3 - "$MNT/f" <<'PY'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.pwrite(fd, b"M" * 5000, 100)
os.utime(sys.argv[1], (1000000000, 1000000000))
os.pwrite(fd, b"N" * 10, 20)  # dirty again after the utime, same page
os.utime(sys.argv[1], (1000000000, 1000000000))
os.close(fd)
PY
t_remount
t_assert_eq "$(stat -c %Y "$MNT/f")" 1000000000 "mtime set by utime() with dirty pages outstanding"

# fsync'd data survives a SIGKILL of the daemon, killed with the file
# still open: pages written after the fsync are still dirty in the kernel
# then (no close has flushed them), and may be lost.
head -c 3M /dev/urandom >"$T/g"
pid=$(t_daemon_pid)
python3 - "$MNT/g" "$T/g" "$pid" <<'PY'
import os, signal, sys, time
data = open(sys.argv[2], "rb").read()
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o644)
for i in range(0, len(data), 4096):
    os.write(fd, data[i:i + 4096])
os.fsync(fd)
os.write(fd, b"U" * 65536)  # not fsync'd, not closed
os.kill(int(sys.argv[3]), signal.SIGKILL)
os._exit(0)  # no close: its flush would fail on the dead mount
PY
t_wait_pid_exit "$pid" 20 || t_fail "daemon $pid still running after SIGKILL"
fusermount3 -uz "$MNT" || t_fail "fusermount3 -uz $MNT"
t_fsck
t_mount -o writeback_cache
cmp -s -n 3M "$T/g" "$MNT/g" || t_fail "fsync'd data lost or damaged by a SIGKILL of the daemon"
t_umount
t_fsck

# The rings: writeback WRITEs arrive there as well.
if [ "$(cat /sys/module/fuse/parameters/enable_uring 2>/dev/null)" = Y ]; then
	t_mount -o writeback_cache,io_uring=on
	t_assert_eq "$(t_status writeback_cache)" on "status on the rings"
	w0=$(ops write)
	dd if="$T/small" of="$MNT/small2" bs=512 conv=fsync status=none
	n=$(($(ops write) - w0))
	[ "$n" -ge 1 ] && [ "$n" -le 16 ] || t_fail "on the rings: $n WRITEs for 1 MiB in 512-byte writes"
	[ "$(t_status 'ring requests')" -gt 0 ] || t_fail "no request came on the rings"
	t_remount -o io_uring=off
	cmp -s "$T/small" "$MNT/small2" || t_fail "written on the rings, read back different"
	t_umount
else
	t_log "enable_uring is not Y: the rings are not tested"
fi
echo "PASS"
