#!/usr/bin/env bash
# rebuild_idle: a drive's rebuild runs on its own clock on a mount with
# no host I/O at all (issue 13, point 7: it used to advance only while
# requests arrived, the tier at 0 IOPS once fio stopped). 4 SSDs in raid5,
# 512 MiB used, rebuild_rate 100M/s at --scale 1: 5.12 s. A drive is
# pulled on an idle mount; the per-second samples show the tier's drives
# working (3 reads + 1 write of 1 MiB per MiB rebuilt: about 400 IOPS)
# while nothing else runs, the rebuild done by about used / rate after
# it was noticed, and the tier idle again after it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd python3

t_setup
A=$ARRAYSIM
ctl() { "$A" ctl "$MNT" "$@"; }

cat >"$T/rb.ini" <<-'INI'
	[frontend]
	speed = 10GbE
	[tier flash]
	kind = ssd
	drives = 4
	capacity = 1G
	raid = raid5
	read_latency = 100us
	write_latency = 50us
	slots = 4
	read_bandwidth = 500M/s
	write_bandwidth = 500M/s
	fill = 50%
	rebuild_rate = 100M/s
	detection_window = 0
INI
t_mount --profile "$T/rb.ini" --seed 1
sleep 1.5 # a sample or two before the pull
did=$(ctl fault inject drive id=1)
t_log "pulled drive 1 (fault $did) on an idle mount; rebuild of 5.12 s"
sleep 8
python3 - "$STORE/samples.jsonl" <<-'PY' || t_fail "the rebuild did not run on its own clock (samples above)"
	import json, sys
	rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
	rows = [r for r in rows if "drives_failed" in r]
	pulled = [i for i, r in enumerate(rows) if r["drives_failed"] or r["drives_rebuilding"]]
	assert pulled, "no sample shows the pull"
	first = pulled[0]
	during = [r for r in rows[first:] if r["drives_rebuilding"]]
	after = [r for r in rows[first:] if not r["drives_rebuilding"]]
	for r in rows[first:]:
	    print("# rebuilding %d  ratio %.3f  left %d  flash %.0f IOPS %.1f MB/s" % (
	        r["drives_rebuilding"], r["rebuild_ratio"], r["rebuild_left_bytes"],
	        r["tier_flash_iops"], r["tier_flash_mbps"]), file=sys.stderr)
	# Samples once a second: 5.12 s of rebuilding shows in 4 to 7 of them.
	assert 4 <= len(during) <= 7, "%d samples rebuilding" % len(during)
	# The whole rebuild in the middle samples: ~400 ops/s, ~420 MB/s.
	mid = during[1:-1]
	assert mid and all(300 <= r["tier_flash_iops"] <= 500 for r in mid), "IOPS while rebuilding"
	assert all(350 <= r["tier_flash_mbps"] <= 500 for r in mid), "MB/s while rebuilding"
	assert after and after[-1]["rebuild_ratio"] == 1.0 and after[-1]["rebuild_left_bytes"] == 0
	assert after[-1]["tier_flash_iops"] == 0, "the tier idle after the rebuild"
	PY
python3 -c 'import os; open("'"$MNT"'/f", "wb").write(os.urandom(1 << 20))'
t_umount
t_fsck
t_log "ok"
