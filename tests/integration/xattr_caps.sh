#!/usr/bin/env bash
# xattr_caps: with --kernel-cache the kernel asks for security.capability
# before every write, and the daemon answers "none" from memory for inodes
# it knows have none (fs/ops_xattr.c). A capability set afterwards must
# still be seen: a write removes it, as on a local file system, only if the
# kernel's question got the true answer. Several rounds, so each starts
# with the inode remembered as having none.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd setcap getcap

t_setup
t_mount --kernel-cache
f=$MNT/f
dd if=/dev/urandom of="$f" bs=64k count=4 status=none
before=$(t_stats_json | python3 -c 'import json,sys; print(json.load(sys.stdin)["ops"]["xattr"]["count"])')
for round in 1 2 3; do
	dd if=/dev/urandom of="$f" bs=4k count=8 conv=notrunc status=none
	setcap cap_net_raw+ep "$f"
	case $(getcap "$f") in
	*cap_net_raw*) ;;
	*) t_fail "round $round: setcap did not stick: '$(getcap "$f")'" ;;
	esac
	dd if=/dev/urandom of="$f" bs=4k count=1 conv=notrunc status=none
	t_assert_eq "$(getcap "$f")" "" "round $round: capability after a write"
done
after=$(t_stats_json | python3 -c 'import json,sys; print(json.load(sys.stdin)["ops"]["xattr"]["count"])')
# The kernel asked at least once per write above (3 x 9 writes).
[ $((after - before)) -ge 27 ] || t_fail "the kernel asked $((after - before)) times for 27 writes: the path is not exercised"
t_remount --kernel-cache
t_assert_eq "$(getcap "$f")" "" "capability after a remount"
t_umount
t_log "ok"
