#!/usr/bin/env bash
# replication_tcp: replication_verify over loopback TCP, two processes: an
# `arraysim replica` on 127.0.0.1 (port 0: it prints the one it bound) and
# a mount with --replicate-to 127.0.0.1:PORT. First the refusals: a source
# with the wrong secret, with none, with a world-readable one, and raw
# clients sending garbage, an oversized frame and a wrong MAC are turned
# away, the replica's store unchanged and the server still serving. Then
# fio writes and verifies on the source while it replicates; after
# `replication sync` and `stop` the source is unmounted, the replica
# stopped by SIGTERM is fsck-clean, mounts, and fio's verify_only passes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/replication_lib.sh"
t_require_cmd fio
t_require_cmd python3

r_setup
r_secret "$T/secret" "the shared secret of this test"
r_secret "$T/wrong" "not the shared secret"
r_replica_start
DEST=127.0.0.1:$R_PORT
r_store_state "$REPLICA" >"$T/empty.state"

t_log "refusals"
refused() { # WHAT LINE ARGS...: the mount fails with LINE
	local what=$1 line=$2 rc=0
	shift 2
	"$ARRAYSIM" mount --store "$STORE" "$@" "$MNT" 2>"$T/err" || rc=$?
	[ "$rc" -ne 0 ] || { t_umount; t_fail "a source with $what was accepted"; }
	grep -q "$line" "$T/err" || t_fail "the refusal of $what: $(cat "$T/err")"
	[ "$(wc -l <"$T/err")" -eq 1 ] || t_fail "the refusal of $what is not one line: $(cat "$T/err")"
}
refused "the wrong secret" "^arraysim: replica $DEST: handshake: the source does not hold the shared secret" \
	--replicate-to "$DEST" --replication-secret-file "$T/wrong"
refused "no secret" "^arraysim: mount: --replicate-to $DEST: TCP needs --replication-secret-file" \
	--replicate-to "$DEST"
chmod 644 "$T/wrong"
refused "a world-readable secret" "^arraysim: mount: secret file .* readable or writable by others" \
	--replicate-to "$DEST" --replication-secret-file "$T/wrong"
: >"$T/empty" && chmod 600 "$T/empty"
refused "an empty secret" "^arraysim: mount: secret file .* is empty" \
	--replicate-to "$DEST" --replication-secret-file "$T/empty"
grep -q "the source does not hold the shared secret" "$T/replica.err" \
	|| t_fail "the replica did not log the refusal: $(cat "$T/replica.err")"

# Raw clients: each is answered by the server closing the session.
python3 - "$R_PORT" <<'PY' || t_fail "a raw client was not turned away"
import socket, struct, sys
port = int(sys.argv[1])
def session(payload):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    hello = b""
    while len(hello) < 49:
        b = s.recv(49 - len(hello))
        assert b, "no HELLO"
        hello += b
    assert hello[0] == 1 and hello[9:17] == b"ARSREPL1", hello[:17]
    try:  # an ERROR frame may come first, then the close (or a reset)
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)
        while s.recv(4096):
            pass
    except OSError:  # reset, broken pipe, or already shut
        pass
    s.close()
session(b"GET / HTTP/1.0\r\n\r\n")                      # no such frame type
session(struct.pack("<BQ", 2, 1 << 62))                 # an AUTH of 4 EiB
session(struct.pack("<BQ", 5, 64) + bytes(64))          # FPS before the handshake
session(struct.pack("<BQ", 2, 64) + bytes(64))          # AUTH with a wrong MAC
session(struct.pack("<BQ", 2, 10) + b"short")           # cut short
PY
kill -0 "$R_PID" || t_fail "arraysim replica died of the raw clients"
r_store_state "$REPLICA" >"$T/after.state"
cmp -s "$T/empty.state" "$T/after.state" || t_fail "a refused session changed the replica's store"

t_log "fio write + verify on the source, replicating over TCP"
t_mount --replicate-to "$DEST" --replication-secret-file "$T/secret" --rpo 200ms
r_two_passes
grep -qx "replica $DEST" "$T/status" || t_fail "status does not name the replica"
logical=$(r_json logical_bytes)
t_assert_eq "$(( $(r_json block_bytes) + $(r_json saved_bytes) ))" "$logical" \
	"block_bytes + saved_bytes against logical_bytes"
# The frames' headers and the handshakes are on the wire too.
[ "$(r_json wire_bytes)" -gt "$(r_json block_bytes)" ] || t_fail "wire_bytes not above block_bytes"
"$ARRAYSIM" ctl "$MNT" replication stop
r_stop_source
r_replica_stop
r_fsck "$REPLICA"
r_failover_verify
