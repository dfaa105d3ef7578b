#!/usr/bin/env bash
# dedupe_scan_cli: what `arraysim dedupe-scan` prints, on the generated tree
# of tests/dedupe/scan_gen.c (its counts are checked elsewhere):
#   - progress goes to stderr only when stderr is a terminal (script(1)
#     gives it one), and the line is cleared at the end;
#   - --json is one valid object with a "sizes" entry per --block size;
#   - --csv is a header and one row per size, the same figures as --json;
#   - text names every block size, the histogram, the fio settings, and
#     lists the unreadable file and its hard link (as a non-root user, mode
#     000 is unreadable)
#     while exiting 0.
set -euo pipefail

[ -n "${ARRAYSIM:-}" ] && [ -x "$ARRAYSIM" ] || { echo "SKIP: no ARRAYSIM" >&2; exit 77; }
[ -n "${SCAN_GEN:-}" ] && [ -x "$SCAN_GEN" ] || { echo "SKIP: no SCAN_GEN" >&2; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3" >&2; exit 77; }
command -v script >/dev/null || { echo "SKIP: no script(1)" >&2; exit 77; }

T=$(mktemp -d /tmp/arraysim-scan.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
chmod 0755 "$T"
mkdir "$T/tree"
"$SCAN_GEN" "$T/tree" >/dev/null

# Not a terminal: nothing on stderr.
"$ARRAYSIM" dedupe-scan "$T/tree" --csv >"$T/out.csv" 2>"$T/err"
[ ! -s "$T/err" ] || fail "stderr is not a terminal, yet: $(cat "$T/err")"

# A terminal: "<done> of <total>, <rate>/s", then the line cleared.
script -qec "$ARRAYSIM dedupe-scan $T/tree --csv >/dev/null" "$T/tty" >/dev/null
grep -aq ' of .*/s' "$T/tty" || fail "no progress line on a terminal: $(cat -v "$T/tty")"
# (script(1) appends its own "Script done" line: look before it.)
python3 -c '
import sys
t = open(sys.argv[1], "rb").read()
sys.exit(0 if t.rfind(b"\r\x1b[K") > t.rfind(b"/s") else 1)' "$T/tty" \
	|| fail "progress line not cleared at the end: $(cat -v "$T/tty")"

"$ARRAYSIM" dedupe-scan "$T/tree" --block 16K,4K --json --compress zstd >"$T/out.json"
"$ARRAYSIM" dedupe-scan "$T/tree" --block 4K,16K --csv --compress zstd >"$T/out.csv"
python3 - "$T/out.json" "$T/out.csv" <<'PY' || fail "--json and --csv"
import csv, json, sys
j = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
assert [s["block_size"] for s in j["sizes"]] == [4096, 16384], j["sizes"]
assert len(rows) == 2, rows
for s, r in zip(j["sizes"], rows):
    for k in ("blocks", "zero_blocks", "data_blocks", "unique_blocks", "compressed_bytes"):
        assert int(r[k]) == s[k], (k, r[k], s[k])
    assert s["histogram"] and s["fio"]["bs"] == s["block_size"]
    assert sum(h["ref_blocks"] for h in s["histogram"]) == s["data_blocks"]
    assert sum(h["blocks"] for h in s["histogram"]) == s["unique_blocks"]
    assert 0 < s["compressed_bytes"] <= s["unique_blocks"] * s["block_size"]
    assert sum(d["dup_blocks"] for d in s["top_exts"]) <= s["data_blocks"] - s["unique_blocks"]
PY

chmod 000 "$T/tree/a.txt"
pre=()
[ "$(id -u)" -ne 0 ] || pre=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
rc=0
"${pre[@]}" "$ARRAYSIM" dedupe-scan "$T/tree" --block 4K,8K >"$T/out.txt" 2>"$T/err" || rc=$?
[ "$rc" -eq 0 ] || fail "exit $rc with an unreadable file: $(cat "$T/err")"
for want in "block size 4.0 KiB" "block size 8.0 KiB" "refcount histogram" \
	"--dedupe_percentage=" "unreadable: 2" "$T/tree/a.txt" "$T/tree/sub/a-link.txt"; do
	grep -qF -- "$want" "$T/out.txt" || fail "text output lacks '$want'"
done
echo "ok: progress on a terminal only, JSON = CSV, text lists the unreadable files"
