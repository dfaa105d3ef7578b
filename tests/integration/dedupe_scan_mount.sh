#!/usr/bin/env bash
# dedupe_scan_mount: scanning the files inside a mounted arraysim reports
# the same dedupe figures as that mount's stats. A fresh store gets a copy
# (zeros written out, hard links kept) of the generated tree of
# tests/dedupe/scan_gen.c and of part of /usr/share/doc; then, at 4 KiB:
#   scan data blocks   == stats live_blocks
#   scan unique blocks == stats unique_blocks
#   scan zero blocks   == stats zero_blocks (each block was written once)
#   scan dedupe ratio  == stats dedupe_ratio; logical bytes == held bytes
# and the scan of the copy inside the mount equals the scan of the source.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ -n "${SCAN_GEN:-}" ] && [ -x "$SCAN_GEN" ] || t_skip "no SCAN_GEN"

t_setup
SRC=$T/src
mkdir -p "$SRC/gen" "$SRC/doc"
"$SCAN_GEN" "$SRC/gen" >/dev/null
(cd /usr/share/doc && find . -type f | LC_ALL=C sort | awk 'NR <= 300') >"$T/list"
tar -C /usr/share/doc -cf - -T "$T/list" | tar -C "$SRC/doc" -xf -

t_mount
cp -a --sparse=never "$SRC/." "$MNT/" || t_fail "cp -a into $MNT"
sync

"$ARRAYSIM" dedupe-scan "$MNT" --json >"$T/in.json" || t_fail "dedupe-scan $MNT"
"$ARRAYSIM" dedupe-scan "$SRC" --json >"$T/src.json" || t_fail "dedupe-scan $SRC"
t_stats_json >"$T/stats.json"

python3 - "$T/in.json" "$T/src.json" "$T/stats.json" <<'PY' || t_fail "scan and stats disagree"
import json, sys
scan, src, st = (json.load(open(p)) for p in sys.argv[1:4])
z, s = scan["sizes"][0], src["sizes"][0]
pairs = [
    ("data blocks vs live_blocks", z["data_blocks"], st["live_blocks"]),
    ("unique blocks vs unique_blocks", z["unique_blocks"], st["unique_blocks"]),
    ("zero blocks vs zero_blocks", z["zero_blocks"], st["zero_blocks"]),
    ("dedupe ratio", "%.6f" % z["dedupe_ratio"], "%.6f" % st["dedupe_ratio"]),
    ("logical bytes vs logical_bytes_held", scan["logical_bytes"], st["logical_bytes_held"]),
    ("unreadable", scan["unreadable"], 0),
]
for k in ("blocks", "zero_blocks", "data_blocks", "unique_blocks"):
    pairs.append(("mount vs source: " + k, z[k], s[k]))
bad = [p for p in pairs if p[1] != p[2]]
for name, a, b in bad:
    print("FAIL: %s: %s != %s" % (name, a, b), file=sys.stderr)
print("live %d unique %d zero %d ratio %s" % (st["live_blocks"],
      st["unique_blocks"], st["zero_blocks"], st["dedupe_ratio"]))
sys.exit(1 if bad else 0)
PY

t_umount
t_fsck
