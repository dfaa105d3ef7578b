#!/usr/bin/env bash
# lun_nbd: a file inside the mount served as a block LUN over NBD by
# Debian's nbdkit (`nbdkit file`), checked with libnbd's clients over
# loopback. The README's recipe, step by step:
#   truncate -s 256M MNT/lun0.img
#   nbdkit -f -i 127.0.0.1 -p PORT file MNT/lun0.img
# nbdinfo shows the LUN's size; 64 MiB of random data copied in with
# nbdcopy reads back identical through NBD and through the mount; the
# array counted the LUN's writes as its own host writes; after unmount
# fsck finds the store clean and a remount reads the same bytes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
t_require_cmd nbdkit nbdinfo nbdcopy python3
T_PIDS=()

t_setup
t_mount
truncate -s 256M "$MNT/lun0.img"
NPORT=$(free_port)
nbdkit -f -i 127.0.0.1 -p "$NPORT" file "$MNT/lun0.img" >"$T/nbdkit.log" 2>&1 &
NBDKIT=$!
T_PIDS+=("$NBDKIT")
URI="nbd://127.0.0.1:$NPORT"
for ((i = 0; i < 50; i++)); do
	nbdinfo --size "$URI" >"$T/size" 2>/dev/null && break
	sleep 0.2
done
t_assert_eq "$(cat "$T/size" 2>/dev/null)" 268435456 "LUN size by nbdinfo"

head -c 64M /dev/urandom >"$T/data"
before=$(t_stat_json ops.write.bytes)
nbdcopy "$T/data" "$URI" || t_fail "nbdcopy into the LUN failed"
nbdcopy "$URI" "$T/back" || t_fail "nbdcopy out of the LUN failed"
cmp -n 67108864 "$T/data" "$T/back" || t_fail "the LUN read back other bytes over NBD"
cmp -n 67108864 "$T/data" "$MNT/lun0.img" || t_fail "the mount's file holds other bytes"
after=$(t_stat_json ops.write.bytes)
[ $((after - before)) -ge 67108864 ] ||
	t_fail "the array counted $((after - before)) bytes written, expected >= 64 MiB"

kill -TERM "$NBDKIT"
t_wait_pid_exit "$NBDKIT" 10 || t_fail "nbdkit did not exit"
t_umount
t_fsck
t_mount
cmp -n 67108864 "$T/data" "$MNT/lun0.img" || t_fail "other bytes after remount"
t_umount
echo "PASS"
