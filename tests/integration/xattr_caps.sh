#!/usr/bin/env bash
# xattr_caps: with --kernel-cache (the kernel's page cache, buffered
# writes), a capability set on a file is removed by the next write, as on a
# local file system. The daemon takes FUSE_HANDLE_KILLPRIV_V2, so the
# kernel no longer asks for security.capability before each write: the
# daemon removes it in the write's transaction (store/caps.h). Several
# rounds, each on a file written to before, and a remount (the set of
# inodes with capabilities is loaded at open).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd setcap getcap

t_setup
t_mount --kernel-cache
f=$MNT/f
dd if=/dev/urandom of="$f" bs=64k count=4 status=none
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
# A capability the remount must load: kept until the next write.
setcap cap_net_raw+ep "$f"
t_remount --kernel-cache
case $(getcap "$f") in
*cap_net_raw*) ;;
*) t_fail "capability lost by a remount: '$(getcap "$f")'" ;;
esac
dd if=/dev/urandom of="$f" bs=4k count=1 conv=notrunc status=none
t_assert_eq "$(getcap "$f")" "" "capability after a write, remounted"
t_umount
t_log "ok"
