# tests/integration/replication_lib.sh: what the replication tests share.
# Sourced after lib.sh. r_setup: t_setup, then REPLICA (the replica's store
# directory, made by the mount) and MNT2 (where the replica is mounted
# after a failover), both cleaned up on any exit; r_json KEY: one figure of
# stats --json's "replication" object; r_jobfile: fio jobs with verify.

r_cleanup() {
	local rc=$?
	[ $# -gt 0 ] && rc=$1
	if [ -n "${MNT2:-}" ] && t_is_mounted "$MNT2"; then
		timeout 20 "$ARRAYSIM" umount "$MNT2" >/dev/null 2>&1 \
			|| fusermount3 -uz "$MNT2" 2>/dev/null
		t_is_mounted "$MNT2" && umount -l "$MNT2" 2>/dev/null
	fi
	local pid
	pid=$([ -s "${REPLICA:-/nonexistent}/lock" ] && head -n 1 "$REPLICA/lock" | tr -cd '0-9')
	if t_pid_is_arraysim "$pid" && [ "$pid" != "$(t_daemon_pid)" ]; then
		kill -TERM "$pid" 2>/dev/null
		t_wait_pid_exit "$pid" 5 || kill -KILL "$pid" 2>/dev/null
	fi
	t_cleanup "$rc"
}

r_setup() {
	t_setup
	REPLICA=$T/replica
	MNT2=$T/mnt2
	mkdir "$MNT2"
	trap 'r_cleanup' EXIT
	trap 'r_cleanup 130' INT
	trap 'r_cleanup 143' TERM
}

r_json() {
	t_stat_json "replication.$1"
}

# r_jobfile FILE DIR VERIFY_ONLY SEED: 4 jobs, 12 MiB each, at random;
# written twice with two seeds, so that the second pass frees and
# reallocates blocks while replicating.
r_jobfile() {
	cat >"$1" <<-JOB
	[global]
	directory=$2
	size=12M
	randseed=$4
	fallocate=none
	verify=crc32c
	do_verify=1
	verify_fatal=1
	verify_dump=0
	verify_only=$3
	randrepeat=1
	rw=randwrite
	ioengine=psync
	fsync=32

	[a]
	bs=4k
	[b]
	bs=16k
	[c]
	bs=64k
	direct=1
	[d]
	bs=1M
	JOB
}

# r_two_passes: fio's two write passes (r_jobfile) on the source while it
# replicates, then `replication sync`; the status in $T/status must say
# running, at least 3 batches, no backlog. $T/verify.fio verifies the
# second pass on $MNT2 (r_failover_verify).
r_two_passes() {
	r_jobfile "$T/write1.fio" "$MNT" 0 1
	r_jobfile "$T/write2.fio" "$MNT" 0 2
	r_jobfile "$T/verify.fio" "$MNT2" 1 2
	t_fio "$T/write1.fio"
	t_fio "$T/write2.fio"
	"$ARRAYSIM" ctl "$MNT" replication sync || t_fail "replication sync"
	"$ARRAYSIM" ctl "$MNT" replication status >"$T/status"
	cat "$T/status" >&2
	grep -qx "state running" "$T/status" || t_fail "state is not running"
	local batches
	batches=$(r_json batches)
	[ "$batches" -ge 3 ] || t_fail "only $batches batches while fio ran"
	t_assert_eq "$(r_json backlog_txns)" 0 "backlog after replication sync"
}

# r_sums DIR OUT: sha256 of every file under DIR, by relative path.
r_sums() {
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum) >"$2"
	[ -s "$2" ] || t_fail "no files under $1"
}

# r_mount_replica: mount the replica on MNT2 (after the source's umount).
r_mount_replica() {
	local rc=0
	"$ARRAYSIM" mount --store "$REPLICA" "$MNT2" || rc=$?
	[ "$rc" -eq 0 ] || t_fail "mount of the replica $REPLICA exited $rc"
}

# r_umount_replica: unmount MNT2 and wait for its daemon to let go.
r_umount_replica() {
	local pid
	pid=$(head -n 1 "$REPLICA/lock" | tr -cd '0-9')
	"$ARRAYSIM" umount "$MNT2" || t_fail "umount of the replica exited $?"
	t_wait_pid_exit "$pid" 30 || t_fail "replica daemon $pid still running"
}

# r_fsck DIR: the store in DIR is clean.
r_fsck() {
	local out rc=0
	out=$("$ARRAYSIM" fsck --store "$1" 2>&1) || rc=$?
	[ "$rc" -eq 0 ] || { printf '%s\n' "$out" >&2; t_fail "fsck of $1 exited $rc"; }
}

# r_secret FILE TEXT: a secret file only its owner reads.
r_secret() {
	printf '%s\n' "$2" >"$1"
	chmod 600 "$1"
}

# r_replica_start [PORT]: `arraysim replica` serving $REPLICA on
# 127.0.0.1:PORT (default 0: any) with the secret $T/secret; R_PID, and
# R_PORT from the address it prints once listening. Stopped in cleanup.
r_replica_start() {
	local i
	: >"$T/replica.out"
	"$ARRAYSIM" replica --listen "127.0.0.1:${1:-0}" --secret-file "$T/secret" \
		"$REPLICA" >"$T/replica.out" 2>>"$T/replica.err" &
	R_PID=$!
	T_PIDS+=("$R_PID")
	for ((i = 0; i < 200; i++)); do
		grep -q " serving on " "$T/replica.out" && break
		kill -0 "$R_PID" 2>/dev/null \
			|| t_fail "arraysim replica exited: $(cat "$T/replica.err")"
		sleep 0.05
	done
	R_PORT=$(sed -n 's/.* serving on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$T/replica.out")
	[ -n "$R_PORT" ] || t_fail "arraysim replica printed no address: $(cat "$T/replica.out")"
}

# r_replica_stop: SIGTERM; it must close its store and exit 0.
r_replica_stop() {
	local rc=0
	kill -TERM "$R_PID"
	wait "$R_PID" || rc=$?
	t_assert_eq "$rc" 0 "arraysim replica's exit status after SIGTERM"
	grep -q "arraysim: replica: .* closed$" "$T/replica.err" \
		|| t_fail "arraysim replica did not say it closed its store"
}

# r_store_state DIR: each file of a store with its size and modification
# time (its lock files aside; the files are sparse and large to hash).
r_store_state() {
	(cd "$1" && find . -type f ! -name '*lock*' -printf '%p %s %T@\n' | sort)
}

# r_stop_source: after `replication stop`: the source's sums, a file
# written after the stop (the replica must not have it), unmounted, clean.
r_stop_source() {
	r_sums "$MNT" "$T/source.sums"
	echo after-stop >"$MNT/after-stop"
	t_umount
	t_fsck
}

# r_failover_verify: the replica (fsck-clean, not in use) mounted on MNT2:
# no after-stop file, fio's $T/verify.fio verify_only passes, the files are
# the source's byte for byte; unmounted and clean again.
r_failover_verify() {
	t_log "failover: mount the replica, fio verify_only"
	r_mount_replica
	[ -e "$MNT2/after-stop" ] && t_fail "the replica has a file written after the stop"
	t_fio "$T/verify.fio"
	# verify_only checks each block against itself; the sums, against the source
	r_sums "$MNT2" "$T/replica.sums"
	cmp -s "$T/source.sums" "$T/replica.sums" || t_fail "the replica's files differ"
	r_umount_replica
	r_fsck "$REPLICA"
}
