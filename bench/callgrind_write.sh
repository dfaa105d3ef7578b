#!/usr/bin/env bash
# Instructions per FUSE write in the daemon, repeatable on a loaded host:
# the daemon runs under callgrind, collecting only inside op_write (the
# store's side: hashing, dedupe, map, commit; a group commit's leader pays
# for its whole group there), while fio writes a fixed amount.
#
#   bench/callgrind_write.sh [ARRAYSIM_BINARY]   (root, /dev/fuse)
#
# Prints, per row: FUSE writes counted, Ir inside op_write, Ir in the
# hashing pool's threads (dedupe/fingerprint_pool.c: a large write's blocks
# hashed off the request's thread; 0 before the pool), their sum per write.
# Each thread is counted apart (--separate-threads) so the split is exact.
# Rows: 4k random writes, 4 jobs at QD1 (one file each), and 1 MiB
# sequential writes, 2 jobs. fio's data is refilled (no dedupe hits).
# ONLY4K=1 / ONLY1M=1: that row alone.
set -euo pipefail
BIN=${1:-$(dirname "$0")/../build/tools/arraysim}
BIN=$(realpath "$BIN")
WORK=$(mktemp -d /tmp/arraysim-cg-XXXXXX)
MNT=$WORK/mnt
trap '"$BIN" umount "$MNT" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT

row() { # NAME FIO-ARGS...
	local name=$1
	shift
	rm -rf "$WORK/store" "$MNT"
	mkdir -p "$WORK/store" "$MNT"
	valgrind --tool=callgrind --fair-sched=yes --toggle-collect=op_write \
		--toggle-collect=fp_pool_worker --separate-threads=yes \
		--callgrind-out-file="$WORK/cg.$name" \
		"$BIN" mount -f --meta-max 1G --store "$WORK/store" "$MNT" 2>"$WORK/vg.$name" &
	local pid=$!
	for _ in $(seq 600); do
		grep -q " $MNT " /proc/mounts && break
		sleep 0.1
	done
	grep -q " $MNT " /proc/mounts || { echo "arraysim: mount under valgrind failed" >&2; cat "$WORK/vg.$name" >&2; exit 1; }
	fio --name="$name" --directory="$MNT" --refill_buffers --randseed=1 \
		--ioengine=psync --end_fsync=1 "$@" >/dev/null
	local writes getx
	writes=$("$BIN" stats "$MNT" | awk '$1 == "write" {print $2}')
	getx=$("$BIN" stats "$MNT" | awk '$1 == "xattr" {print $2}')
	"$BIN" umount "$MNT"
	wait "$pid" || true
	local f ir pool=0 req=0
	for f in "$WORK/cg.$name"-*; do
		ir=$(callgrind_annotate "$f" 2>/dev/null |
			awk '/PROGRAM TOTALS/ && !n++ {gsub(",", "", $1); print $1}')
		[[ $ir =~ ^[0-9]+$ ]] || ir=0 # a thread that never ran op_write
		if grep -q 'fn=.*fp_pool_worker' "$f"; then
			pool=$((pool + ${ir:-0}))
		else
			req=$((req + ${ir:-0}))
		fi
	done
	printf '%-4s writes=%s xattr_ops=%s Ir(op_write)=%s Ir(pool)=%s Ir/write=%s\n' \
		"$name" "$writes" "${getx:-0}" "$req" "$pool" "$(((req + pool) / writes))"
}

[ -n "${ONLY1M:-}" ] || row 4k --rw=randwrite --bs=4k --size=4m --numjobs=4
[ -n "${ONLY4K:-}" ] || row 1m --rw=write --bs=1m --size=32m --numjobs=2
