#!/usr/bin/env bash
# mount -o io_uring=off|auto|on: the FUSE transport (fs/channel.c,
# fs/uring.c) is what was asked for and what `ctl status` says, requests
# really arrive on the rings, and data written through them (replies from
# a FUSE worker with the null array, from the completer thread with a
# timed one) reads back intact after a remount with the other transport.
# Without the kernel's offer (enable_uring N), `on` refuses in one line and
# `auto` is classic.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio
t_setup
unset ARRAYSIM_IO_URING # this test picks each transport itself
PARAM=/sys/module/fuse/parameters/enable_uring


t_mount -o io_uring=off
case "$(t_status transport)" in
classic*) ;;
*) t_fail "io_uring=off: transport is '$(t_status transport)'" ;;
esac
t_assert_eq "$(t_status 'ring requests')" 0 "io_uring=off: ring requests"
t_umount

# refused OPTS PATTERN: mount -o OPTS exits 2 with one line matching
# PATTERN, and nothing is mounted.
refused() {
	local rc=0
	"$ARRAYSIM" mount --store "$STORE" -o "$1" "$MNT" 2>"$T/err" || rc=$?
	t_assert_eq "$rc" 2 "-o $1: exit code"
	t_assert_eq "$(wc -l <"$T/err")" 1 "-o $1: lines on stderr"
	grep -q "$2" "$T/err" || t_fail "-o $1: $(cat "$T/err")"
	! t_is_mounted || t_fail "-o $1 mounted"
}

refused io_uring=sometimes '^arraysim: mount: -o io_uring=sometimes: '

if [ "$(cat "$PARAM" 2>/dev/null)" != Y ]; then
	refused io_uring=on 'io_uring=on, but FUSE over io_uring is not available'
	t_mount -o io_uring=auto
	case "$(t_status transport)" in
	classic*) ;;
	*) t_fail "io_uring=auto, no offer: '$(t_status transport)'" ;;
	esac
	t_umount
	t_skip "$PARAM is not Y: the rings themselves are not tested"
fi

# fio_run PROFILE: write with verify through the rings, then check the
# rings carried the requests.
fio_run() {
	t_mount -o io_uring=auto --profile "$1"
	case "$(t_status transport)" in
	io_uring*) ;;
	*) t_fail "io_uring=auto with the kernel's offer: '$(t_status transport)'" ;;
	esac
	fio --name="$1" --filename="$MNT/$1.dat" --size=16M --bs=4k \
		--rw=randrw --ioengine=io_uring --iodepth=16 --direct=1 \
		--verify=crc32c --do_verify=1 --output="$T/fio.$1" ||
		t_fail "fio with verify through the rings ($1): $(tail -5 "$T/fio.$1")"
	local n
	n=$(t_status 'ring requests')
	[ "$n" -ge 4096 ] || t_fail "$1: only $n requests came on the rings"
	sha1sum "$MNT/$1.dat" | cut -d' ' -f1 >"$T/sum.$1"
	t_umount
}
fio_run null
fio_run allflash

# The same bytes through the classic transport.
t_mount -o io_uring=off
for p in null allflash; do
	t_assert_eq "$(sha1sum "$MNT/$p.dat" | cut -d' ' -f1)" "$(cat "$T/sum.$p")" \
		"$p.dat read back through the classic transport"
done
t_umount
"$ARRAYSIM" fsck --store "$STORE" --quiet || t_fail "fsck after the rings"
t_log "ok: off, auto and on transports; data intact across them"
