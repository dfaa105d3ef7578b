#!/usr/bin/env bash
# cache_loss: a hybrid's cache device fails (fault inject cache-device).
# Write-back: the blocks written but not yet destaged to the backing tier
# are only on the cache. Not mirrored: exactly those are lost (EIO on the
# reported file offsets, the old bytes everywhere else, as many as the
# cache said were dirty); losing both drives of one raid10 pair of the
# cache tier loses the dirty blocks placed on that pair. Mirrored: none
# are. fsck is clean after each.
#
# The cache is 4 MiB (1024 blocks) and destages from 50% dirty down to
# 25%, so of 2048 blocks written some are on the backing tier (destaged
# or evicted) and some only in the cache when it fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/loss_lib.sh"
t_require_cmd python3

t_setup
A=$ARRAYSIM
ctl() { "$A" ctl "$MNT" "$@"; }

# profile MIRRORED: a small write-back hybrid.
profile() {
	front_ini
	cat <<-INI
	[tier cache]
	kind = ssd
	drives = 4
	capacity = 100G
	raid = raid10
	read_latency = 100us
	write_latency = 50us
	slots = 8
	[tier backing]
	kind = ssd
	drives = 6
	capacity = 1T
	raid = raid6
	read_latency = 200us
	write_latency = 100us
	slots = 8
	[cache]
	policy = write-back
	size = 4M
	destage_start = 50%
	destage_stop = 25%
	destage_rate = 1M/s
	mirrored = $1
	INI
}
profile no >"$T/plain.ini"
profile yes >"$T/mirrored.ini"

# fill PREFIX: 16 files of 512 KiB of random bytes copied in; their
# blocks as written, read from the source (reading through the mount
# would move the cache).
fill() {
	rm -rf "$T/src" && mkdir "$T/src"
	for ((i = 0; i < 16; i++)); do head -c 524288 /dev/urandom >"$T/src/$1$i"; done
	cp "$T/src"/* "$MNT"/
	blocks_of "$T/before.$1" "$T/src"
}
dirty() {
	"$A" stats --array --json "$MNT" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["cache"]["dirty"])'
}

t_mount --profile "$T/plain.ini" --scale 10 --seed 2
fill a
ndirty=$(dirty)
t_log "cache device fails, not mirrored, with $ndirty dirty blocks"
ctl fault inject cache-device >"$T/inj"
nrep=$(reported_of "$T/inj" "$T/reported")
total=$(wc -l <"$T/before.a")
t_assert_eq "$nrep" "$ndirty" "blocks lost vs dirty in the cache"
[ "$nrep" -gt 0 ] && [ "$nrep" -lt "$total" ] ||
	t_fail "lost $nrep of $total: the test wants some dirty, some destaged"
events_lost cache-device | cmp - "$T/reported" || t_fail "the event log does not list the same losses"
check_exact "$T/before.a" "$T/reported"
t_assert_eq "$(t_stat_json lost_reads)" "$nrep" "lost_reads counter"
t_assert_eq "$(dirty)" 0 "dirty blocks after the failure"
t_umount
t_fsck

t_log "both drives of one raid10 pair of the cache tier: its dirty blocks"
t_mount --profile "$T/plain.ini" --scale 10 --seed 2
rm "$MNT"/a*
fill c
ndirty=$(dirty)
ctl fault inject drive tier=cache id=0 >"$T/inj3"
grep -q '^lost ' "$T/inj3" && t_fail "one cache drive out lost data"
ctl fault inject drive tier=cache id=1 >"$T/inj3"
npair=$(reported_of "$T/inj3" "$T/reported3")
t_log "pair 0 of 2 lost $npair of the $ndirty dirty blocks"
[ "$npair" -gt 0 ] && [ "$npair" -lt "$ndirty" ] ||
	t_fail "lost $npair of $ndirty dirty blocks on one pair of two"
check_exact "$T/before.c" "$T/reported3"
t_umount
t_fsck

t_log "the same, mirrored: nothing is lost"
t_mount --profile "$T/mirrored.ini" --scale 10 --seed 2
rm "$MNT"/c*
fill b
ndirty=$(dirty)
[ "$ndirty" -gt 0 ] || t_fail "no dirty blocks to keep"
ctl fault inject drive tier=cache id=2 >/dev/null
ctl fault inject drive tier=cache id=3 >"$T/pair2"
grep -q '^lost 0 blocks referenced 0 times$' "$T/pair2" ||
	t_fail "mirrored cache lost blocks with a pair: $(cat "$T/pair2")"
ctl fault inject cache-device >"$T/inj2"
grep -q "^cache device failed: $ndirty dirty blocks kept" "$T/inj2" ||
	t_fail "mirrored report: $(cat "$T/inj2")"
: >"$T/none"
check_exact "$T/before.b" "$T/none"
t_umount
t_fsck
t_log "ok: $nrep of $total blocks lost unmirrored, none mirrored"
