#!/usr/bin/env bash
# bench/seed003.sh: the bonnie++/Postmark report's Postmark run, with its
# full parameters, on a mount of each of its four systems' profiles with
# -o writeback_cache (the guest's page cache the evaluation ran on: the
# guest's buffered writes reached the datastore coalesced), each store
# checked by fsck afterwards, with each run's wall and CPU time and the
# write size that reached the array (bench/RESULTS.md).
# tests/integration/seed003.sh runs the same parameters in CI (since
# the daemon took FUSE_HANDLE_KILLPRIV_V2: 94 to 250 s a profile).
#
#   bench/seed003.sh                  (root, /dev/fuse, postmark)
#
# Environment [default]: ARRAYSIM [build/tools/arraysim], PROFILES [the
# four: tintri-t540 tegile-ha2200ep nexsan-e5000 opensolaris-b132], SCALE
# [1], OPTS [writeback_cache: the mount's -o; OPTS= for none, every
# 4 KiB stdio write then one request: over an hour a profile],
# BENCH_DIR [/var/tmp/arraysim-bench], OUT [bench/out/seed003-<stamp>].
# Per profile: postmark's report, /usr/bin/time's wall and CPU, and the
# mount's `stats --json` (write count and bytes: the write size that
# reached the array) in OUT; one summary line each on stderr.
#
# The report's parameters: set size 10000 10000000, set number 2000,
# set transactions 2500; everything else Postmark's defaults (printed by
# `show` into the report: buffering on, 512-byte read and write blocks).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$REPO/bench/lib.sh"
ARRAYSIM=$(realpath "${ARRAYSIM:-$REPO/build/tools/arraysim}")
PROFILES=${PROFILES:-tintri-t540 tegile-ha2200ep nexsan-e5000 opensolaris-b132}
SCALE=${SCALE:-1}
OPTS=${OPTS-writeback_cache}
BENCH_DIR=${BENCH_DIR:-/var/tmp/arraysim-bench}
OUT=${OUT:-$REPO/bench/out/seed003-$(date +%Y%m%d-%H%M%S)}
command -v postmark >/dev/null || { echo "seed003: postmark is not installed" >&2; exit 1; }
[ -x "$ARRAYSIM" ] || { echo "seed003: $ARRAYSIM is not built" >&2; exit 1; }
mkdir -p "$OUT" "$BENCH_DIR"
WORK=$(mktemp -d "$BENCH_DIR/seed003.XXXXXX")
MNT=$WORK/mnt
STORE=$WORK/store
trap 'is_mounted "$MNT" && "$ARRAYSIM" umount "$MNT"; rm -rf "$WORK"' EXIT

for p in $PROFILES; do
	rm -rf "$STORE" "$MNT"
	mkdir -p "$STORE" "$MNT"
	"$ARRAYSIM" mount --profile "$p" --scale "$SCALE" --store "$STORE" \
		${OPTS:+-o "$OPTS"} "$MNT"
	mkdir "$MNT/pm"
	printf '%s\n' "set location $MNT/pm" 'set size 10000 10000000' \
		'set number 2000' 'set transactions 2500' show run quit >"$OUT/$p.pm"
	log "$p: postmark, scale $SCALE, -o '${OPTS}'"
	/usr/bin/time -f '%e s wall, %U s user, %S s sys' -o "$OUT/$p.time" \
		postmark "$OUT/$p.pm" >"$OUT/$p.postmark" 2>&1
	"$ARRAYSIM" stats --json "$MNT" >"$OUT/$p.stats.json"
	pid=$(head -n 1 "$STORE/lock" | tr -cd 0-9)
	"$ARRAYSIM" umount "$MNT"
	wait_pid_gone "$pid" 30 || { echo "seed003: daemon $pid still running" >&2; exit 1; }
	if "$ARRAYSIM" fsck --store "$STORE" >"$OUT/$p.fsck" 2>&1; then fsck=clean; else fsck=DIRTY; fi
	log "$p: $(cat "$OUT/$p.time"), fsck $fsck"
	[ "$fsck" = clean ] || { cat "$OUT/$p.fsck" >&2; exit 1; }
done
log "results in $OUT"
