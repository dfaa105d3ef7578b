#!/usr/bin/env bash
# host_bound_warned: a run the host cannot keep pace with says so, loudly
# and as figures (issue 13, point 4: 96% late replies were one line at the
# end, worded as for 0.7%). allflash at --scale 1000 asks for replies in
# tenths of a microsecond, which no FUSE round trip makes: reads for 3 s
# then show, per second, a late share past 5% and a worst lateness in the
# samples; `top` marks HOST-BOUND; /metrics has arraysim_late_share past
# 0.05; the log has the warning (detached: arraysim.log), and a mount in
# the foreground prints it on stderr; the report says host-bound too.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom_lib.sh"
t_require_cmd python3 curl
A=$ARRAYSIM

# load SECONDS: 4 KiB reads of $MNT/f for that long.
load() {
	python3 - "$MNT/f" "$1" <<-'PY'
	import os, sys, time
	fd = os.open(sys.argv[1], os.O_RDONLY)
	end, n = time.monotonic() + float(sys.argv[2]), 0
	while time.monotonic() < end:
	    os.pread(fd, 4096, (n % 64) * 4096)
	    n += 1
	os.close(fd)
	PY
}

t_setup
MPORT=$(free_port)
t_mount --profile allflash --scale 1000 --metrics "127.0.0.1:$MPORT"
head -c 262144 /dev/urandom >"$MNT/f"
load 3
python3 - "$STORE/samples.jsonl" <<-'PY' || t_fail "no host-bound second in the samples: $(tail -2 "$STORE/samples.jsonl")"
	import json, sys
	s = [json.loads(l) for l in open(sys.argv[1])]
	sys.exit(not any(x.get("host_late_share", 0) > 0.05 and x.get("host_worst_late_ms", 0) > 0 for x in s))
	PY
"$A" top --count 1 "$MNT" >"$T/top.out" || t_fail "arraysim top exited $?"
grep -Eq '^host late [0-9.]+% of replies, worst [0-9.]+ ms late' "$T/top.out" ||
	t_fail "no late line in top: $(cat "$T/top.out")"
share=$(curl -sf "http://127.0.0.1:$MPORT/metrics" | sed -n 's/^arraysim_late_share \([0-9.e+-]*\)$/\1/p')
python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 0.05)' "${share:-0}" ||
	t_fail "arraysim_late_share ${share:-none} after 3 s host-bound"
grep -q 'warning: host-bound: [0-9.]*% of [0-9]* replies in the last 10 s went out late' "$STORE/arraysim.log" ||
	t_fail "no host-bound warning in arraysim.log: $(tail -5 "$STORE/arraysim.log")"
t_umount
out=$("$A" report "$STORE") || t_fail "arraysim report exited $?"
grep -qi 'host-bound' <<<"$out" || t_fail "the report's output does not say host-bound: $out"

t_log "the same in the foreground: the warning on stderr"
"$A" mount -f --store "$STORE" --profile allflash --scale 1000 "$MNT" 2>"$T/fg.err" &
FG=$!
T_PIDS=("$FG")
for ((i = 0; i < 100; i++)); do
	t_is_mounted "$MNT" && break
	sleep 0.05
done
t_is_mounted "$MNT" || t_fail "the foreground mount did not come up in 5 s: $(cat "$T/fg.err")"
load 3
"$A" umount "$MNT" || t_fail "umount of the foreground mount"
t_wait_pid_exit "$FG" 30 || t_fail "the foreground mount did not exit"
grep -q 'warning: host-bound: ' "$T/fg.err" || t_fail "no host-bound warning on stderr: $(tail -5 "$T/fg.err")"
echo "PASS"
