#!/usr/bin/env bash
# Damaged metadata is refused or read as EIO, never as wrong bytes
# (issue 13, point 1). A real store with a directory tree, files of many
# sizes, dedupe hits and holes is unmounted; then, for a seeded sweep of
# byte positions over the pages of every LMDB table (the B-trees walked by
# meta_damage.py from the newest meta page), a copy of its metadata gets
# one byte flipped and is mounted: the mount either refuses it in one
# `arraysim:` line, or every file reads back its own bytes or EIO (a file
# gone from its directory must be named by fsck). Always unmounted.
#
#   META_SWEEP_N     positions (default 200)
#   META_SWEEP_SEED  the sweep's seed (default 13)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_setup
HELPER="$ARRAYSIM_SRC/tests/integration/meta_damage.py"

t_mount
python3 "$HELPER" build "$MNT" "$T/ref" || t_fail "building the tree"
t_umount
t_fsck
cp -a --sparse=always "$STORE" "$T/pristine"

python3 "$HELPER" sweep "$ARRAYSIM" "$STORE" "$T/pristine" "$MNT" "$T/ref" \
	"${META_SWEEP_SEED:-13}" "${META_SWEEP_N:-200}" \
	|| t_fail "the damage sweep (above)"
echo "PASS: meta_damage_sweep"
