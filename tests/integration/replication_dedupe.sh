#!/usr/bin/env bash
# replication_dedupe: dedupe in transit. fio writes 64 MiB of which half the
# 4 KiB blocks repeat earlier ones (dedupe_percentage=50, as in
# dedupe_ratio.sh); the batches send fingerprints first and bytes only for
# blocks the replica lacks, so the bytes on the wire (every message, both
# ways: fingerprints, verdicts, blocks, metadata) are about half the bytes
# written: within 5% of half. The replica then holds the same files.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replication_lib.sh"
t_require_cmd fio

SIZE_MIB=64
P=50
TOL_PCT=5 # unique blocks ~ Binomial(16384, 1/2): sd 0.8% (dedupe_ratio.sh)

r_setup
t_mount --replicate-to "$REPLICA"
"$ARRAYSIM" ctl "$MNT" replication sync
wire0=$(r_json wire_bytes)

t_fio --name=dedupe --directory="$MNT" --filename=dedupe.dat \
	--rw=write --bs=4k --size=${SIZE_MIB}M --ioengine=psync --direct=1 \
	--fallocate=none --refill_buffers=1 --dedupe_percentage=$P \
	--dedupe_mode=repeat
"$ARRAYSIM" ctl "$MNT" replication sync
wire=$(( $(r_json wire_bytes) - wire0 ))
saved=$(r_json saved_bytes)
written=$(t_stat_json ops.write.bytes)
t_log "written $written, on the wire $wire, saved by dedupe $saved"
t_assert_eq "$written" $((SIZE_MIB << 20)) "bytes fio wrote"

python3 - "$written" "$wire" "$saved" "$P" "$TOL_PCT" <<'PY' || t_fail "bytes on the wire off"
import sys
written, wire, saved, p, tol = (float(a) for a in sys.argv[1:])
want = written * (1 - p / 100)
bad = []
if abs(wire - want) > want * tol / 100:
    bad.append("wire bytes %d, expected %d +-%g%%" % (wire, want, tol))
if abs(saved - written * p / 100) > written * p / 100 * tol / 100:
    bad.append("saved bytes %d, expected %d +-%g%%" % (saved, written * p / 100, tol))
for b in bad:
    print("FAIL: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

sum=$(sha256sum <"$MNT/dedupe.dat")
t_umount
r_fsck "$REPLICA"
r_mount_replica
t_assert_eq "$(sha256sum <"$MNT2/dedupe.dat")" "$sum" "the replica's copy of dedupe.dat"
r_umount_replica
