#!/usr/bin/env bash
# seed003 PROFILE: the bonnie++/Postmark report's parameters run clean on a
# mount of one of its four systems (tintri-t540, tegile-ha2200ep,
# nexsan-e5000, opensolaris-b132; issue 16, section 2), and the data
# survives them:
#   1. a reference file (random, 8 MiB) and its SHA-256;
#   2. bonnie++ -n 10:102400:1024:1024 -s 0 (the report's -n spec: 10 x
#      1024 files of 1 KiB to 100 KiB in 1024 directories, created,
#      stat'ed, read and deleted in order and at random; -s 0: no large
#      file phase, which the report's spec did not set);
#   3. Postmark with the report's number (2000) and transactions (2500)
#      and its defaults otherwise, but files of 1 KB to 100 KB where the
#      report had 10 KB to 10 MB. DEVIATION, why: with the full range the
#      creation phase alone writes 10 GB, 4 KiB at a time (postmark's
#      buffered 512-byte writes reach the mount as stdio's 4 KiB), one
#      request outstanding: on opensolaris-b132 2.7 million requests and
#      31.7 min before 284 of the 2500 transactions were done, over an
#      hour in all (bench/RESULTS.md, issue 16 section 2);
#      bench/seed003.sh runs the full parameters on each profile;
#   4. both exit 0 and leave nothing behind; umount, `arraysim fsck`
#      clean, remount, the reference file reads back the same.
# Scale 1 (SEED003_SCALE to change it): the profile as it is. No scale
# keeps this under the host's ceiling: bonnie++'s spec is 280,000 reads
# and writes of 1 to 100 KiB and 200,000 metadata operations one at a
# time, and on a null mount (no model at all) the host alone took 48 s;
# each timed request adds the host's wake-up when the model releases it,
# so the scale hardly changes the time (tegile-ha2200ep: 136 s at scale
# 4, 164 s at 50). Measured here, plain build, scale 1, 2026-12-03, this
# 2-vCPU VM loaded by other helpers' suites (load 3 to 6): bonnie++ 170
# s and Postmark 35 s on tintri-t540, 176 s and 23 s on tegile-ha2200ep,
# 154 s and 34 s on nexsan-e5000 at scale 10, 166 s and 40 s on
# opensolaris-b132 (about 3.5 min a test with the mounts). nexsan-e5000
# at scale 1 was stopped after 5 min in bonnie++'s first phase: its 4
# KiB writes took 5.9 ms each, the RAID 6 read-modify-write on the disks
# once the 100 ms write backlog fills, so it runs at scale 10.
# Nothing here is timed: the test is that the runs complete clean.
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
t_mount --profile "$PROFILE" --scale "$SCALE"
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
printf '%s\n' "set location $MNT/pm" 'set size 1000 100000' 'set number 2000' \
	'set transactions 2500' run quit >"$T/pm.cfg"
SECONDS=0
postmark "$T/pm.cfg" >"$T/pm.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$T/pm.out" >&2; t_fail "postmark exited $rc"; }
t_log "$PROFILE: postmark (2000 files, 2500 transactions, 1 KB..100 KB) took ${SECONDS} s"
grep -q 'transactions' "$T/pm.out" || { cat "$T/pm.out" >&2; t_fail "postmark printed no report"; }
[ -z "$(ls -A "$MNT/pm")" ] || t_fail "postmark left files behind"
errors=$("$ARRAYSIM" stats --json "$MNT" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(sum(o["errors"] for o in d["ops"].values()), d["checksum_errors"], d["verify_mismatches"])')
t_assert_eq "$errors" "0 0 0" "errors, checksum errors, verify mismatches"

t_umount
t_fsck
t_mount --profile "$PROFILE" --scale "$SCALE"
got=$(sha256sum <"$MNT/ref")
t_assert_eq "$got" "$want" "the reference file after bonnie++, postmark and a remount"
t_umount
echo "PASS"
