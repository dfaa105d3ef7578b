#!/usr/bin/env bash
# graphite: `mount --graphite HOST:PORT,prefix=P` against a real
# carbon-cache (Debian's graphite-carbon) on loopback.
# - The stored whisper series are exactly the Prometheus endpoint's
#   series (every sample line of GET /metrics, as a path), for a hybrid
#   mount with its array series.
# - After writes (some duplicate), the newest stored values equal what
#   `stats --json` says once the mount is idle: within one push.
# - carbon-cache stopped: the mount keeps serving and says so once in its
#   log; started again on the same port: pushes resume and new values land.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
. "$(dirname "$0")/carbon_lib.sh"
t_require_cmd carbon-cache whisper-fetch curl python3
T_PIDS=()

t_setup
carbon_start
MPORT=$(free_port)
t_mount --profile hybrid --scale 100 --metrics "127.0.0.1:$MPORT" \
	--graphite "127.0.0.1:$CPORT,prefix=ci.a"

# write: 8 MiB of random data, then the same again (duplicates), synced.
write_data() {
	head -c 8M /dev/urandom >"$T/data"
	cp "$T/data" "$MNT/$1"
	cp "$T/data" "$MNT/$1.copy"
	sync "$MNT/$1" "$MNT/$1.copy"
}
write_data one

# wait_equal PATH JSONKEY: bounded (15 s) until the stored value is the
# stats value (the mount is idle, so the stats hold still).
wait_equal() {
	local i want got
	want=$(t_stat_json "$2")
	for ((i = 0; i < 75; i++)); do
		got=$(carbon_value "$1")
		python3 -c 'import sys; sys.exit(sys.argv[1] == "none" or float(sys.argv[1]) != float(sys.argv[2]))' \
			"$got" "$want" && return 0
		sleep 0.2
	done
	t_fail "$1: Carbon has $got, stats --json $2 says $want"
}

t_log "stored values equal stats --json"
wait_equal ci.a.arraysim_logical_written_bytes_total logical_bytes_written
wait_equal ci.a.arraysim_duplicate_blocks_total duplicate_hits
wait_equal ci.a.arraysim_unique_block_writes_total unique_writes
wait_equal ci.a.arraysim_live_blocks live_blocks
wait_equal ci.a.arraysim_ops_total.op.write ops.write.count
wait_equal ci.a.arraysim_bytes_total.op.write ops.write.bytes
dup=$(t_stat_json duplicate_hits)
[ "$dup" -ge 2048 ] || t_fail "duplicate_hits $dup, expected >= 2048 after the copy"

t_log "the same series as the Prometheus endpoint"
# same_series: the exposition's series against Carbon's files now.
same_series() {
	curl -sf "http://127.0.0.1:$MPORT/metrics" >"$T/metrics.txt" || t_fail "GET /metrics failed"
	python3 - "$T/metrics.txt" "$T/whisper/ci/a" <<-'PY'

import math, os, re, sys
want = set()
for line in open(sys.argv[1]):
    if not line.strip() or line.startswith("#"):
        continue
    m = re.match(r'([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})? (\S+)', line)
    assert m, line
    if not math.isfinite(float(m.group(4))):
        continue
    parts = [m.group(1).replace(":", "_")]
    for k, v in re.findall(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or ""):
        parts += [k, re.sub(r'[^A-Za-z0-9_-]', '_', v)]
    want.add("/".join(parts))
have = set()
for root, _, files in os.walk(sys.argv[2]):
    for f in files:
        if f.endswith(".wsp"):
            have.add(os.path.relpath(os.path.join(root, f[:-4]), sys.argv[2]))
print(f"{len(want)} series in the exposition, {len(have)} in Carbon")
missing, extra = sorted(want - have), sorted(have - want)
assert not missing, f"not in Carbon: {missing[:10]}"
assert not extra, f"not in the exposition: {extra[:10]}"
assert any(p.startswith("arraysim_tier_ops_total/tier/cache") for p in have), "no array series"
	PY
}
# Carbon makes a series' file when it first writes it: bounded, 10 s.
for ((i = 0; i < 20; i++)); do
	same_series 2>"$T/series.err" && break
	sleep 0.5
done
[ "$i" -lt 20 ] || t_fail "series differ: $(tail -1 "$T/series.err")"

t_log "Carbon down: the mount serves, says so once; back: pushes resume"
carbon_stop
write_data two
cmp "$T/data" "$MNT/two.copy" || t_fail "data differ while Carbon is down"
for ((i = 0; i < 50; i++)); do
	grep -q 'graphite\]: warning: cannot push' "$STORE/arraysim.log" && break
	sleep 0.2
done
carbon_start
wait_equal ci.a.arraysim_logical_written_bytes_total logical_bytes_written
grep -q 'graphite\]: pushing to 127.0.0.1:'"$CPORT"' again' "$STORE/arraysim.log" ||
	t_fail "no 'pushing again' line in the log"
# Counted once the outage is over: every second of it failed a push.
n=$(grep -c 'graphite\]: warning: cannot push' "$STORE/arraysim.log" || true)
t_assert_eq "$n" 1 "log lines for the whole outage"
t_umount
echo "PASS"
