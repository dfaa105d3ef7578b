#!/usr/bin/env bash
# bench/core.sh: fio rows for raw / passthrough_ll / zfs-fuse / arraysim, side
# by side over one host directory. See bench/README.md.
#
#   bench/core.sh                       # full run (all systems, REPEAT=3)
#   QUICK=1 SYSTEMS="raw passthrough_ll zfs" bench/core.sh   # smoke test
#
# Environment (defaults in brackets):
#   SYSTEMS   systems to run ["raw passthrough_ll zfs arraysim"]
#   ROWS      row names to run [all; see `ROWS=list bench/core.sh`]
#   QUICK     1: RUNTIME=5 RAMP=2 [0]
#   RUNTIME   seconds measured per row [20; 5 with QUICK]
#   RAMP      ramp seconds per row, not measured [5; 2 with QUICK]
#   REPEAT    repetitions of every row, systems interleaved [3]
#   SIZE      fio file size per system [1G]
#   BENCH_DIR parent of the per-run temp dir [/var/tmp/arraysim-bench]
#   OUT_DIR   JSON + summary output [bench/out/core-<stamp>]
#   ARRAYSIM  the arraysim binary [build/tools/arraysim, relative to repo]
#   ARRAYSIM_MOUNT_OPTS  extra args for `arraysim mount` [none]
#   system arraysim_b: a second arraysim in the same run, for A/B rows
#   ARRAYSIM_B [ARRAYSIM], ARRAYSIM_B_MOUNT_OPTS [none], ARRAYSIM_B_LABEL
#   [arraysim_b] (e.g. an older build, or --metrics on)
#   system arraysim_c: a third, likewise (ARRAYSIM_C, ARRAYSIM_C_MOUNT_OPTS,
#   ARRAYSIM_C_LABEL [arraysim_c]): two baselines in one interleaved run
#   ZFS_VDEV_SIZE  sparse vdev file size [8G]
#   ZFS_FUSE_OPTS  extra args for the zfs-fuse daemon ["-m 1024": 1 GiB ARC; "" = /etc/zfs/zfsrc only]
#   DROP_CACHES 1: also drop the host page cache before each row (default: only sync) [0]
#   KEEP      1: keep the temp dir (data files, vdev, store) [0]
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"

QUICK=${QUICK:-0}
if [[ $QUICK == 1 ]]; then
	RUNTIME=${RUNTIME:-5}
	RAMP=${RAMP:-2}
else
	RUNTIME=${RUNTIME:-20}
	RAMP=${RAMP:-5}
fi
REPEAT=${REPEAT:-3}
SIZE=${SIZE:-1G}
SYSTEMS=${SYSTEMS:-raw passthrough_ll zfs arraysim}
# shellcheck disable=SC2086 # word splitting wanted
SYSTEMS=$(printf '%s\n' $SYSTEMS | sed 's/^zfs-fuse$/zfs/; s/^pll$/passthrough_ll/' | tr '\n' ' ')
BENCH_DIR=${BENCH_DIR:-/var/tmp/arraysim-bench}
ZFS_VDEV_SIZE=${ZFS_VDEV_SIZE:-8G}
ZFS_FUSE_OPTS=${ZFS_FUSE_OPTS--m 1024} # unset: 1 GiB ARC; set it empty for zfsrc (Debian: 100 MiB)
ARRAYSIM_MOUNT_OPTS=${ARRAYSIM_MOUNT_OPTS:-}
DROP_CACHES=${DROP_CACHES:-0}
KEEP=${KEEP:-0}
STAMP=$(date +%Y%m%d-%H%M%S)
OUT_DIR=${OUT_DIR:-$HERE/out/core-$STAMP}
ARRAYSIM=${ARRAYSIM:-build/tools/arraysim}
if [[ $ARRAYSIM != /* && ! -x $ARRAYSIM ]]; then ARRAYSIM=$REPO/$ARRAYSIM; fi
ARRAYSIM_B=${ARRAYSIM_B:-$ARRAYSIM}
ARRAYSIM_B_MOUNT_OPTS=${ARRAYSIM_B_MOUNT_OPTS:-}
export ARRAYSIM_B_LABEL=${ARRAYSIM_B_LABEL:-arraysim_b}
ARRAYSIM_C=${ARRAYSIM_C:-$ARRAYSIM}
ARRAYSIM_C_MOUNT_OPTS=${ARRAYSIM_C_MOUNT_OPTS:-}
export ARRAYSIM_C_LABEL=${ARRAYSIM_C_LABEL:-arraysim_c}
ROW_TIMEOUT=$((RUNTIME + RAMP + 180))

# ---------------------------------------------------------------- rows ----
# name | systems (all, or "direct": raw zfs arraysim) | fio args | meaning
ROW_DEFS=(
"rand4k_7030_qd1_psync|all|--bs=4k --rw=randrw --rwmixread=70 --ioengine=psync --iodepth=1|4k randrw 70/30, QD1, psync, buffered"
"rand4k_7030_qd32_uring|all|--bs=4k --rw=randrw --rwmixread=70 --ioengine=io_uring --iodepth=32|4k randrw 70/30, QD32, io_uring, buffered"
"rand4k_7030_qd32_libaio_direct|direct|--bs=4k --rw=randrw --rwmixread=70 --ioengine=libaio --iodepth=32 --direct=1|4k randrw 70/30, QD32, libaio, O_DIRECT"
"mix8k_5545_r80_qd1_psync|all|--bs=8k --rw=randrw --rwmixread=55 --percentage_random=80 --ioengine=psync --iodepth=1|8k randrw 55/45, 80% random, QD1, psync, buffered"
"mix8k_5545_r80_qd32_libaio_direct|direct|--bs=8k --rw=randrw --rwmixread=55 --percentage_random=80 --ioengine=libaio --iodepth=32 --direct=1|8k randrw 55/45, 80% random, QD32, libaio, O_DIRECT"
"randwrite4k_qd32x2_libaio_direct|direct|--bs=4k --rw=randwrite --ioengine=libaio --iodepth=32 --direct=1 --numjobs=2|4k random write, QD32 x 2 jobs, libaio, O_DIRECT (parallel writers: the group commit)"
"seqread_1m_qd8_uring|all|--bs=1M --rw=read --ioengine=io_uring --iodepth=8|1M sequential read, QD8, io_uring, buffered"
"seqwrite_1m_qd8_uring|all|--bs=1M --rw=write --ioengine=io_uring --iodepth=8|1M sequential write, QD8, io_uring, buffered"
"seqread_1m_qd8_libaio_direct|direct|--bs=1M --rw=read --ioengine=libaio --iodepth=8 --direct=1|1M sequential read, QD8, libaio, O_DIRECT"
"seqwrite_1m_qd8_libaio_direct|direct|--bs=1M --rw=write --ioengine=libaio --iodepth=8 --direct=1|1M sequential write, QD8, libaio, O_DIRECT"
)
if [[ ${ROWS:-} == list ]]; then
	for d in "${ROW_DEFS[@]}"; do IFS='|' read -r n s _ m <<<"$d"; printf '%-36s %-7s %s\n' "$n" "$s" "$m"; done
	exit 0
fi
ROWS=${ROWS:-}

# ------------------------------------------------------------- state ------
RUN_DIR=""          # per-run temp dir under BENCH_DIR
declare -A DIR=()   # system -> directory fio works in
declare -A DEAD=()  # system -> reason it is skipped
PLL_PID="" PLL_MNT=""
ZFS_PID="" ZFS_POOL="" ZFS_PIDFILE=""
AS_MNT="" AS_STORE=""
ASB_MNT="" ASB_STORE=""
ASC_MNT="" ASC_STORE=""
MANIFEST=""
CLEANED=0

# ----------------------------------------------------------- teardown -----
# unmount_arraysim BIN MNT STORE NAME: unmount one arraysim of the run and
# wait for its daemon to close the store.
unmount_arraysim() {
	local bin=$1 mnt=$2 store=$3 name=$4 pid
	if is_mounted "$mnt"; then
		log "unmounting $name at $mnt"
		timeout 60 "$bin" umount "$mnt" 2>/dev/null || fuse_umount "$mnt"
	fi
	for pid in $(arraysim_pids "$store"); do
		wait_pid_gone "$pid" 30 || stop_pid "$pid" "$name daemon"
	done
}

teardown_arraysim() {
	[[ -n $AS_MNT ]] || return 0
	is_mounted "$AS_MNT" &&
		{ "$ARRAYSIM" stats "$AS_MNT" --json >"$OUT_DIR/arraysim-stats-end.json" 2>/dev/null || true; }
	unmount_arraysim "$ARRAYSIM" "$AS_MNT" "$AS_STORE" arraysim
	AS_MNT=""
}

teardown_arraysim_b() {
	[[ -n $ASB_MNT ]] || return 0
	unmount_arraysim "$ARRAYSIM_B" "$ASB_MNT" "$ASB_STORE" arraysim_b
	ASB_MNT=""
}

teardown_arraysim_c() {
	[[ -n $ASC_MNT ]] || return 0
	unmount_arraysim "$ARRAYSIM_C" "$ASC_MNT" "$ASC_STORE" arraysim_c
	ASC_MNT=""
}

teardown_pll() {
	[[ -n $PLL_MNT ]] || return 0
	log "unmounting passthrough_ll at $PLL_MNT"
	fuse_umount "$PLL_MNT"
	stop_pid "$PLL_PID" passthrough_ll
	wait "$PLL_PID" 2>/dev/null || true
	PLL_MNT="" PLL_PID=""
}

teardown_zfs() {
	if [[ -n $ZFS_POOL ]]; then
		log "destroying zfs pool $ZFS_POOL"
		local i
		for i in 1 2 3 4 5 6; do
			zpool list -H "$ZFS_POOL" >/dev/null 2>&1 || break
			zfs unmount -f "$ZFS_POOL/bench" >/dev/null 2>&1 || true
			zpool destroy -f "$ZFS_POOL" 2>/dev/null && break
			sleep 2
		done
		zpool list -H "$ZFS_POOL" >/dev/null 2>&1 && warn "pool $ZFS_POOL still present; stopping daemon anyway"
		ZFS_POOL=""
	fi
	if [[ -z $ZFS_PID && -n $ZFS_PIDFILE ]]; then # started, but no pid read yet
		ZFS_PID=$(cat "$ZFS_PIDFILE" 2>/dev/null || pgrep -f -- "--pidfile $ZFS_PIDFILE" | head -1 || true)
	fi
	if [[ -n $ZFS_PID ]]; then
		log "stopping zfs-fuse (pid $ZFS_PID)"
		stop_pid "$ZFS_PID" zfs-fuse
		ZFS_PID=""
	fi
}

cleanup() {
	local rc=$?
	[[ $CLEANED == 1 ]] && return
	CLEANED=1
	set +e
	trap '' INT TERM
	# A signal can arrive while a redirection (e.g. fio's 2>file) is active:
	# go back to the script's own stdout/stderr first.
	exec 1>&4 2>&3
	kill_child
	teardown_arraysim
	teardown_arraysim_b
	teardown_arraysim_c
	teardown_pll
	teardown_zfs
	if [[ -n $RUN_DIR && -d $RUN_DIR ]]; then
		local m
		for m in $(mounts_below "$RUN_DIR" | sort -r); do fuse_umount "$m"; done
		if [[ -n $(mounts_below "$RUN_DIR") ]]; then
			warn "still mounted below $RUN_DIR; NOT deleting it"
		elif [[ $KEEP == 1 ]]; then
			log "keeping $RUN_DIR"
		else
			rm -rf -- "$RUN_DIR"
		fi
	fi
	if [[ -n $MANIFEST && -s $MANIFEST ]]; then
		summarize || true
	fi
	[[ $rc != 0 ]] && warn "exiting with status $rc"
	exit "$rc"
}
exec 3>&2 4>&1 # the original stderr/stdout, for cleanup
trap cleanup EXIT
trap 'warn "interrupted" 2>&3; exit 130' INT
trap 'warn "terminated" 2>&3; exit 143' TERM

# -------------------------------------------------------------- setup -----
setup_raw() {
	mkdir -p "$RUN_DIR/host/raw"
	DIR[raw]=$RUN_DIR/host/raw
}

setup_passthrough_ll() {
	local src=/usr/share/doc/libfuse3-dev/examples bin=$OUT_DIR/passthrough_ll
	[[ -f $src/passthrough_ll.c ]] || { echo "missing $src/passthrough_ll.c (install libfuse3-dev)"; return 1; }
	local b=$RUN_DIR/build-pll
	mkdir -p "$b"
	cp "$src/passthrough_ll.c" "$src/passthrough_helpers.h" "$b/"
	# shellcheck disable=SC2046
	cc -O2 -Wall -o "$bin" "$b/passthrough_ll.c" $(pkg-config --cflags --libs fuse3) || { echo "compile failed"; return 1; }
	mkdir -p "$RUN_DIR/host/pll" "$RUN_DIR/mnt/pll"
	PLL_MNT=$RUN_DIR/mnt/pll
	# -f keeps it in the foreground (so we own its pid); still multi-threaded.
	"$bin" -f -o "source=$RUN_DIR/host/pll,cache=never" "$PLL_MNT" >"$OUT_DIR/passthrough_ll.log" 2>&1 3>&- 4>&- &
	PLL_PID=$!
	wait_mounted "$PLL_MNT" 20 || { echo "passthrough_ll did not mount (see $OUT_DIR/passthrough_ll.log)"; return 1; }
	DIR[passthrough_ll]=$PLL_MNT
}

setup_zfs() {
	command -v zfs-fuse >/dev/null || { echo "zfs-fuse not installed (apt-get install zfs-fuse)"; return 1; }
	if pgrep -x zfs-fuse >/dev/null; then
		echo "a zfs-fuse daemon is already running (pid $(pgrep -x zfs-fuse | tr '\n' ' ')); not touching it"
		return 1
	fi
	[[ -c /dev/fuse ]] || { echo "no /dev/fuse"; return 1; }
	ZFS_PIDFILE=$RUN_DIR/zfs-fuse.pid
	# shellcheck disable=SC2086
	zfs-fuse --pidfile "$ZFS_PIDFILE" --no-kstat-mount $ZFS_FUSE_OPTS 3>&- 4>&- || { echo "zfs-fuse failed to start"; return 1; }
	local i
	for i in $(seq 50); do [[ -s $ZFS_PIDFILE ]] && break; sleep 0.1; done
	ZFS_PID=$(cat "$ZFS_PIDFILE" 2>/dev/null || true)
	[[ -n $ZFS_PID ]] || { echo "zfs-fuse wrote no pidfile"; return 1; }
	for i in $(seq 50); do zpool list >/dev/null 2>&1 && break; sleep 0.2; done
	mkdir -p "$RUN_DIR/host/zfs" "$RUN_DIR/mnt/zfs"
	truncate -s "$ZFS_VDEV_SIZE" "$RUN_DIR/host/zfs/vdev0"
	ZFS_POOL=abench$$
	zpool create -f -m "$RUN_DIR/mnt/zfs" "$ZFS_POOL" "$RUN_DIR/host/zfs/vdev0" || { ZFS_POOL=""; echo "zpool create failed"; return 1; }
	# zfs-fuse (pool v23) has no `sync` property; sync semantics are its default.
	zfs create -o dedup=on -o recordsize=4K -o compression=off -o atime=off "$ZFS_POOL/bench" || { echo "zfs create failed"; return 1; }
	zfs get -H -o property,value dedup,recordsize,compression,atime,checksum "$ZFS_POOL/bench" >"$OUT_DIR/zfs-props.txt"
	local mp
	mp=$(zfs get -H -o value mountpoint "$ZFS_POOL/bench")
	wait_mounted "$mp" 20 || { echo "dataset not mounted at $mp"; return 1; }
	DIR[zfs]=$mp
}

# mount_arraysim BIN STORE MNT NAME OPTS: mount one arraysim of the run.
mount_arraysim() {
	local bin=$1 store=$2 mnt=$3 name=$4 opts=$5
	[[ -x $bin ]] || { echo "no arraysim binary at $bin (build it, or set ARRAYSIM=/ARRAYSIM_B=)"; return 1; }
	mkdir -p "$store" "$mnt"
	# shellcheck disable=SC2086 # options split on purpose
	"$bin" mount --store "$store" $opts "$mnt" >"$OUT_DIR/$name-mount.log" 2>&1 3>&- 4>&- ||
		{ echo "$name mount failed: $(tail -3 "$OUT_DIR/$name-mount.log" | tr '\n' ' ')"; return 1; }
	wait_mounted "$mnt" 20 || { echo "$name did not mount (see $OUT_DIR/$name-mount.log)"; return 1; }
	DIR[$name]=$mnt
}

setup_arraysim() {
	AS_STORE=$RUN_DIR/host/arraysim-store
	AS_MNT=$RUN_DIR/mnt/arraysim
	mount_arraysim "$ARRAYSIM" "$AS_STORE" "$AS_MNT" arraysim "$ARRAYSIM_MOUNT_OPTS"
}

setup_arraysim_b() {
	ASB_STORE=$RUN_DIR/host/arraysim-b-store
	ASB_MNT=$RUN_DIR/mnt/arraysim-b
	mount_arraysim "$ARRAYSIM_B" "$ASB_STORE" "$ASB_MNT" arraysim_b "$ARRAYSIM_B_MOUNT_OPTS"
}

setup_arraysim_c() {
	ASC_STORE=$RUN_DIR/host/arraysim-c-store
	ASC_MNT=$RUN_DIR/mnt/arraysim-c
	mount_arraysim "$ARRAYSIM_C" "$ASC_STORE" "$ASC_MNT" arraysim_c "$ARRAYSIM_C_MOUNT_OPTS"
}

setup_system() {
	local s=$1 why
	case $s in
	raw | passthrough_ll | zfs | arraysim | arraysim_b | arraysim_c) ;;
	*) DEAD[$s]="unknown system"; warn "unknown system '$s' (raw passthrough_ll zfs arraysim)"; return 0 ;;
	esac
	log "setting up $s"
	# Run in this shell (setup functions set globals); keep output for the reason.
	if setup_"$s" >"$OUT_DIR/setup-$s.log" 2>&1; then :; else
		why=$(grep -v '^$' "$OUT_DIR/setup-$s.log" | tail -2 | tr '\n' ' ')
		DEAD[$s]=${why:-setup failed}
		warn "skipping $s: ${DEAD[$s]}"
		case $s in
		passthrough_ll) teardown_pll ;; zfs) teardown_zfs ;; arraysim) teardown_arraysim ;;
		arraysim_b) teardown_arraysim_b ;;
		arraysim_c) teardown_arraysim_c ;;
		esac
	fi
}

# ------------------------------------------------------------- running ----
drop_caches() {
	sync # flush the previous row's dirty pages so they do not land in this row
	[[ $DROP_CACHES == 1 ]] || return 0
	echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
}

alive() {
	local s=$1
	[[ -z ${DEAD[$s]:-} ]] || return 1
	case $s in
	raw) return 0 ;;
	*) if ! is_mounted "${DIR[$s]}"; then DEAD[$s]="mount vanished during the run"; warn "$s: mount vanished"; return 1; fi ;;
	esac
}

layout() {
	local s=$1 f=${DIR[$1]}/bench.dat t0 t1
	log "laying out $SIZE for $s"
	t0=$(date +%s.%N)
	if ! run_child timeout -k 20 1800 fio --name=layout --filename="$f" --size="$SIZE" --rw=write --bs=1M \
		--ioengine=psync --refill_buffers --randrepeat=0 --end_fsync=1 \
		--output-format=json --output="$OUT_DIR/layout-$s.json" 2>"$OUT_DIR/layout-$s.err"; then
		DEAD[$s]="layout failed: $(tail -2 "$OUT_DIR/layout-$s.err" | tr '\n' ' ')"
		warn "$s: ${DEAD[$s]}"
		return 0
	fi
	t1=$(date +%s.%N)
	log "$s layout: $(awk -v a="$t0" -v b="$t1" -v s="$SIZE" 'BEGIN { printf "%.1f s", b - a }')"
	[[ $s == arraysim ]] && { "$ARRAYSIM" stats "$AS_MNT" --json >"$OUT_DIR/arraysim-stats-layout.json" 2>/dev/null || true; }
	return 0
}

run_row() {
	local rep=$1 row=$2 s=$3 args=$4
	local f=${DIR[$s]}/bench.dat base=$OUT_DIR/$row.$s.r$rep
	drop_caches
	log "rep $rep  $row  $s"
	# shellcheck disable=SC2086
	if run_child timeout -k 20 "$ROW_TIMEOUT" fio --name="$row" --filename="$f" --size="$SIZE" \
		--time_based --runtime="$RUNTIME" --ramp_time="$RAMP" --numjobs=1 \
		--refill_buffers --randrepeat=0 --fsync_on_close=1 --invalidate=1 --group_reporting \
		$args --output-format=json --output="$base.json" 2>"$base.err"; then
		printf '%s\t%s\t%s\tok\t%s\t\n' "$rep" "$row" "$s" "$base.json" >>"$MANIFEST"
	else
		local why
		why=$(grep -v '^$' "$base.err" | tail -2 | tr '\n\t' '  ')
		[[ -n $why ]] || why="fio exited non-zero"
		warn "$row on $s: n/a: $why"
		printf '%s\t%s\t%s\tna\t%s\t%s\n' "$rep" "$row" "$s" "$base.json" "$why" >>"$MANIFEST"
	fi
}

summarize() {
	python3 "$HERE/summarize.py" "$MANIFEST" "$OUT_DIR/header.md" "$OUT_DIR/rows.tsv" >"$OUT_DIR/summary.md"
	cat "$OUT_DIR/summary.md"
	log "summary: $OUT_DIR/summary.md"
}

# ---------------------------------------------------------------- main ----
[[ $EUID == 0 ]] || warn "not root: FUSE mounts, zfs-fuse and drop_caches may fail"
command -v fio >/dev/null || { echo "fio missing" >&2; exit 1; }
mkdir -p "$OUT_DIR" "$BENCH_DIR"
RUN_DIR=$(mktemp -d "$BENCH_DIR/run.XXXXXX")
MANIFEST=$OUT_DIR/manifest.tsv
: >"$MANIFEST"
: >"$OUT_DIR/rows.tsv"
for d in "${ROW_DEFS[@]}"; do
	IFS='|' read -r n s a m <<<"$d"
	if [[ -n $ROWS && " $ROWS " != *" $n "* ]]; then continue; fi
	printf '%s\t%s\t%s\t%s\n' "$n" "$s" "$a" "$m" >>"$OUT_DIR/rows.tsv"
done
[[ -s $OUT_DIR/rows.tsv ]] || { echo "no rows selected (ROWS=list shows names)" >&2; exit 1; }

{
	echo "# arraysim core benchmark"
	echo
	machine_header
	echo "- command: ${QUICK:+QUICK=$QUICK }SYSTEMS=\"$SYSTEMS\" REPEAT=$REPEAT RUNTIME=$RUNTIME RAMP=$RAMP SIZE=$SIZE ${ROWS:+ROWS=\"$ROWS\" }$0 $*"
	[[ " $SYSTEMS " == *" zfs "* ]] && echo "- zfs-fuse config: /etc/zfs/zfsrc: $(grep -v '^#' /etc/zfs/zfsrc 2>/dev/null | grep . | tr '\n' ';' || echo none); ZFS_FUSE_OPTS='$ZFS_FUSE_OPTS'"
	echo "- host dir: $RUN_DIR (fs: $(stat -f -c %T "$RUN_DIR"))"
	echo "- fio common: --size=$SIZE --time_based --runtime=$RUNTIME --ramp_time=$RAMP --numjobs=1 --refill_buffers --randrepeat=0 --fsync_on_close=1 --invalidate=1 (fio default); page cache dropped before each run: $DROP_CACHES"
} >"$OUT_DIR/header.md"
cat "$OUT_DIR/header.md" >&2

for s in $SYSTEMS; do setup_system "$s"; done
ACTIVE=()
for s in $SYSTEMS; do [[ -z ${DEAD[$s]:-} ]] && ACTIVE+=("$s"); done
for s in "${ACTIVE[@]}"; do layout "$s"; done
{
	echo "- systems:"
	for s in $SYSTEMS; do
		if [[ -n ${DEAD[$s]:-} ]]; then echo "  - $s: SKIPPED: ${DEAD[$s]}"; else echo "  - $s: ${DIR[$s]}"; fi
	done
	[[ -f $OUT_DIR/zfs-props.txt ]] && echo "  - zfs dataset: $(tr '\t\n' '= ' <"$OUT_DIR/zfs-props.txt")"
	for s in "${ACTIVE[@]}"; do
		[[ -f $OUT_DIR/layout-$s.json ]] || continue
		python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))["jobs"][0]["write"]; print("  - layout %s: %.1f MB/s" % (sys.argv[2], j["bw_bytes"]/1e6))' \
			"$OUT_DIR/layout-$s.json" "$s" 2>/dev/null || true
	done
} >>"$OUT_DIR/header.md"
((${#ACTIVE[@]})) || { echo "no system could be set up" >&2; exit 1; }

for ((rep = 1; rep <= REPEAT; rep++)); do
	# rotate the system order each repetition so no system always goes first
	n=${#ACTIVE[@]}
	order=()
	for ((i = 0; i < n; i++)); do order+=("${ACTIVE[$(((i + rep - 1) % n))]}"); done
	while IFS=$'\t' read -r row which args _; do
		for s in "${order[@]}"; do
			if [[ $which == direct && $s == passthrough_ll ]]; then continue; fi
			alive "$s" || continue
			run_row "$rep" "$row" "$s" "$args"
		done
	done <"$OUT_DIR/rows.tsv"
done
log "done; tearing down"
exit 0
