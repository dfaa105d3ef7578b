# Helpers of the data-loss tests (array_loss.sh, cache_loss.sh), sourced
# after lib.sh: every block read against the loss report.

# front_ini: the controllers and front end of the tests' profiles, which
# only the drives and the cache distinguish.
front_ini() {
	printf '[controllers]\ncount = 2\nmode = active-active\ncores = 8\n'
	printf '[frontend]\nlinks = 2\nspeed = 10GbE\n'
}

# blocks_of OUT [DIR]: every 4 KiB block of every file in DIR (default
# $MNT), by blocks.py.
blocks_of() {
	python3 "$ARRAYSIM_SRC/tests/integration/blocks.py" "${2:-$MNT}" "$1"
}

# reported_of REPORT OUT: the "PATH OFFSET" pairs of a loss report, sorted;
# checks its summary line names as many; prints how many.
reported_of() {
	grep '^lost /' "$1" | awk '{print $2, $4}' | sort >"$2"
	local n summary
	n=$(wc -l <"$2")
	summary=$(grep '^lost [0-9]* blocks' "$1")
	[ "$summary" = "lost $n blocks referenced $n times" ] ||
		t_fail "summary '$summary' does not match $n listed blocks"
	echo "$n"
}

# events_lost CAUSE: the "PATH OFFSET" pairs of block_lost events of CAUSE.
events_lost() {
	python3 - "$STORE/events.jsonl" "$1" <<-'PY' | sort
	import json, sys
	for l in open(sys.argv[1]):
	    e = json.loads(l)
	    if e.get("event") == "block_lost" and e.get("cause") == sys.argv[2]:
	        print(e["path"], e["offset"])
	PY
}

# check_exact BEFORE REPORTED: read every block now: EIO on exactly the
# REPORTED pairs, the same bytes as BEFORE everywhere else.
check_exact() {
	blocks_of "$T/now"
	awk '$3 == "EIO" {print $1, $2}' "$T/now" | sort | cmp - "$2" ||
		t_fail "EIO on other blocks than reported"
	paste -d' ' "$1" "$T/now" | awk '$6 != "EIO" && $3 != $6' >"$T/changed"
	[ -s "$T/changed" ] && t_fail "blocks read back different: $(head -3 "$T/changed")"
	return 0
}
