#!/usr/bin/env bash
# A daemon stopped (SIGTERM) while the array model holds a read's reply:
# a latency fault holds it 30 s, and the held reply is sent when the
# store closes, after the unmount. That reply goes through the FUSE
# session, which must outlive the store (fs/daemon.c free_session: before,
# it was freed first and the reply called through freed memory, a crash
# under ASan on both transports), and on a ring its bytes sit in the ring
# entry's payload (fs/ops_io.c read_buffer, fs/uring.c uring_reply_space),
# kept mapped as long (fs/uring.c uring_close; once the rings are closed
# nothing reads it, so this test cannot tell if it were not). On each
# transport: the daemon exits on its own (no crash, no sanitizer report),
# whatever the reader got is the file's bytes, and the file reads back
# whole after a new mount.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_setup
unset ARRAYSIM_IO_URING # each round names its transport

head -c 1M /dev/urandom >"$T/ref"

# held_read_stop TRANSPORT: one round on a fresh file.
held_read_stop() {
	t_mount -o "io_uring=$1"
	cp "$T/ref" "$MNT/f"
	sync "$MNT/f"
	local id fired="" pid rc=0 i
	id=$("$ARRAYSIM" ctl "$MNT" fault inject latency op=read latency=30s path=/f)
	rm -f "$T/out"
	dd if="$MNT/f" of="$T/out" bs=1M count=1 iflag=direct 2>"$T/dd.err" &
	T_PIDS=("$!")
	# The read has passed the fault gate (fired=1): its reply is now
	# held by the array model's arrivals, 30 s out.
	for ((i = 0; i < 500; i++)); do
		fired=$("$ARRAYSIM" ctl "$MNT" fault list | awk -v id="$id" '$1 == id {print $NF}')
		[ "$fired" = fired=1 ] && break
		sleep 0.02
	done
	[ "$fired" = fired=1 ] || t_fail "$1: the read never reached the fault ($fired)"

	pid=$(t_daemon_pid)
	kill -TERM "$pid"
	t_wait_pid_exit "$pid" 20 || t_fail "$1: daemon $pid still running 20 s after SIGTERM"
	t_check_sanitizer || t_fail "$1: sanitizer report(s) above, from the stop"
	[ "$(grep -c "unmounting $MNT" "$STORE/arraysim.log")" -eq "$2" ] ||
		t_fail "$1: the daemon did not stop cleanly (no 'unmounting' in its log)"
	t_is_mounted "$MNT" && fusermount3 -uz "$MNT"

	wait "${T_PIDS[0]}" || rc=$?
	T_PIDS=()
	local n
	n=$(stat -c %s "$T/out" 2>/dev/null || echo 0)
	cmp -s -n "$n" "$T/ref" "$T/out" || t_fail "$1: the held read returned other bytes"
	t_log "$1: dd exit $rc, $n bytes read ($(tail -1 "$T/dd.err"))"

	t_mount -o "io_uring=$1"
	cmp "$T/ref" "$MNT/f" || t_fail "$1: the file differs after a new mount"
	t_umount
}

held_read_stop off 1
if [ "$(cat /sys/module/fuse/parameters/enable_uring 2>/dev/null)" = Y ]; then
	held_read_stop on 3
else
	t_log "no rings here (enable_uring is not Y): classic only"
fi
