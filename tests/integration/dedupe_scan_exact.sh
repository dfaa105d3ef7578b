#!/usr/bin/env bash
# dedupe_scan_exact: on a real tree (part of /usr/share/doc, plus the
# generated tree of tests/dedupe/scan_gen.c with its holes, zero blocks,
# short tails and a hard link), `arraysim dedupe-scan` reports exactly what
# an independent computation finds: every file cut into blocks, the last
# one padded with zeros to a whole block, and SHA-1 over the pieces
# (Python's hashlib, see expect below). Compared at 4 KiB and 16 KiB: files, bytes,
# blocks, zero blocks, data blocks, unique blocks and the refcount
# histogram, all exactly. Needs no mount.
set -euo pipefail

[ -n "${ARRAYSIM:-}" ] && [ -x "$ARRAYSIM" ] || { echo "SKIP: no ARRAYSIM" >&2; exit 77; }
[ -n "${SCAN_GEN:-}" ] && [ -x "$SCAN_GEN" ] || { echo "SKIP: no SCAN_GEN" >&2; exit 77; }
[ -d /usr/share/doc ] || { echo "SKIP: no /usr/share/doc" >&2; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3" >&2; exit 77; }

T=$(mktemp -d /tmp/arraysim-scan.XXXXXX)
trap 'rm -rf "$T"' EXIT
SRC=$T/tree
mkdir "$SRC" "$SRC/gen"

# 600 regular files of /usr/share/doc, by name: copyright files repeat a lot.
(cd /usr/share/doc && find . -type f | LC_ALL=C sort | awk 'NR <= 600') >"$T/list"
tar -C /usr/share/doc -cf - -T "$T/list" | tar -C "$SRC" -xf -
"$SCAN_GEN" "$SRC/gen" >/dev/null

# expect BS: the figures at block size BS, as JSON, computed apart from
# arraysim: each file (one name per inode: hard links are read once) cut
# into BS pieces, the last padded with zeros to a whole block, each piece
# hashed by Python's hashlib. (It was split(1) + truncate(1) + sha1sum a
# file: 10,000 processes, 110 s of a 240 s limit in CI and past it on a
# loaded host; the same figures in 2 s.)
expect() {
	python3 - "$1" "$SRC" <<'PY'
import collections, hashlib, json, os, sys
bs, src = int(sys.argv[1]), sys.argv[2]
names, seen = [], set()
for root, dirs, files in os.walk(src):
    for f in files:
        p = os.path.join(root, f)
        st = os.lstat(p)
        if os.path.isfile(p) and not os.path.islink(p) and st.st_ino not in seen:
            seen.add(st.st_ino)
            names.append(p)
zero = hashlib.sha1(bytes(bs)).hexdigest()
h = []
for n in names:
    with open(n, "rb") as f:
        while piece := f.read(bs):
            h.append(hashlib.sha1(piece.ljust(bs, b"\0")).hexdigest())
data = [x for x in h if x != zero]
hist = collections.Counter()
refs = collections.Counter()
for c in collections.Counter(data).values():
    row = c.bit_length() - 1
    hist[1 << row] += 1
    refs[1 << row] += c
print(json.dumps({
    "files": len(names),
    "logical_bytes": sum(os.path.getsize(n) for n in names),
    "blocks": len(h), "zero_blocks": len(h) - len(data),
    "data_blocks": len(data), "unique_blocks": len(set(data)),
    "histogram": sorted([k, hist[k], refs[k]] for k in hist),
}))
PY
}

"$ARRAYSIM" dedupe-scan "$SRC" --block 4K,16K --json >"$T/scan.json"
for bs in 4096 16384; do
	expect "$bs" >"$T/expect.$bs"
	python3 - "$bs" "$T/scan.json" "$T/expect.$bs" <<'PY' || exit 1
import json, sys
bs = int(sys.argv[1])
scan = json.load(open(sys.argv[2]))
want = json.load(open(sys.argv[3]))
size = [s for s in scan["sizes"] if s["block_size"] == bs][0]
got = {
    "files": scan["files"], "logical_bytes": scan["logical_bytes"],
    "blocks": size["blocks"], "zero_blocks": size["zero_blocks"],
    "data_blocks": size["data_blocks"], "unique_blocks": size["unique_blocks"],
    "histogram": [[r["refcnt"], r["blocks"], r["ref_blocks"]] for r in size["histogram"]],
}
bad = [k for k in want if got[k] != want[k]]
for k in bad:
    print("FAIL: %d-byte blocks, %s: dedupe-scan %s, hashlib %s"
          % (bs, k, got[k], want[k]), file=sys.stderr)
if scan["unreadable"] or scan["hard_links_skipped"] != 1:
    print("FAIL: unreadable %d, hard links %d (want 0, 1)"
          % (scan["unreadable"], scan["hard_links_skipped"]), file=sys.stderr)
    bad.append("walk")
if not bad:
    print("%d-byte blocks: %d blocks, %d zero, %d unique: as hashlib" % (
        bs, want["blocks"], want["zero_blocks"], want["unique_blocks"]))
sys.exit(1 if bad else 0)
PY
done
