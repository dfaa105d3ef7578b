#!/usr/bin/env bash
# stats_misses_not_errors: a lookup of a missing name (ENOENT) and a read of
# a missing xattr (ENODATA) are answers, not errors (issue 13, point 8: a
# plain `cp -a` showed 6,488 "errors"). `arraysim stats` counts them in the
# op's count but not in its errors; a real failure still counts.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
t_mount
echo hi >"$MNT/f"
mkdir "$MNT/d"
python3 - "$MNT" <<-'PY'
	import errno, os, sys
	m = sys.argv[1]
	for i in range(20):
	    try:
	        os.stat(os.path.join(m, "missing-%d" % i))
	        sys.exit("stat of a missing name succeeded")
	    except FileNotFoundError:
	        pass
	for name in ("user.missing", "system.posix_acl_access", "security.selinux"):
	    try:
	        os.getxattr(os.path.join(m, "f"), name)
	        sys.exit("getxattr %s succeeded" % name)
	    except OSError as e:
	        assert e.errno == errno.ENODATA, e
	PY
json=$(t_stats_json)
printf '%s' "$json" | python3 -c '
import json, sys
ops = json.load(sys.stdin)["ops"]
for op in ("lookup", "xattr"):
    print("# %s count %d errors %d" % (op, ops[op]["count"], ops[op]["errors"]), file=sys.stderr)
    assert ops[op]["count"] > 0, "no %s counted" % op
    assert ops[op]["errors"] == 0, "%d %s misses counted as errors" % (ops[op]["errors"], op)
' || t_fail "misses counted as errors (above)"
errs=$("$ARRAYSIM" stats "$MNT" | awk '$1 == "lookup" || $1 == "xattr" { s += $3 } END { print s + 0 }')
t_assert_eq "$errs" 0 "errors of lookup and xattr in the text stats"

# A real failure is still an error: removing a non-empty directory.
echo x >"$MNT/d/x"
rmdir "$MNT/d" 2>/dev/null && t_fail "rmdir of a non-empty directory succeeded"
total=$(t_stats_json | python3 -c '
import json, sys
print(sum(o["errors"] for o in json.load(sys.stdin)["ops"].values()))')
[ "$total" -ge 1 ] || t_fail "rmdir ENOTEMPTY not counted as an error"
t_umount
t_log "ok"
