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
