#!/usr/bin/env bash
# stats_reset_array: `arraysim stats --reset` resets the `--array` figures
# too (issue 13, point 8: a 5 s run after a reset was reported as "figures
# over 94 s", its rates averaged over the whole mount). A timed mount, I/O,
# a pause, a reset, a little I/O: `stats --array` then covers the time since
# the reset, and its counts the I/O after it alone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
t_mount --profile allflash
dd if=/dev/urandom of="$MNT/before" bs=1M count=8 conv=fsync status=none
sleep 3
"$ARRAYSIM" stats "$MNT" --reset || t_fail "stats --reset exited $?"
"$ARRAYSIM" stats "$MNT" --array --json >"$T/after_reset.json"
dd if=/dev/urandom of="$MNT/after" bs=64k count=1 conv=fsync status=none
"$ARRAYSIM" stats "$MNT" --array --json >"$T/after_io.json"
"$ARRAYSIM" stats "$MNT" --array | head -n 1 >&2
python3 - "$T/after_reset.json" "$T/after_io.json" <<-'PY' || t_fail "--array figures not reset (above)"
	import json, sys
	at_reset, after = (json.load(open(p)) for p in sys.argv[1:3])
	print("# elapsed_s at the reset %.3f, after a little I/O %.3f"
	      % (at_reset["elapsed_s"], after["elapsed_s"]), file=sys.stderr)
	# The mount is over 3 s old: figures since the reset are well under.
	assert at_reset["elapsed_s"] < 1.0, "figures over %.3f s" % at_reset["elapsed_s"]
	assert after["elapsed_s"] < 2.0, "figures over %.3f s" % after["elapsed_s"]
	# Nothing ran between the reset and the first print.
	for name, t in at_reset["tiers"].items():
	    assert t["iops"] == 0 and t["mbps"] == 0, "tier %s at the reset: %r" % (name, t)
	PY
t_umount
t_log "ok"
