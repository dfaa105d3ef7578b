#!/usr/bin/env bash
# cp_tree: a real directory tree copied in with `cp -a` (/usr/share/doc: many
# small text and gzip files, symlinks, nested dirs) is identical to its source
# right after the copy and after a remount: same bytes (diff -r), same names,
# types, modes, owners, sizes, mtimes and symlink targets. fsck is clean.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SRC=${CP_TREE_SRC:-/usr/share/doc}
BUDGET_MIB=${CP_TREE_MIB:-48}    # copy whole package dirs until this much
[ -d "$SRC" ] || t_skip "$SRC is missing"

t_setup
t_mount

# Pick package dirs in name order until the budget is used (the whole tree is
# ~150 MiB on a CI image; a bounded subset keeps the test under a minute).
mkdir "$MNT/doc"
used=0 n=0
while IFS= read -r -d '' d; do
	kib=$(du -sk "$d" | cut -f1)
	[ $((used + kib)) -gt $((BUDGET_MIB * 1024)) ] && [ "$n" -gt 0 ] && continue
	cp -a "$d" "$MNT/doc/" || t_fail "cp -a $d $MNT/doc/"
	used=$((used + kib)) n=$((n + 1))
done < <(find "$SRC" -mindepth 1 -maxdepth 1 -print0 | sort -z)
t_log "copied $n entries of $SRC, $((used / 1024)) MiB"
[ "$n" -ge 10 ] || t_fail "copied only $n entries of $SRC: not a tree worth testing"

# The source side: only the entries that were copied.
mkdir "$T/src"
for e in "$MNT"/doc/*; do ln -s "$SRC/${e##*/}" "$T/src/${e##*/}"; done

# listing_expr NAME: the find expression printing one line per entry, its
# path as NAME (%p or %P). A directory's st_size is each file system's own
# business (ext4 says 4096 or 20480), so it is left out for directories.
listing_expr() {
	LISTING=(\( -type d -printf "$1\td\t%m\t%U:%G\t-\t%T@\t\n" \)
		-o -printf "$1\t%y\t%m\t%U:%G\t%s\t%T@\t%l\n")
}
src_listing() {
	local e LISTING
	listing_expr '%p'
	for e in "$T"/src/*; do
		(cd "$SRC" && find "${e##*/}" "${LISTING[@]}")
	done | LC_ALL=C sort
}
mnt_listing() {
	local LISTING
	listing_expr '%P'
	(cd "$MNT/doc" && find . -mindepth 1 "${LISTING[@]}") | LC_ALL=C sort
}

compare() {
	src_listing >"$T/src.list"
	mnt_listing >"$T/mnt.list"
	[ "$(wc -l <"$T/src.list")" -gt "$n" ] || t_fail "$1: source listing has too few lines"
	diff -u "$T/src.list" "$T/mnt.list" >&2 \
		|| t_fail "$1: names/types/modes/owners/sizes/mtimes/link targets differ (- source, + mount)"
	local e
	for e in "$T"/src/*; do
		diff -r --no-dereference "$SRC/${e##*/}" "$MNT/doc/${e##*/}" >&2 \
			|| t_fail "$1: contents of ${e##*/} differ"
	done
}

compare "right after cp -a"
t_remount
compare "after remount"

t_umount
t_fsck
