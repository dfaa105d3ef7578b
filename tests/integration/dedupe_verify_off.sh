#!/usr/bin/env bash
# dedupe_verify_off: with `--dedupe-verify off` a fingerprint match is trusted
# without reading the stored block back: the same 4 KiB block written to two
# files is stored once (unique_blocks 1, a duplicate hit) and no verify read
# is issued (verify_reads 0); both files still read back right.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
t_mount --dedupe-verify off

v=$(t_stat_json dedupe_verify)
case "$v" in
false | off | 0) ;;
*) t_fail "stats dedupe_verify is '$v' on a store mounted with --dedupe-verify off" ;;
esac

head -c 4096 /dev/urandom >"$T/block"
dd if="$T/block" of="$MNT/one" bs=4096 oflag=direct conv=fsync status=none \
	|| t_fail "dd (O_DIRECT) of one block to $MNT/one"
dd if="$T/block" of="$MNT/two" bs=4096 oflag=direct conv=fsync status=none \
	|| t_fail "dd (O_DIRECT) of one block to $MNT/two"

t_assert_eq "$(t_stat_json unique_blocks)" 1 "unique_blocks after writing one block to two files"
t_assert_eq "$(t_stat_json live_blocks)" 2 "live_blocks after writing one block to two files"
hits=$(t_stat_json duplicate_hits)
[ "$hits" -ge 1 ] || t_fail "duplicate_hits is $hits, expected >= 1"
t_assert_eq "$(t_stat_json verify_reads)" 0 "verify_reads with --dedupe-verify off"

cmp "$T/block" "$MNT/one" || t_fail "one reads back wrong"
cmp "$T/block" "$MNT/two" || t_fail "two reads back wrong"
t_assert_eq "$(t_stat_json verify_reads)" 0 "verify_reads after reading the files back"

t_umount
t_fsck
