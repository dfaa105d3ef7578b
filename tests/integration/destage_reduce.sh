#!/usr/bin/env bash
# destage_reduce: a hybrid with [dedupe] reduce_at = destage and a write
# throttle, through the mount: the data path's per-block reduction
# (dedupe hits, LZ4 sizes kept only when they halve) reaches the
# destager, and `stats --array` (text and JSON) shows the reduction's CPU,
# the bytes it left for the backing tier and the throttle's delayed
# writes. 4 MiB of random (unique, incompressible) data and 4 MiB of
# unique but compressible blocks are written, then copied (all dedupe
# hits), through an 8 MiB write buffer that destages from 60% and
# throttles from 70%.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
"$ARRAYSIM" profile show hybrid | sed \
	-e 's/^size = .*/size = 8M/' \
	-e 's/^throttle_start = .*/throttle_start = 70%/' \
	-e 's/^enabled = no/enabled = yes/' \
	-e 's/^compression = .*/compression = lz4/' \
	-e 's/^compression_keep = .*/compression_keep = half/' \
	-e 's/^hash_rate = .*/hash_rate = 500M\/s/' \
	-e 's/^compress_rate = .*/compress_rate = 500M\/s/' \
	-e 's/^reduce_at = .*/reduce_at = destage/' >"$T/reduce.ini"
"$ARRAYSIM" profile show "$T/reduce.ini" >"$T/shown.ini" ||
	t_fail "profile show: $T/reduce.ini"
grep -qx "reduce_at = destage" "$T/shown.ini" || t_fail "reduce_at not shown"
grep -qx "throttle_start = 70%" "$T/shown.ini" || t_fail "throttle not shown"
sed 's/^throttle_start = .*/throttle_start = 50%/' "$T/reduce.ini" >"$T/bad.ini"
if "$ARRAYSIM" profile show "$T/bad.ini" >/dev/null 2>"$T/err"; then
	t_fail "throttle_start below destage_start accepted"
fi
[ "$(wc -l <"$T/err")" = 1 ] &&
	grep -q "^arraysim: .*throttle_start: must be above destage_start" \
		"$T/err" || t_fail "bad throttle_start: $(cat "$T/err")"
t_mount --profile "$T/reduce.ini" --scale 10
head -c 4194304 /dev/urandom >"$T/random"
python3 -c '
import sys
for i in range(1024):
    sys.stdout.buffer.write(i.to_bytes(8, "little") * 8 + bytes(4096 - 64))
' >"$T/squeezy"
cp "$T/random" "$MNT/random"
cp "$T/squeezy" "$MNT/squeezy"
cp "$MNT/random" "$MNT/random2"
cp "$MNT/squeezy" "$MNT/squeezy2"
sync
for f in random squeezy; do
	cmp "$T/$f" "$MNT/$f" || t_fail "$f differs"
	cmp "$T/$f" "$MNT/${f}2" || t_fail "${f}2 differs"
done
text=$("$ARRAYSIM" stats --array "$MNT") || t_fail "stats --array failed"
grep -q "destage: reduction CPU .* bytes kept; throttle: .* writes delayed" \
	<<<"$text" || t_fail "no destage line: $text"
json=$("$ARRAYSIM" stats --array --json "$MNT") || t_fail "stats --json failed"
python3 - "$json" <<-'PY' || t_fail "destage figures: $json"
import json, sys
a = json.loads(sys.argv[1])
c, d = a["cache"], a["destage"]
print("#", c, d)
assert c["destaged"] > 0, c
assert d["reduce_cpu_s"] > 0 and d["reduce_cpu_pct"] >= 0, d
# Each block destaged leaves at most 4 KiB; the compressible and the
# deduped ones far less.
assert 0 < d["reduce_kept_bytes"] < c["destaged"] * 4096, d
assert d["throttled_writes"] >= 0 and d["throttle_s"] >= 0, d
PY
echo "PASS"
