#!/usr/bin/env bash
# Writes of whole blocks that came in on a FUSE ring do not hold their
# thread through their group commit (fs/ops_io.c write_queued, write_done): the
# group's leader replies to them after the commit. `ctl status`'s
# `commit groups G writes W by leader L`: on the rings, 4k O_DIRECT random
# writes at QD16 from two jobs all go that way (L = W), and fio verifies
# every block after the writes and again after the daemon is killed
# (SIGKILL) and the store mounted again; an unaligned
# write reads its edge block and waits (L unchanged); on classic
# /dev/fuse every writer waits (L = 0).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio
t_setup
t_require_rings

# writes [FIO_ARGS...]: 4k random writes with a verify header in every
# block, two jobs of one file each, then each file read back and checked.
writes() {
	fio --name=w --directory="$MNT" --size=8M --bs=4k --rw=randwrite \
		--direct=1 --numjobs=2 --iodepth=16 --ioengine=libaio \
		--verify=crc32c --do_verify=1 --randrepeat=1 \
		--output="$T/fio.out" "$@" ||
		t_fail "fio $*: $(tail -5 "$T/fio.out")"
}

# commits: "W L" from ctl status.
commits() {
	"$ARRAYSIM" ctl "$MNT" status | sed -n \
		's/^commit groups [0-9]* writes \([0-9]*\) by leader \([0-9]*\)$/\1 \2/p'
}

t_mount -o io_uring=on
writes
read -r w l <<<"$(commits)"
t_log "rings: writes $w, by leader $l"
[ "${w:-0}" -ge 4096 ] || t_fail "rings: ${w:-no} writes committed (want >= 4096)"
t_assert_eq "$l" "$w" "rings, whole blocks: writes replied by the leader"
# A reply still means "committed": killed at once, the daemon has lost
# none of the writes it replied to.
pid=$(t_daemon_pid)
kill -KILL "$pid"
t_wait_pid_exit "$pid" 10 || t_fail "daemon $pid survived SIGKILL"
fusermount3 -uz "$MNT" || t_fail "fusermount3 -uz $MNT"
t_mount -o io_uring=on
writes --verify_only=1
# One byte past a block boundary: it reads the block it lands in, so its
# writer waits for the commit.
read -r w l <<<"$(commits)"
printf 'x' | dd of="$MNT/w.0.0" bs=1 seek=4097 conv=notrunc status=none
read -r w2 l2 <<<"$(commits)"
t_assert_eq "$w2" "$((w + 1))" "rings: writes after one unaligned write"
t_assert_eq "$l2" "$l" "rings, an unaligned write: replied by the leader"
t_umount

t_mount -o io_uring=off
writes
read -r w l <<<"$(commits)"
t_log "classic: writes $w, by leader $l"
[ "${w:-0}" -ge 4096 ] || t_fail "classic: ${w:-no} writes committed (want >= 4096)"
t_assert_eq "$l" 0 "classic: writes replied by the leader"
t_umount
t_log "ok: ring writes replied by their commit's leader, classic ones by their own thread"
