#!/usr/bin/env bash
# bench/cpu_budget.sh: what each microsecond of a request is spent on, from
# perf, for the rows of issue 15 that miss their targets: arraysim (default
# mount: null profile, dedupe and verify on) and passthrough_ll
# (`cache=never`, the same baseline core.sh uses), side by side.
#
# For each row and system, perf records every CPU (cpu-clock, system-wide)
# while fio runs; bench/cpu_budget.py buckets the samples of the daemon,
# of fio (with the kernel work done in its context: page cache, FUSE
# request queueing) and of kernel threads, and divides by fio's completed
# requests (the sequential write row: by MiB written, next to openssl's
# SHA-1 rate for 1 MiB on this host). CPU time per request is what decides
# the QD1 rows on two vCPUs, and it is steady under load where wall-clock
# IOPS are not; the IOPS printed beside it are the run's, not a benchmark.
#
#   bench/cpu_budget.sh                     # 4 rows x 2 systems, 8 s each
#   ROWS="rand4k_7030_qd1_psync" RUNTIME=5 bench/cpu_budget.sh
#
# Writes bench/out/budget-<stamp>/summary.md (and the perf reports).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh

ARRAYSIM=${ARRAYSIM:-build/tools/arraysim}
[[ $ARRAYSIM == /* ]] || ARRAYSIM=$PWD/$ARRAYSIM
RUNTIME=${RUNTIME:-8}
ARRAYSIM_MOUNT_OPTS=${ARRAYSIM_MOUNT_OPTS:-} # e.g. "-o io_uring=on"
TOP=${TOP:-12} # the daemon's heaviest symbols listed per run
SIZE=${SIZE:-512M}
SYSTEMS=${SYSTEMS:-"passthrough_ll arraysim"}
ROWS=${ROWS:-"rand4k_7030_qd1_psync rand4k_7030_qd32_uring mix8k_5545_r80_qd1_psync seqwrite_1m_qd8_uring"}
BENCH_DIR=${BENCH_DIR:-/var/tmp/arraysim-bench}
OUT_DIR=${OUT_DIR:-$PWD/bench/out/budget-$(date -u +%Y%m%d-%H%M%S)}

declare -A ARGS=(
	[rand4k_7030_qd1_psync]="--bs=4k --rw=randrw --rwmixread=70 --ioengine=psync --iodepth=1"
	[rand4k_7030_qd32_uring]="--bs=4k --rw=randrw --rwmixread=70 --ioengine=io_uring --iodepth=32"
	[mix8k_5545_r80_qd1_psync]="--bs=8k --rw=randrw --rwmixread=55 --percentage_random=80 --ioengine=psync --iodepth=1"
	[seqwrite_1m_qd8_uring]="--bs=1M --rw=write --ioengine=io_uring --iodepth=8"
	[seqread_1m_qd8_uring]="--bs=1M --rw=read --ioengine=io_uring --iodepth=8"
)

for t in perf fio python3 cc openssl; do
	command -v "$t" >/dev/null || { echo "cpu_budget: $t is missing" >&2; exit 2; }
done
[[ -x $ARRAYSIM ]] || { echo "cpu_budget: no arraysim at $ARRAYSIM" >&2; exit 2; }
mkdir -p "$OUT_DIR" "$BENCH_DIR"
RUN_DIR=$(mktemp -d "$BENCH_DIR/budget.XXXXXX")
declare -A DIR
PLL_PID="" AS_MNT=""

cleanup() {
	local rc=$?
	[[ -n $AS_MNT ]] && { "$ARRAYSIM" umount "$AS_MNT" 2>/dev/null || fuse_umount "$AS_MNT"; }
	[[ -n $PLL_PID ]] && { fuse_umount "$RUN_DIR/mnt/pll"; stop_pid "$PLL_PID" passthrough_ll; }
	[[ -z $(mounts_below "$RUN_DIR") ]] && rm -rf "$RUN_DIR"
	exit "$rc"
}
trap cleanup EXIT INT TERM

setup_passthrough_ll() {
	local src=/usr/share/doc/libfuse3-dev/examples bin=$OUT_DIR/passthrough_ll
	# shellcheck disable=SC2046
	cc -O2 -Wall -I"$src" -o "$bin" "$src/passthrough_ll.c" $(pkg-config --cflags --libs fuse3)
	mkdir -p "$RUN_DIR/host/pll" "$RUN_DIR/mnt/pll"
	"$bin" -f -o "source=$RUN_DIR/host/pll,cache=never" "$RUN_DIR/mnt/pll" \
		>"$OUT_DIR/passthrough_ll.log" 2>&1 &
	PLL_PID=$!
	wait_mounted "$RUN_DIR/mnt/pll" 20
	DIR[passthrough_ll]=$RUN_DIR/mnt/pll
}

setup_arraysim() {
	mkdir -p "$RUN_DIR/host/as" "$RUN_DIR/mnt/as"
	# shellcheck disable=SC2086 # options are words
	"$ARRAYSIM" mount --store "$RUN_DIR/host/as" $ARRAYSIM_MOUNT_OPTS "$RUN_DIR/mnt/as" \
		>"$OUT_DIR/arraysim-mount.log" 2>&1
	AS_MNT=$RUN_DIR/mnt/as
	wait_mounted "$AS_MNT" 20
	DIR[arraysim]=$AS_MNT
}

# requests and MiB written that fio's JSON reports
fio_counts() {
	python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
n = j["read"]["total_ios"] + j["write"]["total_ios"]
print(n, j["write"]["io_kbytes"] / 1024, n / (j["job_runtime"] / 1000))' "$1"
}

measure() {
	local row=$1 s=$2 base=$OUT_DIR/$1.$2 n mib iops
	sync
	# shellcheck disable=SC2086 # the row's arguments split on purpose
	perf record -q -e cpu-clock -a -F 1999 -o "$base.data" -- \
		fio --name="$row" --filename="${DIR[$s]}/bench.dat" --size="$SIZE" \
		--time_based --runtime="$RUNTIME" --numjobs=1 --refill_buffers \
		--randrepeat=0 --invalidate=1 ${ARGS[$row]} \
		--output-format=json --output="$base.json" 2>"$base.err" >/dev/null
	perf report -i "$base.data" --no-children --sort comm,dso,sym \
		-F period,comm,dso,sym -q -t $'\t' >"$base.tsv" 2>/dev/null
	rm -f "$base.data"
	read -r n mib iops < <(fio_counts "$base.json")
	{
		echo "### $row on $s: $n requests, $(printf '%.0f' "$iops")/s in this run"
		echo
		[[ $row == seqwrite* ]] || mib=0
		python3 bench/cpu_budget.py "$base.tsv" "$n" "$mib" "$TOP"
		echo
	} >>"$OUT_DIR/summary.md"
}

{
	echo "# CPU per request, bench/cpu_budget.sh"
	machine_header
	echo "- load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "- RUNTIME=$RUNTIME SIZE=$SIZE"
	# SHA-1 alone over 4 KiB buffers, one core: what 1 MiB costs at best.
	openssl speed -evp sha1 -bytes 4096 -seconds 2 2>/dev/null |
		awk '/^sha1/ { r = $NF; sub(/k$/, "", r);
			printf "- openssl SHA-1, 4 KiB blocks, one core: %.0f MB/s = %.0f us per MiB\n",
				r * 1000 / 1e6, 1048576 / (r * 1000) * 1e6 }'
	echo
} >"$OUT_DIR/summary.md"

for s in $SYSTEMS; do
	log "setting up $s"
	"setup_$s"
	log "laying out $SIZE on $s"
	fio --name=layout --filename="${DIR[$s]}/bench.dat" --size="$SIZE" --rw=write --bs=1M \
		--ioengine=psync --refill_buffers --randrepeat=0 --end_fsync=1 >/dev/null
done
for row in $ROWS; do
	[[ -n ${ARGS[$row]:-} ]] || { echo "cpu_budget: unknown row $row" >&2; exit 2; }
	for s in $SYSTEMS; do
		log "$row on $s"
		measure "$row" "$s"
	done
done
echo "- load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT_DIR/summary.md"
cat "$OUT_DIR/summary.md"
