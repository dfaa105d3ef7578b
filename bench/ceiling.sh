#!/usr/bin/env bash
# bench/ceiling.sh: this host's ceiling per workload, the rate fio gets
# through an arraysim mount of the `null` profile (no timing: the host's
# FUSE path, hashing and metadata are all there is), with dedupe and
# verify on as a profile mount has them. A profile's figures are only
# real at a --scale that keeps them under it; `arraysim profile show NAME
# --ceiling FILE` reads the file written here and says which scale.
#
#   bench/ceiling.sh                      (root, /dev/fuse, fio)
#
# Environment [default]: ARRAYSIM [build/tools/arraysim], REPEAT [3]
# (the median is kept), RUNTIME [6] and RAMP [2] seconds, SIZE [512M],
# OUT [bench/out/ceiling-<stamp>.txt], BENCH_DIR [/var/tmp/arraysim-bench].
#
# Rows (the keys of the file; values are requests per second):
#   rand4k_read / rand4k_write   4k random, QD32, io_uring
#   seq1m_read / seq1m_write     1M sequential, QD8, io_uring
# The machine is what it is when this runs: a shared or busy host gives a
# lower ceiling; run it quiet and keep the file with the date it names.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"

ARRAYSIM=${ARRAYSIM:-build/tools/arraysim}
[[ $ARRAYSIM == /* ]] || ARRAYSIM=$REPO/$ARRAYSIM
REPEAT=${REPEAT:-3}
RUNTIME=${RUNTIME:-6}
RAMP=${RAMP:-2}
SIZE=${SIZE:-512M}
BENCH_DIR=${BENCH_DIR:-/var/tmp/arraysim-bench}
OUT=${OUT:-$HERE/out/ceiling-$(date +%Y%m%d-%H%M%S).txt}
[ -x "$ARRAYSIM" ] || { echo "arraysim: $ARRAYSIM is not an executable (build it first)" >&2; exit 2; }
command -v fio >/dev/null || { echo "arraysim: fio is not installed" >&2; exit 2; }

mkdir -p "$BENCH_DIR" "$(dirname "$OUT")"
WORK=$(mktemp -d "$BENCH_DIR/ceiling.XXXXXX")
MNT=$WORK/mnt
cleanup() {
	"$ARRAYSIM" umount "$MNT" 2>/dev/null || fuse_umount "$MNT"
	[ -n "$(mounts_below "$WORK")" ] || rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/store" "$MNT"
"$ARRAYSIM" mount --profile null --store "$WORK/store" "$MNT"
wait_mounted "$MNT" || { echo "arraysim: the null mount did not appear" >&2; exit 1; }
log "laying out $SIZE"
fio --name=layout --filename="$MNT/ceiling.dat" --size="$SIZE" --bs=1M \
	--rw=write --refill_buffers --randrepeat=0 --end_fsync=1 >/dev/null

ROWS=(
	"rand4k_read|--bs=4k --rw=randread --iodepth=32"
	"rand4k_write|--bs=4k --rw=randwrite --iodepth=32"
	"seq1m_read|--bs=1M --rw=read --iodepth=8"
	"seq1m_write|--bs=1M --rw=write --iodepth=8"
)
# One run: the IOPS of read + write from fio's JSON.
run_row() {
	# shellcheck disable=SC2086 # the row's args split on purpose
	fio --name=ceiling --filename="$MNT/ceiling.dat" --size="$SIZE" \
		--ioengine=io_uring --time_based --runtime="$RUNTIME" \
		--ramp_time="$RAMP" --refill_buffers --randrepeat=0 \
		--output-format=json $1 |
		python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]; print("%.1f" % (j["read"]["iops"] + j["write"]["iops"]))'
}

{
	echo "# this host's ceiling (bench/ceiling.sh): requests per second through"
	echo "# an arraysim mount of the null profile, median of $REPEAT runs of ${RUNTIME} s"
	machine_header | sed 's/^- /# /'
} >"$OUT"
for row in "${ROWS[@]}"; do
	key=${row%%|*}
	runs=()
	for ((i = 0; i < REPEAT; i++)); do
		sync
		runs+=("$(run_row "${row#*|}")")
	done
	median=$(printf '%s\n' "${runs[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	log "$key: ${runs[*]} -> $median"
	printf '%s %s\n' "$key" "$median" >>"$OUT"
done
cat "$OUT"
echo "# written to $OUT; arraysim profile show NAME --ceiling $OUT"
