#!/usr/bin/env bash
# bench/parallel_edges.sh: writers on disjoint ranges of one file whose
# writes end inside 4 KiB blocks (6 KiB, O_DIRECT, 4 jobs x QD8), so each
# write reads and rewrites its edge blocks: the case a lock per file
# serialised through the commit and range locks (fs/range_lock.c) do not.
# FILES=4: each writer its own file instead (the edge read waits for
# queued writes: of every file before efee098, of its own blocks since).
# Two builds, interleaved, medians of REPEAT:
#
#   ARRAYSIM_B=/path/to/older/arraysim [FILES=4] bench/parallel_edges.sh
#
# Prints each run's write IOPS, the medians and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh

A=${ARRAYSIM:-build/tools/arraysim}
B=${ARRAYSIM_B:?set ARRAYSIM_B to the build to compare with}
REPEAT=${REPEAT:-3}
RUNTIME=${RUNTIME:-5}
FILES=${FILES:-1}
case $FILES in
1) WHERE=(--filename=f --offset_increment=16M) ;;
4) WHERE=(--filename_format='f.$jobnum') ;;
*) echo "parallel_edges: FILES is 1 or 4" >&2; exit 2 ;;
esac
BENCH_DIR=${BENCH_DIR:-/var/tmp/arraysim-bench}
mkdir -p "$BENCH_DIR"
RUN=$(mktemp -d "$BENCH_DIR/edges.XXXXXX")
MNT=""

cleanup() {
	local rc=$?
	[[ -n $MNT ]] && fuse_umount "$MNT"
	[[ -z $(mounts_below "$RUN") ]] && rm -rf "$RUN"
	exit "$rc"
}
trap cleanup EXIT INT TERM

# one BIN LABEL: a fresh store, the file laid out, the run's write IOPS.
one() {
	local bin=$1 dir=$RUN/$2.$3
	mkdir -p "$dir/s" "$dir/m"
	"$bin" mount --store "$dir/s" "$dir/m" >/dev/null
	MNT=$dir/m
	fio --name=layout --directory="$MNT" "${WHERE[@]}" --numjobs=4 --size=16M \
		--rw=write --bs=1M --ioengine=psync --refill_buffers --end_fsync=1 >/dev/null
	fio --name=edges --directory="$MNT" "${WHERE[@]}" --rw=randwrite --bs=6k \
		--ioengine=libaio --direct=1 --iodepth=8 --numjobs=4 --size=16M \
		--time_based --runtime="$RUNTIME" \
		--refill_buffers --group_reporting --output-format=json |
		python3 -c 'import json, sys; print(round(json.load(sys.stdin)["jobs"][0]["write"]["iops"]))'
	"$bin" umount "$MNT" >/dev/null
	MNT=""
}

machine_header
echo "- files: $FILES (4 writers)"
echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -a ra rb
for ((i = 1; i <= REPEAT; i++)); do
	ra+=("$(one "$A" a "$i")")
	rb+=("$(one "$B" b "$i")")
	echo "run $i: arraysim ${ra[-1]}  arraysim_b ${rb[-1]} IOPS"
done
python3 - "${ra[*]}" "${rb[*]}" <<'P'
import statistics, sys
a = [int(x) for x in sys.argv[1].split()]
b = [int(x) for x in sys.argv[2].split()]
ma, mb = statistics.median(a), statistics.median(b)
print(f"median: arraysim {ma:.0f} ({min(a)}-{max(a)}), arraysim_b {mb:.0f} "
      f"({min(b)}-{max(b)}) IOPS: {ma / mb:.2f}x")
P
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
