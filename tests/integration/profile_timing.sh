#!/usr/bin/env bash
# profile_timing: a mount with a timed profile answers at the modelled
# pace, not the host's. micron-m600 at --scale 0.1 reads 4 KiB at QD1 in
# 1.793 ms on an idle drive (tests/tiers/test_profiles.c: 5577.6 IOPS at
# scale 1), so fio must see at most 558 IOPS (it cannot beat the model)
# and, with the host's own path on top, at least half that; the same
# store under `null` is far faster. Then the data is still intact.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd fio python3

t_setup
t_mount
t_fio --name=fill --filename="$MNT/f" --rw=write --bs=1M --size=64M \
	--ioengine=psync --refill_buffers
sha=$(sha256sum <"$MNT/f")

# iops JOBNAME: 4 KiB random reads at QD1 for 2 s; prints read IOPS.
iops() {
	t_fio --name="$1" --filename="$MNT/f" --rw=randread --bs=4k --size=64M \
		--ioengine=psync --runtime=2 --time_based --output-format=json
	python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["jobs"][0]["read"]["iops"]))' \
		"$T/fio.$T_FIO_N.out"
}

null_iops=$(iops null)
t_umount
t_mount --profile micron-m600 --scale 0.1
timed_iops=$(iops timed)
t_log "4K random read QD1: null $null_iops IOPS, micron-m600 at 0.1: $timed_iops (model 558)"
[ "$timed_iops" -le 586 ] || t_fail "micron-m600 --scale 0.1 read $timed_iops IOPS, more than the model's 558 (+5%)"
[ "$timed_iops" -ge 279 ] || t_fail "micron-m600 --scale 0.1 read $timed_iops IOPS, under half the model's 558"
[ "$null_iops" -ge $((timed_iops * 4)) ] || t_fail "null ($null_iops IOPS) is not well above the timed profile ($timed_iops)"
t_assert_eq "$(sha256sum <"$MNT/f")" "$sha" "contents under the timed profile"
t_umount
t_fsck
