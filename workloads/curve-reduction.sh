#!/usr/bin/env bash
# workloads/curve-reduction.sh: a curve run (curve.sh, vdbench-curve.fio)
# on a profile twice, each on a fresh store: as built, and with its
# [dedupe] section enabled and LZ4 on (the profile's own hash and
# compression costs; issue 16's "dedupe+compression on and off"). The
# data is DEDUPE_PCT duplicate and COMPRESS_PCT compressible, as
# VDBench's dedupratio and compratio. fio's file is laid out first with
# the model paused, at host speed (workloads/README.md).
#   workloads/curve-reduction.sh PROFILE OUT
# leaves in OUT, for NAME in PROFILE and PROFILE-dedupe-lz4:
#   NAME.jsonl       curve.sh's lines        NAME.stats.json  stats --json
#   NAME.ini         the profile run         report.html      both charted
# Environment: SCALE [0.01], QD [32], SIZE [16M], RUNTIME [3], STEPS
# [curve.sh's], DEDUPE_PCT [50], COMPRESS_PCT [60: LZ4 keeps such a
# block under vSAN's halving rule], ARRAYSIM [arraysim], STEADY [1]: the
# write buffer in its steady state, destaging as it fills ([cache]
# destage_start 0.001%, stop 0%), as a run after the evaluation's fill
# and hours of writing finds it; a run's minutes at a low --scale would
# not fill it to destage_start, and reduction at destage would cost
# nothing (0: the profile's thresholds as they are).
set -euo pipefail
PROFILE=${1:?usage: curve-reduction.sh PROFILE OUT}
OUT=${2:?usage: curve-reduction.sh PROFILE OUT}
HERE=$(cd "$(dirname "$0")" && pwd)
ARRAYSIM=${ARRAYSIM:-arraysim}
export SCALE=${SCALE:-0.01} QD=${QD:-32} SIZE=${SIZE:-16M} RUNTIME=${RUNTIME:-3}
export DEDUPE_PCT=${DEDUPE_PCT:-50} COMPRESS_PCT=${COMPRESS_PCT:-60}
STEADY=${STEADY:-1}
mkdir -p "$OUT"
MNT=$(mktemp -d /tmp/arraysim-curve-mnt.XXXXXX)
trap '"$ARRAYSIM" umount "$MNT" 2>/dev/null || true; rmdir "$MNT" 2>/dev/null || true' EXIT

if [ "$STEADY" = 1 ]; then
	"$ARRAYSIM" profile show "$PROFILE" |
		sed -e '/^\[cache\]/,/^\[/{s/^destage_start = .*/destage_start = 0.001%/;s/^destage_stop = .*/destage_stop = 0%/}' \
			>"$OUT/$PROFILE.ini"
else
	"$ARRAYSIM" profile show "$PROFILE" >"$OUT/$PROFILE.ini"
fi
sed -e '/^\[dedupe\]/,/^\[/{s/^enabled = no$/enabled = yes/;s/^compression = none$/compression = lz4/}' \
	"$OUT/$PROFILE.ini" >"$OUT/$PROFILE-dedupe-lz4.ini"
grep -q '^enabled = yes' "$OUT/$PROFILE-dedupe-lz4.ini" &&
	grep -q '^compression = lz4' "$OUT/$PROFILE-dedupe-lz4.ini" || {
	echo "curve-reduction.sh: $PROFILE's [dedupe] does not turn on as expected" >&2
	exit 1
}

# run NAME: the curve on a fresh store with NAME.ini.
run() {
	local store="$OUT/store-$1"
	rm -rf "$store"
	mkdir "$store"
	"$ARRAYSIM" mount --store "$store" --profile "$OUT/$1.ini" --scale "$SCALE" "$MNT"
	"$ARRAYSIM" ctl "$MNT" model pause >/dev/null
	fio --name=layout --filename="$MNT/curve.0.0" --rw=write --bs=1M --size="$SIZE" \
		--refill_buffers --dedupe_percentage="$DEDUPE_PCT" \
		--buffer_compress_percentage="$COMPRESS_PCT" --output=/dev/null
	"$ARRAYSIM" ctl "$MNT" model resume >/dev/null
	DIR=$MNT "$HERE/curve.sh" "$HERE/vdbench-curve.fio" >"$OUT/$1.jsonl"
	"$ARRAYSIM" stats "$MNT" --json >"$OUT/$1.stats.json"
	"$ARRAYSIM" umount "$MNT"
}
run "$PROFILE"
run "$PROFILE-dedupe-lz4"
"$ARRAYSIM" report "$OUT/store-$PROFILE-dedupe-lz4" --out "$OUT/report.html" \
	--curve "$OUT/$PROFILE.jsonl,$OUT/$PROFILE-dedupe-lz4.jsonl"
