#!/usr/bin/env bash
# bench/metadata.sh: metadata cost per unique block of an arraysim mount.
#
# Writes SIZE GiB of unique data (fio, bs=1M sequential, refill_buffers, one
# file) into a fresh arraysim mount, one GiB at a time, fsyncing each GiB, and
# after each GiB samples:
#   - metadata bytes on disk: du -B1 STORE/meta (the LMDB env dir; allocated
#     blocks, not apparent size) / unique_blocks (arraysim stats --json)
#   - the daemon's RSS (VmRSS; RssAnon and RssFile apart: LMDB is mmapped, so
#     its touched pages show up in RssFile) / unique_blocks
# Targets: <= 64 bytes/block on disk; RSS flat as data grows.
#
# Environment: SIZE (GiB, integer) [4], BENCH_DIR [/var/tmp/arraysim-bench],
# ARRAYSIM [build/tools/arraysim], ARRAYSIM_MOUNT_OPTS [], OUT_DIR
# [bench/out/metadata-<stamp>], KEEP=1 keeps the store.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
# shellcheck source=bench/lib.sh
. "$HERE/lib.sh"

SIZE=${SIZE:-4}
SIZE=${SIZE%[Gg]}
[[ $SIZE =~ ^[0-9]+$ && $SIZE -ge 1 ]] || { echo "SIZE must be whole GiB (e.g. 4)" >&2; exit 2; }
BENCH_DIR=${BENCH_DIR:-/var/tmp/arraysim-bench}
ARRAYSIM=${ARRAYSIM:-build/tools/arraysim}
if [[ $ARRAYSIM != /* && ! -x $ARRAYSIM ]]; then ARRAYSIM=$REPO/$ARRAYSIM; fi
ARRAYSIM_MOUNT_OPTS=${ARRAYSIM_MOUNT_OPTS:-}
KEEP=${KEEP:-0}
OUT_DIR=${OUT_DIR:-$HERE/out/metadata-$(date +%Y%m%d-%H%M%S)}
TARGET_BPB=64

RUN_DIR="" MNT="" STORE="" CLEANED=0

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
	if [[ -n $MNT ]] && is_mounted "$MNT"; then
		log "unmounting $MNT"
		timeout 60 "$ARRAYSIM" umount "$MNT" 2>/dev/null || fuse_umount "$MNT"
	fi
	local pid
	if [[ -n $STORE ]]; then
		for pid in $(arraysim_pids "$STORE"); do
			wait_pid_gone "$pid" 30 || stop_pid "$pid" "arraysim daemon"
		done
	fi
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
	[[ $rc != 0 ]] && warn "exiting with status $rc"
	exit "$rc"
}
exec 3>&2 4>&1 # the original stderr/stdout, for cleanup
trap cleanup EXIT
trap 'warn "interrupted" 2>&3; exit 130' INT
trap 'warn "terminated" 2>&3; exit 143' TERM

[[ -x $ARRAYSIM ]] || { echo "no arraysim binary at $ARRAYSIM (build it, or set ARRAYSIM=)" >&2; exit 1; }
mkdir -p "$OUT_DIR" "$BENCH_DIR"
RUN_DIR=$(mktemp -d "$BENCH_DIR/meta.XXXXXX")
STORE=$RUN_DIR/store
MNT=$RUN_DIR/mnt
mkdir -p "$STORE" "$MNT"

{
	echo "# arraysim metadata cost"
	echo
	machine_header
	echo "- command: SIZE=$SIZE ${ARRAYSIM_MOUNT_OPTS:+ARRAYSIM_MOUNT_OPTS=\"$ARRAYSIM_MOUNT_OPTS\" }$0"
	echo "- arraysim: $ARRAYSIM mount --store $STORE $ARRAYSIM_MOUNT_OPTS $MNT"
	echo "- data: fio bs=1M sequential write, refill_buffers, randrepeat=0, end_fsync=1; $SIZE x 1 GiB into one file"
} | tee "$OUT_DIR/summary.md" >&2

# shellcheck disable=SC2086
"$ARRAYSIM" mount --store "$STORE" $ARRAYSIM_MOUNT_OPTS "$MNT" >"$OUT_DIR/mount.log" 2>&1 3>&- 4>&- ||
	{ cat "$OUT_DIR/mount.log" >&2; echo "arraysim mount failed" >&2; exit 1; }
wait_mounted "$MNT" 20 || { echo "arraysim did not mount" >&2; exit 1; }

daemon_pid() {
	# the largest-RSS process serving this store (in case it forks helpers)
	local p best="" bestr=-1 r
	for p in $(arraysim_pids "$STORE"); do
		r=$(awk '/^VmRSS:/ { print $2 }' "/proc/$p/status" 2>/dev/null || echo -1)
		if ((${r:--1} > bestr)); then best=$p bestr=$r; fi
	done
	echo "$best"
}
PID=$(daemon_pid)
[[ -n $PID ]] || { echo "cannot find the arraysim daemon for $STORE (pgrep -f -- '--store $STORE')" >&2; exit 1; }
log "daemon pid $PID"

unique_blocks() { # from stats JSON, wherever the key sits
	python3 -c '
import json, sys
def find(o):
    if isinstance(o, dict):
        if "unique_blocks" in o: return o["unique_blocks"]
        for v in o.values():
            r = find(v)
            if r is not None: return r
    elif isinstance(o, list):
        for v in o:
            r = find(v)
            if r is not None: return r
    return None
t = sys.stdin.read(); r = find(json.loads(t[t.index("{"):]))
print(r if r is not None else "")' <"$1"
}

SAMPLES=$OUT_DIR/samples.tsv
printf 'gib\tunique_blocks\tmeta_du\tvmrss\trss_anon\trss_file\n' >"$SAMPLES"
RSS0=$(rss_of "$PID" | cut -f1)
log "RSS after mount: $((RSS0 / 1024)) KiB"
for ((g = 1; g <= SIZE; g++)); do
	log "writing GiB $g/$SIZE"
	# Extend the file first (sparse) so fio finds it big enough and does not
	# "lay out" (zero-fill or fallocate) anything itself: only unique data.
	truncate -s "$((g * 1024))M" "$MNT/data.bin"
	run_child timeout -k 20 3600 fio --name=meta --filename="$MNT/data.bin" --rw=write --bs=1M --ioengine=psync \
		--offset=$(((g - 1) * 1024))M --size=1024M --refill_buffers --randrepeat=0 --end_fsync=1 \
		--output-format=json --output="$OUT_DIR/write-$g.json" 2>"$OUT_DIR/write-$g.err" ||
		{ cat "$OUT_DIR/write-$g.err" >&2; echo "fio failed at GiB $g" >&2; exit 1; }
	sync -f "$MNT/data.bin" 2>/dev/null || sync
	kill -0 "$PID" 2>/dev/null || { echo "arraysim daemon (pid $PID) died" >&2; exit 1; }
	"$ARRAYSIM" stats "$MNT" --json >"$OUT_DIR/stats-$g.json" 2>"$OUT_DIR/stats-$g.err" ||
		{ cat "$OUT_DIR/stats-$g.err" >&2; echo "arraysim stats failed" >&2; exit 1; }
	ub=$(unique_blocks "$OUT_DIR/stats-$g.json")
	[[ -n $ub ]] || { echo "no unique_blocks in stats JSON ($OUT_DIR/stats-$g.json)" >&2; exit 1; }
	du_meta=$(du -s -B1 "$STORE/meta" | cut -f1)
	printf '%s\t%s\t%s\t%s\n' "$g" "$ub" "$du_meta" "$(rss_of "$PID")" >>"$SAMPLES"
	log "GiB $g: unique_blocks=$ub meta_du=$du_meta rss=$(rss_of "$PID" | cut -f1)"
done

# Unmounted, the store keeps only the pages LMDB uses (the allocated
# reserve kept ahead of them while mounted is given back): measure that too,
# with LMDB's own page counts per table.
log "unmounting to measure the closed store"
timeout 120 "$ARRAYSIM" umount "$MNT" || { echo "arraysim umount failed" >&2; exit 1; }
du -s -B1 "$STORE/meta" | cut -f1 >"$OUT_DIR/closed-du"
mdb_stat -efa "$STORE/meta" >"$OUT_DIR/mdb_stat.txt" 2>&1 || warn "mdb_stat failed (lmdb-utils installed?)"

python3 - "$SAMPLES" "$RSS0" "$TARGET_BPB" "$OUT_DIR" <<'EOF' | tee -a "$OUT_DIR/summary.md"
import csv, json, sys
samples, rss0, target, out = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
rows = list(csv.DictReader(open(samples), delimiter="\t"))
mb = lambda b: b / 1048576
print(f"- daemon RSS right after mount: {mb(rss0):.1f} MiB")
print()
print("| GiB written | unique blocks | meta on disk (du) | bytes/block (target <= %d) | VmRSS MiB | RssAnon MiB | RssFile MiB | RSS bytes/block | write MB/s |" % target)
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    g, ub, du, rss, ra, rf = (int(r[k]) for k in ("gib", "unique_blocks", "meta_du", "vmrss", "rss_anon", "rss_file"))
    try:
        bw = json.load(open(f"{out}/write-{g}.json"))["jobs"][0]["write"]["bw_bytes"] / 1e6
        bw = f"{bw:.1f}"
    except Exception:
        bw = "-"
    bpb = du / ub if ub else float("nan")
    print(f"| {g} | {ub:,} | {du:,} | {bpb:.1f} {'ok' if bpb <= target else 'OVER'} | {mb(rss):.1f} | {mb(ra):.1f} | {mb(rf):.1f} | {rss / ub if ub else float('nan'):.1f} | {bw} |")
print()
last = rows[-1]
ub, du = int(last["unique_blocks"]), int(last["meta_du"])
exp = sum(1 for _ in rows) * 262144
print(f"- unique blocks at the end: {ub:,} (expected ~{exp:,} for all-unique data: {100 * ub / exp:.1f}%)")
bpb = du / ub if ub else float("inf")
print(f"- metadata on disk while mounted (incl. the allocated reserve): {bpb:.1f} bytes/unique block")
closed = int(open(f"{out}/closed-du").read())
cbpb = closed / ub if ub else float("inf")
print(f"- metadata on disk after unmount (du): {closed:,} bytes = {cbpb:.1f} bytes/unique block -> target <= {target:.0f}: {'MET' if cbpb <= target else 'NOT MET'}")
try:
    import re
    text = open(f"{out}/mdb_stat.txt").read()
    psize = int(re.search(r"Page size: (\d+)", text).group(1))
    used = int(re.search(r"Number of pages used: (\d+)", text).group(1))
    free = int(re.search(r"Free pages: (\d+)", text).group(1))
    print(f"- LMDB pages (mdb_stat -efa): {used:,} in the file, bytes per unique block:")
    rest = used - free
    for m in re.finditer(r"Status of (\S+)\n(?:.*\n)*?\s+Branch pages: (\d+)\n\s+Leaf pages: (\d+)\n\s+Overflow pages: (\d+)", text):
        pages = sum(int(x) for x in m.groups()[1:])
        rest -= pages
        if pages > 16:
            print(f"  - {m.group(1)}: {pages:,} pages, {pages * psize / ub:.1f}")
    # mdb_stat does not descend into a DUPSORT sub-tree: fpindex's items
    # are the pages no table above accounts for.
    print(f"  - fpindex items (its DUPSORT sub-tree): {rest:,} pages, {rest * psize / ub:.1f}")
    print(f"  - free (reusable) pages: {free:,}, {free * psize / ub:.1f}")
except Exception as e:
    print(f"- (no per-table page counts: {e})")
if len(rows) >= 2:
    first = rows[0]
    d_gib = int(last["gib"]) - int(first["gib"])
    d_blk = int(last["unique_blocks"]) - int(first["unique_blocks"])
    for key, name in (("vmrss", "VmRSS"), ("rss_anon", "RssAnon"), ("rss_file", "RssFile")):
        d = int(last[key]) - int(first[key])
        per_blk = d / d_blk if d_blk else 0.0
        print(f"- {name} growth from {first['gib']} to {last['gib']} GiB: {mb(d):+.1f} MiB ({mb(d) / d_gib:+.1f} MiB/GiB, {per_blk:+.2f} bytes per added unique block)")
    d = int(last["vmrss"]) - int(first["vmrss"])
    # "flat": grows by less than 2 bytes per added unique block (0.5 MiB/GiB)
    flat = d_blk == 0 or d / d_blk < 2.0
    print(f"- RSS not growing with data (VmRSS growth < 2 bytes per added unique block): {'MET' if flat else 'NOT MET'}")
else:
    print("- RSS growth: needs SIZE >= 2")
EOF
log "summary: $OUT_DIR/summary.md"
