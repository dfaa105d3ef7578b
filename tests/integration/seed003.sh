#!/usr/bin/env bash
# seed003 PROFILE: the bonnie++/Postmark report's parameters run clean on a
# mount of one of its four systems (tintri-t540, tegile-ha2200ep,
# nexsan-e5000, opensolaris-b132; issue 16, section 2), and the data
# survives them. The mount has -o writeback_cache: the evaluation ran both
# inside a VM, on a guest file system with the guest's page cache, so its
# buffered writes reached the datastore coalesced, and so they reach the
# array here (bonnie++'s 25,000 WRITEs average 50 KB; without the cache
# every 4 KiB stdio flush was one request).
#   1. a reference file (random, 8 MiB) and its SHA-256;
#   2. bonnie++ -n 10:102400:1024:1024 -s 0 (the report's -n spec: 10 x
#      1024 files of 1 KiB to 100 KiB in 1024 directories, created,
#      stat'ed, read and deleted in order and at random; -s 0: no large
#      file phase, which the report's spec did not set);
#   3. Postmark with the report's parameters: set size 10000 10000000,
#      set number 2000, set transactions 2500, its defaults otherwise.
#      It writes 19.1 GB and reads 6.3 GB; through the writeback cache
#      that is 20,600 WRITEs of 927 KB on average. Until the daemon took
#      FUSE_HANDLE_KILLPRIV_V2 (fs/README.md) the kernel also asked it for
#      security.capability before each 4 KiB write() (4.7 million
#      GETXATTRs), a profile's test took 259-372 s, and CI ran files of
#      1 KB to 100 KB instead. SEED003_PM_SIZE="1000 100000" runs that
#      smaller range (a quick look); bench/seed003.sh runs the full
#      parameters on each profile with its figures;
#   4. both exit 0 and leave nothing behind; umount, `arraysim fsck`
#      clean, remount, the reference file reads back the same.
# Scale 1 (SEED003_SCALE to change it): the profile as it is; nexsan-e5000
# at 10 (its small random writes are RAID 6 read-modify-writes on the
# disks, 5.9 ms each at scale 1 without the cache: kept at 10, not
# re-measured at 1 with it). Measured here, plain build, 2026-12-04, the
# machine otherwise idle: bonnie++ and Postmark 18 s and 101 s on
# tintri-t540, 34 s and 250 s on tegile-ha2200ep, 28 s and 94 s on
# nexsan-e5000, 30 s and 240 s on opensolaris-b132 (121 to 285 s a test).
# The two ZFS systems' Postmark is the model's pace, not the host's: at
# --scale 2 tegile-ha2200ep's took 160 s and the daemon warned host-bound
# (5-68% of replies late), so they stay at 1.
# Nothing here is timed: the test is that the runs complete clean; it
# prints the write count, mean size and GETXATTR count.
# SEED003_PROFILES="P1 P2": run only those (the others skip, 77);
# scripts/test.sh --sanitize sets it to none (437 s for one profile
# sanitized: see there).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t_require_cmd bonnie++ postmark sha256sum

PROFILE=${1:?usage: seed003.sh PROFILE}
t_only_profiles SEED003_PROFILES "$PROFILE"
t_setup
# nexsan-e5000's small random writes are disk-bound (RAID 6 read-modify-
# write, 5.9 ms each at scale 1): at 10 its run fits the others' time.
case "$PROFILE" in nexsan-e5000) SCALE=${SEED003_SCALE:-10} ;; *) SCALE=${SEED003_SCALE:-1} ;; esac
t_mount --profile "$PROFILE" --scale "$SCALE" -o writeback_cache
head -c 8M /dev/urandom >"$T/ref"
cp "$T/ref" "$MNT/ref"
want=$(sha256sum <"$T/ref")

mkdir "$MNT/bonnie"
SECONDS=0
rc=0
bonnie++ -d "$MNT/bonnie" -s 0 -n 10:102400:1024:1024 -u root >"$T/bonnie.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$T/bonnie.out" >&2; t_fail "bonnie++ exited $rc"; }
t_log "$PROFILE: bonnie++ -n 10:102400:1024:1024 took ${SECONDS} s"
[ -z "$(ls -A "$MNT/bonnie")" ] || t_fail "bonnie++ left files behind: $(ls -A "$MNT/bonnie" | head -3)"

mkdir "$MNT/pm"
PM_SIZE=${SEED003_PM_SIZE:-10000 10000000}
printf '%s\n' "set location $MNT/pm" "set size $PM_SIZE" 'set number 2000' \
	'set transactions 2500' run quit >"$T/pm.cfg"
SECONDS=0
postmark "$T/pm.cfg" >"$T/pm.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$T/pm.out" >&2; t_fail "postmark exited $rc"; }
t_log "$PROFILE: postmark (2000 files, 2500 transactions, size $PM_SIZE) took ${SECONDS} s"
grep -q 'transactions' "$T/pm.out" || { cat "$T/pm.out" >&2; t_fail "postmark printed no report"; }
[ -z "$(ls -A "$MNT/pm")" ] || t_fail "postmark left files behind"
"$ARRAYSIM" stats --json "$MNT" >"$T/stats.json"
errors=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
w = d["ops"]["write"]
print("writes: %d, %.0f bytes on average, %d getxattr" % (w["count"],
      w["bytes"] / max(w["count"], 1), d["ops"]["xattr"]["count"]), file=sys.stderr)
print(sum(o["errors"] for o in d["ops"].values()), d["checksum_errors"], d["verify_mismatches"])' "$T/stats.json")
t_assert_eq "$errors" "0 0 0" "errors, checksum errors, verify mismatches"

t_umount
t_fsck
t_mount --profile "$PROFILE" --scale "$SCALE" -o writeback_cache
got=$(sha256sum <"$MNT/ref")
t_assert_eq "$got" "$want" "the reference file after bonnie++, postmark and a remount"
t_umount
echo "PASS"
