#!/usr/bin/env bash
# profile_figures PROFILE: the published figures of arrays.md, end to end
# with fio on a mount (issue 3's acceptance). For each figure:
#
#   1. the host's ceiling: the same fio job on the same store under the
#      `null` profile (measured in this run);
#   2. the profile at a stated --scale (below, per row) that puts the
#      figure far under that ceiling (published x scale <= ceiling / 4;
#      on a host too slow for that, a sanitizer build say, the row runs
#      at the largest lower scale that does, and says so) and makes the
#      modelled latencies tens of milliseconds, so that the host's own path (FUSE, thread
#      wake-ups: 0.2 to 1 ms a request on this 2-vCPU VM, the more the
#      busier) is small beside them;
#   3. measured / scale against the published figure: within 10% (IOPS,
#      MB/s); the mean latency within 15% of what the figure implies by
#      Little's law (queue depth / rate) for closed-loop rows.
#
# QD1 rows are judged at the daemon: from a request's arrival to its
# reply, the array's latency (the daemon's exact mean, `stats --json`),
# and the rate one outstanding request makes of it. The fio figure is
# printed beside it with the host's round trip outside the daemon. Why:
# on this VM a thread that slept for tens of ms copies memory slowly at
# first, so each QD1 request pays the kernel's FUSE round trip again,
# in proportion to how long the host idled: an O_DIRECT 1 MiB read of
# the raw host directory takes 1.2 ms back to back and 5.6 ms after 0.3 s
# idle; through passthrough_ll 3.3 and 18 ms. At the modelled latencies
# here that is 5-10% of a 1 MiB row, none of it the array's. Rows with
# requests outstanding keep the host busy and are judged end to end.
#
# Rates are the mean of fio's per-interval samples (iops_mean, bw_mean),
# not its "iops": that divides by a runtime that includes waiting for
# the last queue to drain, one request latency with few completions in
# it. At 160 outstanding and 0.28 s a request (traditional-san at 0.1)
# fio's "iops" read 777 where its samples, and the daemon's completions,
# read 841.
#
# Rows marked "print" are the profile's documented misses: shown, not
# asserted. Every row prints "measured vs expected" (meson test -v).
set -euo pipefail
shopt -s extglob
. "$(dirname "$0")/lib.sh"
t_require_cmd fio python3

PROFILE=${1:?usage: profile_figures.sh PROFILE}
# TIMED_PROFILES="P1 P2": only those (scripts/test.sh --sanitize: one).
t_only_profiles TIMED_PROFILES "$PROFILE"
SIZE=80M
RUN=(--runtime=3 --ramp_time=1)

# Rows: "check|label|metric|published|queue depth|block bytes|scale|fio
# args". metric: iops or mbs (closed loop), rate (offered IOPS carried,
# --rate_iops in the args, left out for the ceiling; no latency figure).
# check: assert or print. Scales make every modelled latency 20 ms or
# more (QD1 rows lower than the rest).
WARM=none
case "$PROFILE" in
micron-m600)
	# One SSD: the QD1 4K rows are 179 and 67 us at scale 1, so they run
	# at 0.002 (90 and 34 ms). Sequential rows at a higher scale: a 3 s
	# window must hold many of their I/Os (Q32 128K: 150 ms; Q1 1M: 110).
	ROWS=(
		"assert|SEQ read Q32T1|mbs|560.129|32|131072|0.05|--rw=read --bs=128k --iodepth=32"
		"assert|SEQ write Q32T1|mbs|511.183|32|131072|0.05|--rw=write --bs=128k --iodepth=32"
		"assert|RND4K read Q32T1|iops|87394.0|32|4096|0.01|--rw=randread --bs=4k --iodepth=32"
		"assert|RND4K write Q32T1|iops|89348.1|32|4096|0.01|--rw=randwrite --bs=4k --iodepth=32"
		"assert|SEQ read Q1T1|mbs|489.114|1|1048576|0.02|--rw=read --bs=1m --iodepth=1"
		"assert|SEQ write Q1T1|mbs|473.808|1|1048576|0.02|--rw=write --bs=1m --iodepth=1"
		"assert|RND4K read Q1T1|iops|5577.6|1|4096|0.002|--rw=randread --bs=4k --iodepth=1"
		"assert|RND4K write Q1T1|iops|14853.5|1|4096|0.002|--rw=randwrite --bs=4k --iodepth=1"
	)
	;;
tintri-t540)
	# Every read hits flash (the profile): the file is read once under
	# the profile first (a read miss promotes it). About 270 to 420 IOPS
	# at 0.02: a 3 s window holds 800 I/Os, whose mean latency and
	# sampled rate wandered 6% and 8% run to run under ASan (one run in
	# three out of 10%); 10 s hold 2,600.
	WARM=read80
	RUN=(--runtime=10 --ramp_time=2)
	ROWS=(
		"assert|OLTP 4K 70/30 QD16|iops|20947.37|16|4096|0.02|--rw=randrw --rwmixread=70 --bs=4k --iodepth=16"
		"assert|Exchange 8K 55/45 80% rnd QD16|iops|12837.28|16|8192|0.02|--rw=randrw --rwmixread=55 --percentage_random=80 --bs=8k --iodepth=16"
	)
	;;
synology-1813-raid5-1gbe)
	# Sequential rows at 0.2 (Q32 128K: 183 ms, Q1 1M: 49 ms), random
	# Q32 at 0.05 (46 and 59 ms), random Q1 at 0.01 (33 and 43 ms).
	ROWS=(
		"assert|SEQ read Q32|mbs|114.898|32|131072|0.2|--rw=read --bs=128k --iodepth=32"
		"assert|SEQ write Q32|mbs|96.743|32|131072|0.2|--rw=write --bs=128k --iodepth=32"
		"assert|RND4K read Q32|iops|13815.4|32|4096|0.05|--rw=randread --bs=4k --iodepth=32"
		"assert|RND4K write Q32|iops|10820.1|32|4096|0.05|--rw=randwrite --bs=4k --iodepth=32"
		"assert|SEQ read Q1|mbs|106.323|1|1048576|0.2|--rw=read --bs=1m --iodepth=1"
		"assert|SEQ write Q1|mbs|81.581|1|1048576|0.2|--rw=write --bs=1m --iodepth=1"
		"assert|RND4K read Q1|iops|3054.9|1|4096|0.01|--rw=randread --bs=4k --iodepth=1"
		"assert|RND4K write Q1|iops|2263.2|1|4096|0.01|--rw=randwrite --bs=4k --iodepth=1"
	)
	;;
xtremio-xbrick)
	# 250K and 150K IOPS: far above this host; QD128 assumed (profile).
	ROWS=(
		"assert|4K random read QD128|iops|250000|128|4096|0.01|--rw=randread --bs=4k --iodepth=128"
		"assert|4K random 50/50 QD128|iops|150000|128|4096|0.01|--rw=randrw --rwmixread=50 --bs=4k --iodepth=128"
	)
	;;
xtremio-xbrick4)
	# 4 X-Bricks (arrays.md: about 1,000,000 read, 600,000 mixed), the
	# one-brick rows' load per brick (128 outstanding each) at half their
	# scale (100 and 170 ms a request), so a longer run holds enough.
	RUN=(--runtime=6 --ramp_time=2)
	ROWS=(
		"assert|4K random read QD512|iops|1000000|512|4096|0.005|--rw=randread --bs=4k --iodepth=512"
		"assert|4K random 50/50 QD512|iops|600000|512|4096|0.005|--rw=randrw --rwmixread=50 --bs=4k --iodepth=512"
	)
	;;
infinidat-6303)
	# 150K IOPS offered, 8K, random, 50/50 (the fault tests' background
	# load), carried by 3 controllers. The data sits in the flash cache:
	# it is rewritten under the profile first (write-back).
	WARM=rewrite
	ROWS=(
		# 750 + 750 IOPS = 150K x 0.01
		"assert|150K 8K 50/50 offered|rate|150000|256|8192|0.01|--rw=randrw --rwmixread=50 --bs=8k --iodepth=256 --rate_iops=750,750"
	)
	;;
traditional-san)
	# A saturated disk back end at 160 outstanding (the profile): 96
	# and 240 ms a request at 0.2, so a longer run holds enough of them.
	# No read-cache hits but the run's own promotions, which a 512M file
	# keeps to a few percent over both rows.
	SIZE=512M
	RUN=(--runtime=8 --ramp_time=2)
	ROWS=(
		"assert|OLTP 4K 70/30 QD160|iops|8355.75|160|4096|0.2|--rw=randrw --rwmixread=70 --bs=4k --iodepth=160"
		"assert|Exchange 8K 55/45 80% rnd QD160|iops|3338.28|160|8192|0.2|--rw=randrw --rwmixread=55 --percentage_random=80 --bs=8k --iodepth=160"
	)
	;;
*) t_fail "no published figures for profile '$PROFILE'" ;;
esac

# measure JOB FIOARGS...: run one row's job; prints "iops mbs lat_us
# daemon_lat_us" (read and write together; latencies the mean over all
# I/Os: fio's, and the daemon's from arrival to reply).
measure() {
	local job=$1
	shift
	"$ARRAYSIM" ctl "$MNT" stats reset >/dev/null ||
		t_fail "arraysim ctl $MNT stats reset failed"
	t_fio --name="$job" --filename="$MNT/f" --size=$SIZE --ioengine=libaio \
		--direct=1 --time_based --refill_buffers --randrepeat=0 \
		"${RUN[@]}" --output-format=json "$@"
	python3 - "$T/fio.$T_FIO_N.out" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
r, w = j["read"], j["write"]
n = r["total_ios"] + w["total_ios"]
lat = (r["lat_ns"]["mean"] * r["total_ios"] + w["lat_ns"]["mean"] * w["total_ios"]) / max(n, 1)
# The rate over fio's per-interval samples: its "iops" divides by a
# runtime that also holds the drain of the last queue (see the top).
if r["iops_samples"] + w["iops_samples"]:
    iops = r["iops_mean"] + w["iops_mean"]
    mbs = (r["bw_mean"] + w["bw_mean"]) * 1024 / 1e6
else:
    iops, mbs = r["iops"] + w["iops"], (r["bw_bytes"] + w["bw_bytes"]) / 1e6
print("%.1f %.3f %.0f" % (iops, mbs, lat / 1e3), end=" ")
EOF
	t_stats_json | python3 -c '
import json, sys
ops = json.load(sys.stdin)["ops"]
r, w = ops["read"], ops["write"]
n = r["count"] + w["count"]
print("%.0f" % ((r["latency_us"]["mean"] * r["count"] + w["latency_us"]["mean"] * w["count"]) / max(n, 1)))'
}

t_setup
t_mount
t_fio --name=fill --filename="$MNT/f" --rw=write --bs=1M --size=$SIZE \
	--ioengine=psync --refill_buffers
declare -a CEIL
for i in "${!ROWS[@]}"; do
	IFS='|' read -r _ label metric _ _ _ _ args <<<"${ROWS[$i]}"
	read -r iops mbs _ _ < <(measure "null$i" ${args/--rate_iops=*([0-9,])/})
	CEIL[$i]=$([ "$metric" = mbs ] && echo "$mbs" || echo "$iops")
done
t_umount

# The scale each row runs at: its stated one, or, where this host's
# ceiling is under 4 x (published x scale) (a sanitizer build, a loaded
# host), the largest two-digit scale that leaves it 4 x: the model's
# figures scale linearly, so a lower scale judges the same figure with
# the host's headroom restored, and the row says so. Not for offered-rate
# rows: their --rate_iops is written for the stated scale.
declare -a SCALE
for i in "${!ROWS[@]}"; do
	IFS='|' read -r _ label metric pub _ _ scale _ <<<"${ROWS[$i]}"
	SCALE[$i]=$(python3 - "$metric" "$pub" "$scale" "${CEIL[$i]}" <<-'EOF'
	import math, sys
	metric, pub, scale, ceil = sys.argv[1], *map(float, sys.argv[2:])
	if metric == "rate" or pub * scale <= ceil / 4:
	    print(sys.argv[3])
	else:
	    s = ceil / 4 / pub
	    e = math.floor(math.log10(s)) - 1
	    print("%g" % (math.floor(s / 10 ** e) * 10 ** e))
	EOF
	)
	[ "${SCALE[$i]}" = "$scale" ] ||
		t_log "$PROFILE $label: the host's ceiling ${CEIL[$i]} is under 4 x $pub x $scale: run at --scale ${SCALE[$i]}"
done

# check I IOPS MBS LAT DLAT: row I's figure against its measurement.
check() {
	local i=$1 chk label metric pub qd bs scale args
	IFS='|' read -r chk label metric pub qd bs _ args <<<"${ROWS[$i]}"
	scale=${SCALE[$i]}
	python3 - "$PROFILE" "$label" "$metric" "$pub" "$qd" "$bs" "$scale" \
		"${CEIL[$i]}" "$2" "$3" "$4" "$5" "$chk" <<'EOF'
import sys
prof, label, metric, pub, qd, bs, scale, ceil, iops, mbs, lat, dlat, check = sys.argv[1:]
pub, qd, bs, scale, ceil = float(pub), int(qd), int(bs), float(scale), float(ceil)
iops, mbs, lat, dlat = float(iops), float(mbs), float(lat), float(dlat)
if qd == 1 and metric != "rate":
    # Judged at the daemon (see the top): one request outstanding.
    print("--- %s %s end to end (fio): %.1f IOPS, %.3f MB/s, mean %.0f us, of "
          "which %.0f us outside the daemon" % (prof, label, iops, mbs, lat, lat - dlat),
          file=sys.stderr)
    iops, lat = 1e6 / dlat, dlat
    mbs = iops * bs / 1e6
got = (mbs if metric == "mbs" else iops) / scale
unit = "MB/s" if metric == "mbs" else "IOPS"
err = (got - pub) / pub * 100
# Little's law: the latency a closed loop of qd needs for the figure.
rate = pub * 1e6 / bs if metric == "mbs" else pub
want_lat = qd / rate * 1e6 / scale
lat_err = (lat - want_lat) / want_lat * 100
line = "%s %s: %.1f %s at --scale %g = %.1f at scale 1, published %.1f (%+.1f%%)" % (
    prof, label, mbs if metric == "mbs" else iops, unit, scale, got, pub, err)
if metric != "rate":
    line += "; mean latency %.0f us, implied %.0f us (%+.1f%%)" % (lat, want_lat, lat_err)
line += "; null ceiling %.1f %s" % (ceil, unit)
print("--- " + line + ("" if check == "assert" else "  [not fitted: printed only]"), file=sys.stderr)
if check != "assert":
    sys.exit(0)
if pub * scale > ceil / 4:
    sys.exit("FAIL: %s %s: %.1f x %g is not under a quarter of the host's ceiling %.1f: lower its scale"
             % (prof, label, pub, scale, ceil))
if abs(err) > 10 or (metric != "rate" and abs(lat_err) > 15):
    sys.exit("FAIL: %s %s off the published figure (10%% rate, 15%% latency)" % (prof, label))
EOF
}

# warm: put the data where the profile assumes it (see WARM above).
warm() {
	case $WARM in
	rewrite)
		t_fio --name=rewrite --filename="$MNT/f" --rw=write --bs=1M \
			--size=$SIZE --ioengine=psync --refill_buffers
		;;
	read*)
		t_fio --name=warm --filename="$MNT/f" --rw=read --bs=1M \
			--size=${WARM#read}M --ioengine=psync
		;;
	esac
}

# One mount per scale, its rows in table order.
fails=0
scales=$(printf '%s\n' "${SCALE[@]}" | awk '!seen[$0]++')
for scale in $scales; do
	t_mount --profile "$PROFILE" --scale "$scale"
	warm
	for i in "${!ROWS[@]}"; do
		IFS='|' read -r _ _ _ _ _ _ _ args <<<"${ROWS[$i]}"
		[ "${SCALE[$i]}" = "$scale" ] || continue
		read -r iops mbs lat dlat < <(measure "row$i" $args)
		check "$i" "$iops" "$mbs" "$lat" "$dlat" || fails=$((fails + 1))
	done
	t_umount
	grep -h "requests timed" "$STORE/arraysim.log" | tail -n 1 |
		sed 's/^/--- /' >&2 || true
done
[ "$fails" -eq 0 ] || t_fail "$fails of ${#ROWS[@]} figures of $PROFILE missed (lines above)"
t_fsck
