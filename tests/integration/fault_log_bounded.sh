#!/usr/bin/env bash
# fault_log_bounded: a hot rule keeps the event log bounded (issue 13,
# point 8: a latency rule wrote one line per hit, 690 KB in 2 min). A
# latency rule on reads is hit thousands of times over 3 s: events.jsonl
# holds its first hit (fault_hit) and then about one fault_hits line a
# second, and the hits those lines carry sum exactly to the rule's
# fired= in `fault list`; `arraysim report` counts the same hits.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd python3
A=$ARRAYSIM
ctl() { "$A" ctl "$MNT" "$@"; }

t_setup
t_mount
head -c 65536 /dev/urandom >"$MNT/f"
id=$(ctl fault inject latency latency=1us op=read)
n=$(python3 - "$MNT/f" <<-'PY'
	import os, sys, time
	fd = os.open(sys.argv[1], os.O_RDONLY)
	n, end = 0, time.monotonic() + 3
	while time.monotonic() < end:
	    os.pread(fd, 4096, (n % 16) * 4096)
	    n += 1
	os.close(fd)
	print(n)
	PY
)
fired=$(ctl fault list | sed -n "s/^$id latency .* fired=\([0-9]*\)$/\1/p")
[ -n "$fired" ] || t_fail "no fired= for rule $id: $(ctl fault list)"
python3 -c 'import sys; sys.exit(int(sys.argv[1]) < 1000)' "$fired" ||
	t_fail "only $fired hits from $n reads: not a hot rule"
ctl fault clear "$id" >/dev/null
t_umount

read -r lines hits size < <(python3 - "$STORE/events.jsonl" "$id" <<-'PY'
	import json, os, sys
	lines = hits = 0
	for l in open(sys.argv[1]):
	    e = json.loads(l)
	    if e.get("id") != int(sys.argv[2]):
	        continue
	    if e["event"] == "fault_hit":
	        lines, hits = lines + 1, hits + 1
	    elif e["event"] == "fault_hits":
	        lines, hits = lines + 1, hits + e["hits"]
	print(lines, hits, os.path.getsize(sys.argv[1]))
	PY
)
t_log "$n reads, fired=$fired, $lines hit lines carrying $hits hits, events.jsonl $size bytes"
t_assert_eq "$hits" "$fired" "hits summed over the events vs fault list's fired="
# 3 s of hits: the first, one a second, the clear's flush (and a second's
# rounding).
python3 -c 'import sys; sys.exit(not 2 <= int(sys.argv[1]) <= 6)' "$lines" ||
	t_fail "$lines hit lines for 3 s of a hot rule"
python3 -c 'import sys; sys.exit(int(sys.argv[1]) > 8192)' "$size" ||
	t_fail "events.jsonl is $size bytes after 3 s of one rule"

"$A" report "$STORE" >/dev/null || t_fail "arraysim report exited $?"
got=$(python3 - "$STORE/report.html" "$id" <<-'PY'
	import re, sys
	t = re.search(r'<table class="faults">.*?</table>', open(sys.argv[1]).read(), re.S).group(0)
	row = re.search(r'<tr><td>%s</td>.*?<td>(\d+)</td></tr>' % sys.argv[2], t)
	print(row.group(1) if row else "none")
	PY
)
t_assert_eq "$got" "$fired" "the report's hits of rule $id"
echo "PASS"
