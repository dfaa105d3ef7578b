#!/usr/bin/env bash
# profile_predictions: what tintri-t540 must do outside its published
# figures, end to end through FUSE (issue 14's acceptance):
#
#   1. 1 MiB sequential writes, `dd bs=1M` (one outstanding) and fio at
#      QD8, at least 300 MB/s at scale 1 (the profile: its 8 SSDs bound
#      them near 510). At --scale 0.05 that is 15 MB/s, under a quarter
#      of this host's ceiling (the same fio job under `null`, measured
#      here); 256 MiB each, so that the 100 ms NVRAM backlog (2 s at this
#      scale) is a small part of the run (10 s); fio's data seeded apart
#      from the ceiling run's, else every block dedupes to it;
#   2. the report's several workers (workloads/tintri-several-workers.fio:
#      OLTP, Exchange, web server at 16 outstanding each) against the
#      single OLTP worker, both at --scale 0.02: printed, not asserted.
#      The model puts the three 6.7% above the one (emulated, asserted in
#      tests/tiers/test_profile_variants.c); three fio jobs on this
#      2-vCPU host measured +3.2% and -1.6% in two runs, so the margin
#      is inside the host's noise here.
# Every figure prints "measured vs expected" (meson test -v).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio python3
# A timed figure test of tintri-t540: TIMED_PROFILES narrows it as it
# does profile_figures.sh.
t_only_profiles TIMED_PROFILES tintri-t540

# rate JOBNAME: the job's summed write or read+write bandwidth (MB/s) and
# IOPS from fio's JSON output file $1.
rates() {
	python3 - "$1" <<'PY'
import json, sys
jobs = json.load(open(sys.argv[1]))["jobs"]
iops = sum(j["read"]["iops"] + j["write"]["iops"] for j in jobs)
mbs = sum(j["read"]["bw_bytes"] + j["write"]["bw_bytes"] for j in jobs) / 1e6
print("%.1f %.3f" % (iops, mbs))
PY
}

fio_json() {
	t_fio --output-format=json "$@"
	rates "$T/fio.$T_FIO_N.out"
}

t_setup
seqw=(--name=seqw --filename="$MNT/s" --rw=write --bs=1M --size=256M
	--ioengine=libaio --direct=1 --iodepth=8 --refill_buffers)
head -c 256M /dev/urandom >"$T/rand"
t_mount
read -r _ ceil < <(fio_json "${seqw[@]}" --randseed=1)
t_umount

fails=0
SCALE=0.05
python3 -c "import sys; sys.exit(300 * $SCALE > $ceil / 4)" ||
	t_fail "300 MB/s x $SCALE is not under a quarter of the host's ceiling $ceil MB/s"
t_mount --profile tintri-t540 --scale $SCALE
start=$(date +%s.%N)
dd if="$T/rand" of="$MNT/d" bs=1M count=256 status=none
end=$(date +%s.%N)
read -r _ mbs < <(fio_json "${seqw[@]}" --randseed=2)
t_umount
for row in "dd bs=1M|$(python3 -c "print('%.2f' % (256 * 1048576 / 1e6 / ($end - $start)))")" \
	"fio 1M QD8 sequential write|$mbs"; do
	IFS='|' read -r what got <<<"$row"
	at1=$(python3 -c "print('%.1f' % ($got / $SCALE))")
	echo "--- tintri-t540 $what: $got MB/s at --scale $SCALE = $at1 MB/s at scale 1 (want >= 300; null ceiling $ceil MB/s)" >&2
	python3 -c "import sys; sys.exit($at1 < 300)" || fails=$((fails + 1))
done

SCALE=0.02
export DIR=$MNT SIZE=32M RUNTIME=3 QD=16
t_mount --profile tintri-t540 --scale $SCALE
# The workers' files written whole first (fio would lay them out 4 KiB
# at a time, a minute and more at this scale), under the profile, so
# that they sit in the flash tier as the profile assumes.
skip=0
for f in o oltp.vmdk exchange.vmdk webserver.vmdk; do
	dd if="$T/rand" of="$MNT/$f" bs=1M count=32 skip=$skip status=none
	skip=$((skip + 32))
done
read -r one _ < <(fio_json --name=oltp --filename="$MNT/o" --size=32M \
	--rw=randrw --rwmixread=70 --bs=4k --iodepth=16 --ioengine=libaio \
	--direct=1 --time_based --runtime=3 --ramp_time=1 --refill_buffers)
read -r three _ < <(fio_json "$ARRAYSIM_SRC/workloads/tintri-several-workers.fio")
t_umount
python3 - "$one" "$three" "$SCALE" <<'PY'
import sys
one, three, scale = (float(x) for x in sys.argv[1:])
print("--- tintri-t540 three workers %.0f IOPS at --scale %g = %.0f at scale 1; "
      "single OLTP worker %.0f = %.0f (%+.1f%%; model +6.7%%)  [printed only]"
      % (three, scale, three / scale, one, one / scale, (three - one) / one * 100),
      file=sys.stderr)
PY
[ "$fails" -eq 0 ] || t_fail "$fails of 2 sequential-write predictions of tintri-t540 missed (lines above)"
t_fsck
