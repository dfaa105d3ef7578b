#!/usr/bin/env bash
# FUSE over io_uring's ring depth (fs/uring.c): a timed array holds each
# request's ring entry until the request's emulated completion, so a ring
# must take every request its CPU has in the daemon, or the kernel queues
# the rest where the model's clock cannot see them wait. `ctl status`
# says how full the rings got: `ring entries peak P of D` and `ring full
# N`, the times a ring had every entry in the daemon.
#
# The load: 4k random reads at QD32 from one CPU (taskset, libaio: the
# submissions run on that CPU, so they all come on its ring) on a timed
# profile whose reads take milliseconds (a file never read before, on
# infinidat-6303's disks at --scale 0.02: 50 times the array's latency).
# With 4 entries a ring the ring fills; with the default it never does,
# and the peak shows the requests held at once.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio taskset
t_setup
t_require_rings

# load: 4 s of 4k random reads at QD32 from CPU 0.
load() {
	taskset -c 0 fio --name=r --filename="$MNT/cold" --bs=4k \
		--rw=randread --ioengine=libaio --iodepth=32 --direct=1 \
		--runtime=4 --time_based --output="$T/fio.out" ||
		t_fail "fio: $(tail -5 "$T/fio.out")"
}

t_mount
head -c 32M /dev/urandom >"$MNT/cold"
t_umount

ARRAYSIM_URING_DEPTH=4 t_mount -o io_uring=on \
	--profile infinidat-6303 --scale 0.02 --seed 1
load
peak=$(t_status 'ring entries peak')
full=$(t_status 'ring full')
t_log "depth 4: ring entries peak $peak, ring full $full"
t_assert_eq "$peak" "4 of 4" "depth 4: ring entries peak"
[ "$full" -gt 0 ] || t_fail "depth 4 at QD32: ring full $full (want > 0)"
t_umount

t_mount -o io_uring=on --profile infinidat-6303 --scale 0.02 --seed 1
load
peak=$(t_status 'ring entries peak')
full=$(t_status 'ring full')
t_log "default depth: ring entries peak $peak, ring full $full"
t_assert_eq "$full" 0 "default depth at QD32: ring full"
[ "${peak%% *}" -ge 16 ] ||
	t_fail "default depth at QD32: peak $peak (want >= 16 held at once)"
t_umount
t_log "ok: a full ring is counted; the default depth holds QD32 whole"
