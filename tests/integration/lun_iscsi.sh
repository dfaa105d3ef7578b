#!/usr/bin/env bash
# lun_iscsi: a file inside the mount served as an iSCSI LUN by Debian's
# tgt, checked over loopback with libiscsi's clients (iscsi-inq,
# iscsi-readcapacity16, iscsi-perf for 2 s) and QEMU's libiscsi initiator
# (qemu-img, qemu-block-extra) for the data. The README's recipe:
#   tgtd -f --iscsi portal=127.0.0.1:PORT &
#   tgtadm --lld iscsi --op new --mode target --tid 1 -T IQN
#   tgtadm --lld iscsi --op new --mode logicalunit --tid 1 --lun 1 -b MNT/lun0.img
#   tgtadm --lld iscsi --op bind --mode target --tid 1 -I ALL
# 64 MiB of random data written through iSCSI is in the mount's file and
# reads back identical through iSCSI; the array counted the LUN's I/O as
# its host I/O; fsck is clean after unmount.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
t_require_cmd tgtd tgtadm iscsi-inq iscsi-readcapacity16 iscsi-perf qemu-img python3
T_PIDS=()

t_setup
t_mount
truncate -s 128M "$MNT/lun0.img"
PORT=$(free_port)
# tgtd's management socket is /var/run/tgtd/socket.N: a number of our own
# so that a tgtd of the host's is not the one we talk to.
CTL=$((RANDOM % 5000 + 1000))
IQN=iqn.2026-12.org.arraysim:lun0
tgtd -f -C "$CTL" --iscsi portal="127.0.0.1:$PORT" >"$T/tgtd.log" 2>&1 &
TGTD=$!
T_PIDS+=("$TGTD")
tgt() { tgtadm -C "$CTL" --lld iscsi "$@" || t_fail "tgtadm $*: exit $?"; }
for ((i = 0; i < 50; i++)); do
	tgtadm -C "$CTL" --lld iscsi --op show --mode target >/dev/null 2>&1 && break
	sleep 0.2
done
tgt --op new --mode target --tid 1 -T "$IQN"
tgt --op new --mode logicalunit --tid 1 --lun 1 -b "$MNT/lun0.img"
tgt --op bind --mode target --tid 1 -I ALL
URI="iscsi://127.0.0.1:$PORT/$IQN/1"

iscsi-inq "$URI" >"$T/inq" || t_fail "iscsi-inq failed: $(cat "$T/inq")"
grep -q 'Peripheral Device Type:DIRECT_ACCESS' "$T/inq" || t_fail "not a disk: $(head -3 "$T/inq")"
iscsi-readcapacity16 "$URI" >"$T/cap" || t_fail "iscsi-readcapacity16 failed"
grep -q '^Total size:134217728$' "$T/cap" || t_fail "LUN size: $(grep Total "$T/cap")"

head -c 64M /dev/urandom >"$T/data"
before=$(t_stat_json ops.write.bytes)
qemu-img convert -n -f raw -O raw "$T/data" "$URI" || t_fail "write over iSCSI failed"
cmp -n 67108864 "$T/data" "$MNT/lun0.img" || t_fail "the mount's file holds other bytes"
qemu-img convert -f raw -O raw "$URI" "$T/back" || t_fail "read over iSCSI failed"
cmp -n 67108864 "$T/data" "$T/back" || t_fail "the LUN read back other bytes over iSCSI"
after=$(t_stat_json ops.write.bytes)
[ $((after - before)) -ge 67108864 ] ||
	t_fail "the array counted $((after - before)) bytes written, expected >= 64 MiB"
reads=$(t_stat_json ops.read.count)
timeout 60 iscsi-perf -t 2 "$URI" >"$T/perf" 2>&1 || t_fail "iscsi-perf: $(tail -2 "$T/perf")"
[ "$(t_stat_json ops.read.count)" -gt "$reads" ] || t_fail "iscsi-perf's reads did not reach the array"

tgtadm -C "$CTL" --op delete --mode system >/dev/null 2>&1 || kill -TERM "$TGTD"
t_wait_pid_exit "$TGTD" 10 || kill -KILL "$TGTD"
t_umount
t_fsck
echo "PASS"
