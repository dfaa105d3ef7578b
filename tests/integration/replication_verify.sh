#!/usr/bin/env bash
# replication_verify: a store replicated asynchronously to a second store on
# this host while fio writes and verifies on the source (random overwrites,
# fsyncs as sync points, the rpo between them: many batches under load,
# blocks freed and reused while replicating). After `ctl replication sync`
# and `stop`, the source is unmounted, the replica is fsck-clean, mounts,
# and fio's verify_only of the same jobs passes on it: every byte the
# source acknowledged before the sync is there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replication_lib.sh"
t_require_cmd fio

r_setup
"$ARRAYSIM" mount --store "$STORE" --rpo 1s "$MNT" 2>"$T/err" \
	&& t_fail "--rpo without --replicate-to was accepted"
grep -q "^arraysim: mount: --rpo needs --replicate-to" "$T/err" \
	|| t_fail "the refusal of --rpo alone: $(cat "$T/err")"

t_mount --replicate-to "$REPLICA" --rpo 200ms

t_log "fio write + verify on the source, replicating; then overwritten"
r_two_passes
t_assert_eq "$(r_json lag_s)" 0.0 "lag after replication sync"
# Every logical block of both passes was carried by a batch, as bytes or
# as a block the replica had; at least every unique block now was shipped.
logical=$(r_json logical_bytes)
[ "$logical" -ge $((2 * 4 * 12 * 1048576)) ] \
	|| t_fail "the batches carried $logical logical bytes, less than two passes"
t_assert_eq "$(( $(r_json block_bytes) + $(r_json saved_bytes) ))" "$logical" \
	"block_bytes + saved_bytes against logical_bytes"
[ "$(r_json blocks_shipped)" -ge "$(t_stat_json unique_blocks)" ] \
	|| t_fail "fewer blocks shipped than the source holds"

"$ARRAYSIM" ctl "$MNT" replication bogus 2>"$T/err" \
	&& t_fail "ctl replication bogus was accepted"
grep -q "^arraysim: ctl: replication bogus: not" "$T/err" \
	|| t_fail "the refusal of a bad verb: $(cat "$T/err")"
"$ARRAYSIM" ctl "$MNT" replication pause
"$ARRAYSIM" ctl "$MNT" replication sync 2>/dev/null \
	&& t_fail "replication sync while paused was accepted"
"$ARRAYSIM" ctl "$MNT" replication resume
"$ARRAYSIM" ctl "$MNT" replication sync
"$ARRAYSIM" ctl "$MNT" replication stop
grep -qx "state stopped" <("$ARRAYSIM" ctl "$MNT" replication status) \
	|| t_fail "state is not stopped after stop"

r_stop_source
r_fsck "$REPLICA"
r_failover_verify
