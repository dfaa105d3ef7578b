#!/usr/bin/env bash
# compress_ratio: a mount with [dedupe] compression on reports the data
# reduction a compressing array would have, equal to what dedupe-scan
# --compress finds in the mounted tree and to what the data set was built
# to have.
#
# The data set (compress_gen.py): 12 files of 64 blocks, each unique block
# 60% one byte and 40% random, a third of the files sharing a quarter and a
# third half of their blocks with the first file. Then, for LZ4 (keep any)
# and for zstd (keep half, vSAN's rule), each on a fresh store:
#   stats == dedupe-scan --compress of the mount, exactly: data and unique
#     blocks, after-compression bytes, the compression and data-reduction
#     ratios (6 decimals); the Prometheus exposition says the same bytes;
#   stats == the generator: dedupe ratio exactly; compression and
#     data-reduction ratios within 3% (the compressors' framing: LZ4 keeps
#     1.8%, zstd 1.3% under the 4096 / random-bytes figure);
#   after half the files are removed, and after a remount: stats == scan
#     again (sizes leave with their blocks and survive the remount);
#   fsck clean.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd curl

t_setup
SRC=$T/src
mkdir -p "$SRC"
python3 "$ARRAYSIM_SRC/tests/integration/compress_gen.py" "$SRC" 12 64 60 7 >"$T/gen.json" ||
	t_fail "compress_gen.py"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# compare SCAN_ARGS... : stats and the exposition against a scan of $MNT
# (and, with GEN=1, against the generator's figures).
compare() {
	"$ARRAYSIM" dedupe-scan "$MNT" --json "$@" >"$T/scan.json" || t_fail "dedupe-scan $MNT $*"
	t_stats_json >"$T/stats.json"
	curl -sf "http://127.0.0.1:$MPORT/metrics" >"$T/metrics.txt" || t_fail "no /metrics"
	python3 - "$T/scan.json" "$T/stats.json" "$T/metrics.txt" "$T/gen.json" "${GEN:-0}" <<'PY' ||
import json, sys
scan, st = (json.load(open(p)) for p in sys.argv[1:3])
z = scan["sizes"][0]
prom = {}
for line in open(sys.argv[3]):
    if line.startswith("arraysim_"):
        name, val = line.split()[:2]
        prom[name] = float(val)
pairs = [
    ("data blocks", z["data_blocks"], st["live_blocks"]),
    ("unique blocks", z["unique_blocks"], st["unique_blocks"]),
    ("logical data bytes", z["data_blocks"] * 4096, st["logical_data_bytes"]),
    ("after compression", z["compressed_bytes"], st["after_compression_bytes"]),
    ("compression", z["compression"], st["compression"]),
    ("compression_keep", z["compression_keep"], st["compression_keep"]),
    ("compression ratio", "%.6f" % z["compress_ratio"], "%.6f" % st["compression_ratio"]),
    ("data reduction", "%.6f" % z["data_reduction_ratio"], "%.6f" % st["data_reduction_ratio"]),
    ("prometheus after compression", st["after_compression_bytes"],
     int(prom.get("arraysim_after_compression_bytes", -1))),
    ("prometheus after dedupe", st["after_dedupe_bytes"],
     int(prom.get("arraysim_after_dedupe_bytes", -1))),
]
if sys.argv[5] == "1":
    gen = json.load(open(sys.argv[4]))
    pairs += [("generator unique blocks", gen["unique_blocks"], st["unique_blocks"]),
              ("generator dedupe ratio", "%.6f" % gen["dedupe_ratio"], "%.6f" % st["dedupe_ratio"])]
    for k in ("compression_ratio", "data_reduction_ratio"):
        err = abs(st[k] / gen[k] - 1)
        print("%s: mount %.4f, generator %.4f (%.2f%% apart)" % (k, st[k], gen[k], 100 * err))
        if err > 0.03:
            pairs.append(("generator " + k + " within 3%", round(err, 4), "<= 0.03"))
bad = [p for p in pairs if p[1] != p[2]]
for name, a, b in bad:
    print("FAIL: %s: scan/expected %s != mount %s" % (name, a, b), file=sys.stderr)
print("unique %d after dedupe %d after compression %d ratio %.4f" % (
    st["unique_blocks"], st["after_dedupe_bytes"], st["after_compression_bytes"],
    st["data_reduction_ratio"]))
sys.exit(1 if bad else 0)
PY
		t_fail "the mount's data reduction disagrees (dedupe-scan $*)"
}

# one_store PROFILE SCAN_ARGS...: the whole check on a fresh store.
one_store() {
	local profile=$1
	shift
	STORE=$T/store-$(basename "$profile" .ini)
	mkdir -p "$STORE"
	MPORT=$(free_port)
	t_mount --profile "$profile" --metrics "127.0.0.1:$MPORT"
	cp "$SRC"/* "$MNT/" || t_fail "cp into $MNT"
	sync
	GEN=1 compare "$@"
	rm -f "$MNT"/f000[0-5].bin
	sync
	compare "$@"
	MPORT=$(free_port)
	t_remount --profile "$profile" --metrics "127.0.0.1:$MPORT"
	compare "$@"
	t_umount
	t_fsck
}

one_store "$T_DATA/compress-lz4.ini" --compress lz4
one_store "$T_DATA/compress-zstd-half.ini" --compress zstd --compress-keep half
