#!/usr/bin/env bash
# meta_max_too_small: a --meta-max too small for the metadata store is one
# `arraysim:` line naming the option and the smallest size that works, exit
# 2, and the store left as it was (issue 13, point 8: `--meta-max 1` gave a
# raw "MDB_MAP_FULL: Environment mapsize limit reached", and left a store
# that every later mount refused as having "no table 'meta'"). The smallest
# size named works: a mount with it takes files.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

t_setup
for v in 1 4k 64k 1023k; do
	rc=0
	"$ARRAYSIM" mount --store "$STORE" --meta-max "$v" "$MNT" >"$T/out" 2>"$T/err" || rc=$?
	t_is_mounted && t_fail "--meta-max $v: mounted"
	t_assert_eq "$rc" 2 "exit status of mount --meta-max $v"
	cat "$T/err" >&2
	t_assert_eq "$(wc -l <"$T/err")" 1 "lines on stderr for --meta-max $v"
	grep -q '^arraysim: --meta-max .*smallest that works is 1M$' "$T/err" \
		|| t_fail "--meta-max $v: the line does not name the option and 1M"
	grep -q MDB_ "$T/err" && t_fail "--meta-max $v: a raw LMDB error"
	[ -s "$T/out" ] && t_fail "--meta-max $v: wrote to stdout"
	t_assert_eq "$(ls -A "$STORE" | wc -l)" 0 "files left in the store by --meta-max $v"
done

t_mount --meta-max 1M
head -c 200k /dev/urandom >"$T/data"
cp "$T/data" "$MNT/f"
cmp "$T/data" "$MNT/f" || t_fail "a file under --meta-max 1M reads back wrong"
t_umount
t_log "ok"
