#!/usr/bin/env bash
# array_loss: drive failures beyond what the RAID level survives lose
# exactly the blocks the model reports, and nothing else.
#
# A raid5 of 8 SSDs in declustered stripes of 4 (tiers/placement.h), 64K
# units. fio writes 16 files with crc32c verify headers (every block
# unique); a hash of every block is taken. Two drives pulled at once: the
# stripes holding both lose the units on them. Checked: the loss report
# printed at the injection, `fault list` and the block_lost events agree;
# a read of every block of every file fails with EIO on exactly the
# reported (file, offset) pairs and returns the bytes it held everywhere
# else; lost_reads counts the failures; restoring the drives brings
# nothing back; fio verify passes on every file the loss spared; fsck is
# clean (the store's bytes are intact: the loss is the model's). A
# remount keeps the loss (STORE/lost.blocks): EIO on the same blocks.
# Deleting a file that lost blocks frees them and the loss with them;
# overwriting a lost block makes it readable. A log that is not one
# fails the mount with one line; moved away, everything reads again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/loss_lib.sh"
t_require_cmd fio
t_require_cmd python3

t_setup
A=$ARRAYSIM
ctl() { "$A" ctl "$MNT" "$@"; }

front_ini >"$T/r5.ini"
cat >>"$T/r5.ini" <<-'INI'
	[tier flash]
	kind = ssd
	drives = 8
	capacity = 10G
	raid = raid5
	stripe_width = 4
	stripe_unit = 64K
	read_latency = 100us
	write_latency = 50us
	slots = 8
	fill = 50%
	rebuild_rate = 50M/s
	detection_window = 2s
INI
NFILES=16
write_jobs() { # FILE VERIFY_ONLY [JOB...]
	local f=$1 vo=$2 j
	shift 2
	{
		printf '[global]\ndirectory=%s\nsize=512K\nbs=64K\nrw=write\n' "$MNT"
		printf 'ioengine=psync\nverify=crc32c\ndo_verify=1\nverify_fatal=1\n'
		printf 'verify_only=%s\nfallocate=none\n' "$vo"
		for j in "$@"; do printf '[%s]\nfilename=%s\n' "$j" "$j"; done
	} >"$f"
}
all=()
for ((i = 0; i < NFILES; i++)); do all+=("f$i"); done

t_mount --profile "$T/r5.ini" --scale 10 --seed 5
write_jobs "$T/w.fio" 0 "${all[@]}"
t_fio "$T/w.fio"

blocks_of "$T/before"
grep -q EIO "$T/before" && t_fail "a block failed to read before any fault"

t_log "pull drives 2 and 5 at once: beyond raid5's tolerance"
ctl fault inject drive id=2 >"$T/inj1"
ctl fault inject drive id=5 >"$T/inj2"
[ "$(grep -c '^lost ' "$T/inj1")" -eq 0 ] || t_fail "one drive out lost data"
nrep=$(reported_of "$T/inj2" "$T/reported")
t_log "loss report: $nrep blocks"
[ "$nrep" -gt 0 ] || t_fail "two drives of 8 in stripes of 4 lost nothing"
total=$(wc -l <"$T/before")
[ "$nrep" -lt "$total" ] || t_fail "everything was lost ($nrep of $total)"

ctl fault list >"$T/list"
grep '^lost /' "$T/list" | awk '{print $2, $4}' | sort | cmp - "$T/reported" ||
	t_fail "fault list does not list the same losses"
events_lost drives | cmp - "$T/reported" || t_fail "the event log does not list the same losses"

t_log "read every block: EIO exactly where reported, the old bytes elsewhere"
check_exact "$T/before" "$T/reported"
lost_reads=$(t_stat_json lost_reads)
t_assert_eq "$lost_reads" "$nrep" "lost_reads counter"

t_log "restore both drives: what was lost stays lost"
ctl fault clear all
check_exact "$T/before" "$T/reported"

spared=()
for f in "${all[@]}"; do
	grep -q "^/$f " "$T/reported" || spared+=("$f")
done
t_log "fio verify over the ${#spared[@]} files the loss spared"
[ "${#spared[@]}" -gt 0 ] || t_fail "no file was spared"
write_jobs "$T/v.fio" 1 "${spared[@]}"
t_fio "$T/v.fio"

t_umount
t_fsck

t_log "remount: the loss stays, exactly"
t_mount --profile "$T/r5.ini" --scale 10 --seed 5
check_exact "$T/before" "$T/reported"
ctl fault list | grep '^lost /' | awk '{print $2, $4}' | sort | cmp - "$T/reported" ||
	t_fail "fault list after the remount does not list the same losses"

t_log "delete one file that lost blocks, overwrite a lost block of another"
gone=$(awk 'NR == 1 {print $1}' "$T/reported")
rm "$MNT$gone"
grep -v "^$gone " "$T/reported" >"$T/left"
read -r opath ooff < <(head -n 1 "$T/left")
head -c 4096 /dev/urandom >"$T/new"
dd if="$T/new" of="$MNT$opath" bs=4096 seek=$((ooff / 4096)) conv=notrunc status=none
grep -v "^$opath $ooff\$" "$T/left" >"$T/left2"
blocks_of "$T/now2"
awk '$3 == "EIO" {print $1, $2}' "$T/now2" | sort | cmp - "$T/left2" ||
	t_fail "after delete and overwrite: EIO not on exactly the blocks left lost"
cmp <(dd if="$MNT$opath" bs=4096 skip=$((ooff / 4096)) count=1 status=none) "$T/new" ||
	t_fail "the overwritten block does not read back"
t_umount
t_fsck
records=$(( ($(stat -c %s "$STORE/lost.blocks") - 8) / 16 ))
t_mount --profile "$T/r5.ini" --scale 10 --seed 5
t_umount
records2=$(( ($(stat -c %s "$STORE/lost.blocks") - 8) / 16 ))
t_assert_eq "$records2" "$(wc -l <"$T/left2")" "lost.blocks records after a compacting mount"
[ "$records" -ge "$records2" ] || t_fail "the log grew from $records to $records2 records at mount"

t_log "a damaged log fails the mount with one line; moved away, nothing is lost"
mv "$STORE/lost.blocks" "$T/lost.blocks"
printf 'garbage!' >"$STORE/lost.blocks"
rc=0
"$A" mount --store "$STORE" --profile "$T/r5.ini" "$MNT" 2>"$T/err" || rc=$?
t_is_mounted "$MNT" && t_fail "mounted over a damaged lost.blocks"
[ "$rc" -ne 0 ] || t_fail "mount over a damaged lost.blocks exited 0"
t_assert_eq "$(wc -l <"$T/err")" "1" "lines of the mount error"
grep -q 'lost.blocks: not a lost-blocks log' "$T/err" || t_fail "mount error: $(cat "$T/err")"
rm "$STORE/lost.blocks"
t_mount --profile "$T/r5.ini" --scale 10 --seed 5
blocks_of "$T/remount"
awk '$3 == "EIO"' "$T/remount" | grep -q . && t_fail "EIO with the log moved away"
t_umount
t_log "ok: $nrep of $total blocks lost, exactly as reported, across a remount"
