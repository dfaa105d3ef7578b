#!/usr/bin/env bash
# sigkill_fsync: what fsync() acknowledged survives the daemon being killed
# with SIGKILL. A writer appends 8 KiB records (a header block naming the
# record and the SHA-256 of its payload block, then the payload block, which
# repeats every 16 records so dedupe references are in flight too), fsyncs
# each, and only then logs the record's number to a file outside the mount.
# The daemon is killed at three different moments; after each kill the store
# is checked with fsck as the kill left it (clean), mounted again, and every
# logged record of every round so far must read back exactly. After the last
# round a clean umount leaves fsck clean too.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DELAYS=(0.3 1.2 2.5)   # seconds of writing after the first fsync, per round

t_setup

cat >"$T/records.py" <<'PY'
"""records.py write FILE LOG ROUND | check FILE LOG ROUND

Record i of round r sits at offset i*8192 of FILE:
  block 0: b"ASREC001" + (r, i) as two u64 + sha256(payload), zero-padded
  block 1: payload = 4096 bytes from sha256 chains seeded by (r, i % 16)
"""
import hashlib, os, struct, sys

REC = 8192

def payload(r, i):
    seed = b"arraysim-sigkill-%d-%d" % (r, i % 16)
    out = b"".join(hashlib.sha256(seed + struct.pack("<I", k)).digest() for k in range(128))
    assert len(out) == 4096
    return out

def header(r, i, p):
    h = b"ASREC001" + struct.pack("<QQ", r, i) + hashlib.sha256(p).digest()
    return h + bytes(4096 - len(h))

def write(path, log, r):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    with open(log, "a", buffering=1) as lf:
        i = 0
        while True:
            p = payload(r, i)
            try:
                os.pwrite(fd, header(r, i, p) + p, i * REC)
                os.fsync(fd)
            except OSError as e:
                print("writer: record %d: %s" % (i, e), file=sys.stderr)
                return 0
            lf.write("%d\n" % i)  # only after fsync returned 0
            i += 1

def check(path, log, r):
    seqs = [int(l) for l in open(log)]
    bad = 0
    with open(path, "rb") as f:
        for i in seqs:
            f.seek(i * REC)
            got = f.read(REC)
            p = payload(r, i)
            if got != header(r, i, p) + p:
                bad += 1
                if bad <= 10:
                    what = "short read (%d bytes)" % len(got) if len(got) != REC else \
                        "header" if got[:4096] != header(r, i, p) else "payload"
                    print("round %d record %d: %s differs" % (r, i, what), file=sys.stderr)
    print("round %d: %d fsync'd records checked, %d bad" % (r, len(seqs), bad), file=sys.stderr)
    return 1 if bad else 0

cmd, path, log, r = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.exit({"write": write, "check": check}[cmd](path, log, r))
PY

t_mount
for r in "${!DELAYS[@]}"; do
	log=$T/fsynced.$r
	: >"$log"
	python3 "$T/records.py" write "$MNT/journal.$r" "$log" "$r" 2>"$T/writer.$r.err" &
	writer=$!

	# Start the clock once the writer has a record on stable storage.
	for ((i = 0; i < 300; i++)); do
		[ -s "$log" ] && break
		kill -0 "$writer" 2>/dev/null || { cat "$T/writer.$r.err" >&2; t_fail "round $r: writer died before its first fsync"; }
		sleep 0.1
	done
	[ -s "$log" ] || t_fail "round $r: no record fsync'd within 30 s"
	sleep "${DELAYS[$r]}"

	pid=$(t_daemon_pid)
	t_pid_is_arraysim "$pid" || t_fail "round $r: no arraysim daemon in $STORE/lock (got '$pid')"
	kill -KILL "$pid"
	t_wait_pid_exit "$pid" 10 || t_fail "round $r: daemon $pid survived SIGKILL"
	fusermount3 -uz "$MNT" || t_fail "round $r: fusermount3 -uz $MNT"
	# The writer sees the connection go away and stops on its own.
	t_wait_pid_exit "$writer" 20 || { kill -KILL "$writer"; t_fail "round $r: writer hung after the daemon died"; }
	wait "$writer" || true
	t_log "round $r: killed after ${DELAYS[$r]} s; $(wc -l <"$log") records fsync'd ($(tail -n 1 "$T/writer.$r.err"))"

	# The store as the kill left it, before any mount could repair it, is
	# already consistent (metadata commits are atomic).
	t_fsck

	t_mount
	for ((k = 0; k <= r; k++)); do
		python3 "$T/records.py" check "$MNT/journal.$k" "$T/fsynced.$k" "$k" \
			|| t_fail "after kill $r: fsync'd records of round $k lost or damaged"
	done
done

t_umount
t_fsck
