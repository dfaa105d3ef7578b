#!/usr/bin/env bash
# bench/lun.sh: what the extra protocol hop of a LUN costs. One arraysim
# mount (null profile: the host's own speed), one 256 MiB file inside it,
# and 64 MiB of random data written then read four ways, interleaved
# REPEAT times so that the noisy host hits them alike:
#   file   dd to/from MNT/lun0.img (bs=1M, conv=fsync / iflag=direct)
#   nbd    nbdcopy through `nbdkit file` on loopback
#   iscsi  qemu-img through tgt on loopback (QEMU's libiscsi initiator)
#   loop   dd to/from /dev/loopN on the file (oflag/iflag=direct)
# Prints each way's median MB/s and its ratio to `file`.
#   REPEAT [5]  MB [64]  ARRAYSIM [build/tools/arraysim]
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
ARRAYSIM=${ARRAYSIM:-$REPO/build/tools/arraysim}
REPEAT=${REPEAT:-5}
MB=${MB:-64}
W=$(mktemp -d /var/tmp/arraysim-lun.XXXXXX)
mkdir "$W/s" "$W/m"
PIDS=()
LOOP=
cleanup() {
	[ -z "$LOOP" ] || losetup -d "$LOOP" 2>/dev/null || true
	for p in ${PIDS[@]+"${PIDS[@]}"}; do kill -KILL "$p" 2>/dev/null || true; done
	sleep 0.5
	"$ARRAYSIM" umount "$W/m" 2>/dev/null || fusermount3 -uz "$W/m" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

"$ARRAYSIM" mount --store "$W/s" "$W/m"
truncate -s 256M "$W/m/lun0.img"
head -c "${MB}M" /dev/urandom >"$W/data"
NPORT=$(port) IPORT=$(port) CTL=$((RANDOM % 5000 + 1000))
nbdkit -f -i 127.0.0.1 -p "$NPORT" file "$W/m/lun0.img" 2>/dev/null &
PIDS+=($!)
tgtd -f -C "$CTL" --iscsi portal="127.0.0.1:$IPORT" >/dev/null 2>&1 &
PIDS+=($!)
sleep 1
IQN=iqn.2026-12.org.arraysim:bench
tgtadm -C "$CTL" --lld iscsi --op new --mode target --tid 1 -T "$IQN"
tgtadm -C "$CTL" --lld iscsi --op new --mode logicalunit --tid 1 --lun 1 -b "$W/m/lun0.img"
tgtadm -C "$CTL" --lld iscsi --op bind --mode target --tid 1 -I ALL
LOOP=$(losetup -f --show "$W/m/lun0.img")
ISCSI="iscsi://127.0.0.1:$IPORT/$IQN/1"

# secs CMD...: wall seconds of CMD.
secs() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>"$W/err" || { echo "lun.sh: $* failed: $(tail -1 "$W/err")" >&2; exit 1; }
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 }'
}
run() {
	case $1 in
	file-w) secs dd if="$W/data" of="$W/m/lun0.img" bs=1M conv=notrunc,fsync ;;
	file-r) secs dd if="$W/m/lun0.img" of=/dev/null bs=1M count="$MB" iflag=direct ;;
	nbd-w) secs nbdcopy "$W/data" "nbd://127.0.0.1:$NPORT" ;;
	nbd-r) secs nbdcopy "nbd://127.0.0.1:$NPORT" null: ;;
	iscsi-w) secs qemu-img convert -n -f raw -O raw "$W/data" "$ISCSI" ;;
	iscsi-r) rm -f "$W/back" && secs qemu-img dd -f raw -O raw if="$ISCSI" of="$W/back" bs=1M count="$MB" ;;
	loop-w) secs dd if="$W/data" of="$LOOP" bs=1M oflag=direct conv=fsync ;;
	loop-r) secs dd if="$LOOP" of=/dev/null bs=1M count="$MB" iflag=direct ;;
	esac
}
for ((r = 0; r < REPEAT; r++)); do
	for way in file nbd iscsi loop; do
		for d in w r; do echo "$way-$d $(run "$way-$d")"; done
	done
done >"$W/times"
python3 - "$W/times" "$MB" <<'PY'
import statistics, sys
t = {}
for line in open(sys.argv[1]):
    k, s = line.split()
    t.setdefault(k, []).append(float(s))
mb = float(sys.argv[2]) * 1.048576
print(f"{'way':6} {'write MB/s':>11} {'ratio':>6} {'read MB/s':>10} {'ratio':>6}")
base = {d: mb / statistics.median(t[f"file-{d}"]) for d in "wr"}
for way in ["file", "nbd", "iscsi", "loop"]:
    w, r = (mb / statistics.median(t[f"{way}-{d}"]) for d in "wr")
    print(f"{way:6} {w:11.0f} {w / base['w']:6.2f} {r:10.0f} {r / base['r']:6.2f}")
PY
