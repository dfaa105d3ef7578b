#!/usr/bin/env bash
# dedupe_cache: on a hybrid profile, a block that dedupe shares takes
# flash-cache space once. 256 KiB of unique data written to one file and
# copied to three more (all dedupe hits) leave 64 blocks resident, not
# 256; reading the copies hits the cache.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
t_mount --profile hybrid --scale 50
head -c 262144 /dev/urandom >"$T/data"
cp "$T/data" "$MNT/a"
for f in b c d; do cp "$MNT/a" "$MNT/$f"; done
for f in a b c d; do cmp "$T/data" "$MNT/$f" || t_fail "$f differs"; done
json=$("$ARRAYSIM" stats --array --json "$MNT") || t_fail "stats --array failed"
python3 - "$json" <<-'PY' || t_fail "cache figures: $json"
import json, sys
c = json.loads(sys.argv[1])["cache"]
assert c["resident"] == 64, c
assert c["hit_ratio"] > 0.5, c
PY
echo "PASS"
