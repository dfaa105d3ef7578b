#!/usr/bin/env bash
# sha1_collision: two different 4 KiB blocks with the same SHA-1 (SHAttered,
# data/sha1-collision/README.md) are never deduplicated into one. Stored in
# two files, at two offsets of one file, and each overwriting the other, every
# copy reads back byte-identical to what was written, before and after a
# remount; the verify-on-dedupe path catches the collision (verify_mismatches
# >= 1), both blocks are counted unique, and fsck finds the store clean.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

A=$T_DATA/sha1-collision/block-a.bin
B=$T_DATA/sha1-collision/block-b.bin
[ -f "$A" ] && [ -f "$B" ] || t_fail "missing test data under $T_DATA/sha1-collision"
# Guard the premise: same SHA-1, different bytes.
[ "$(sha1sum <"$A")" = "$(sha1sum <"$B")" ] || t_fail "block-a/b SHA-1 differ: bad test data"
cmp -s "$A" "$B" && t_fail "block-a and block-b are identical: bad test data"

# put SRC FILE OFFSET: write the 4 KiB block SRC at OFFSET of FILE, in place.
put() {
	dd if="$1" of="$2" bs=4096 seek=$(($3 / 4096)) conv=notrunc,fsync status=none \
		|| t_fail "dd $1 -> $2 @ $3"
}

t_setup
EXP=$T/expected
mkdir "$EXP"

# The expected contents, built on the local disk with the same writes.
write_all() {
	local d=$1
	put "$A" "$d/a" 0                  # one file each
	put "$B" "$d/b" 0
	put "$B" "$d/ab" 0                 # both in one file: b @0, a @8192
	put "$A" "$d/ab" 8192              #   (a hole at 4096)
	put "$A" "$d/a-then-b" 0           # a overwritten by b
	put "$B" "$d/a-then-b" 0
	put "$B" "$d/b-then-a" 4096        # b overwritten by a, at 4096
	put "$A" "$d/b-then-a" 4096
	put "$A" "$d/many" 0               # alternating, 8 blocks
	local i
	for i in 1 2 3 4 5 6 7; do
		if ((i % 2)); then put "$B" "$d/many" $((i * 4096)); else put "$A" "$d/many" $((i * 4096)); fi
	done
}
write_all "$EXP"

check_all() {
	local f
	for f in a b ab a-then-b b-then-a many; do
		cmp "$EXP/$f" "$MNT/$f" || t_fail "$1: $f differs from what was written"
	done
	# Spot-check the premise held on the mount too: the copies differ.
	cmp -s "$MNT/a" "$MNT/b" && t_fail "$1: a and b read back identical (collision merged them)"
	return 0
}

t_mount   # dedupe verify is on by default
write_all "$MNT"
check_all "before remount"

mism=$(t_stat_json verify_mismatches)
[ "$mism" -ge 1 ] || t_fail "verify_mismatches is $mism after storing SHA-1-colliding blocks, expected >= 1"
t_assert_eq "$(t_stat_json unique_blocks)" 2 \
	"unique_blocks: the only distinct non-zero blocks live are block-a and block-b"

t_remount
check_all "after remount"
t_assert_eq "$(t_stat_json unique_blocks)" 2 "unique_blocks after remount"

# Reads after the remount must still tell the two apart; also a second
# overwrite round after remount (the index is now loaded from disk).
put "$B" "$MNT/a" 0; put "$B" "$EXP/a" 0
put "$A" "$MNT/b" 0; put "$A" "$EXP/b" 0
check_all "after overwrites on the remounted store"
cmp "$MNT/a" "$B" || t_fail "a overwritten with block-b after remount reads back wrong"
cmp "$MNT/b" "$A" || t_fail "b overwritten with block-a after remount reads back wrong"

t_umount
t_fsck
