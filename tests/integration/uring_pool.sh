#!/usr/bin/env bash
# FUSE over io_uring's pool (fs/uring_pool.c): a burst a ring thread reaps
# in one batch is spread over idle workers, so `ctl status`'s ring pool
# requests grows under 1 MiB reads at QD8; a QD1 stream keeps the ring
# thread's own path (no hand-off), so it stays 0.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio
t_setup
t_require_rings

# readf BS QD: read the file once through the rings with direct I/O.
readf() {
	fio --name=r --filename="$MNT/f.dat" --size=64M --bs="$1" --rw=read \
		--ioengine=io_uring --iodepth="$2" --direct=1 \
		--output="$T/fio.$1" || t_fail "fio $1 QD$2: $(tail -5 "$T/fio.$1")"
}

t_mount -o io_uring=on
head -c 64M /dev/urandom >"$MNT/f.dat"
readf 1M 8
n=$(t_status 'ring pool requests')
[ -n "$n" ] && [ "$n" -gt 0 ] ||
	t_fail "1 MiB reads at QD8: ring pool requests '$n' (want > 0)"
t_log "QD8: $n of $(t_status 'ring requests') ring requests on the pool"
t_umount

t_mount -o io_uring=on
readf 4k 1
t_assert_eq "$(t_status 'ring pool requests')" 0 "4k reads at QD1: ring pool requests"
t_umount
t_log "ok: a QD8 burst is spread over the pool, QD1 is not"
