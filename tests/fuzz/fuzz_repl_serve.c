/* libFuzzer harness for the replica's TCP server (replication/serve.c,
 * replication/frame.c): what an `arraysim replica` reads from the
 * network, before and after the handshake.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_repl_serve
 *   ./build-fuzz/tests/fuzz/fuzz_repl_serve
 *
 * The first byte picks the entry: even, the handshake (the replica's
 * side: HELLO sent, the input read as the source's answer; its nonce is
 * random, so the fuzzer cannot prove the secret and every input must be
 * refused); odd, the session after the handshake (frames in any order,
 * answered, on a replica opened once). The rest of the input is what the
 * peer sends, then it hangs up. Beyond "does not crash nor hang": the
 * handshake never accepts. FPS frames whose fingerprints name a high
 * pblk are skipped, so that the fuzzer does not fill the disk.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "replica_tmp.h"
#include "replication/serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_INPUT = 48 * 1024 };

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Every FPS frame in @p names low pblks only. */
static bool low_pblks(const uint8_t *p, size_t n)
{
	size_t at = 0;
	while (at + REPL_FRAME_HDR <= n) {
		uint64_t len = le64(p + at + 1);
		size_t body = at + REPL_FRAME_HDR;
		size_t end = len > n - body ? n : body + (size_t)len;
		for (size_t i = body + 9; p[at] == RF_FPS && i + 8 <= end;
		     i += REPL_FP_ITEM)
			if (le64(p + i) > 4096)
				return false;
		at = end;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > MAX_INPUT)
		return 0;
	bool session = data[0] & 1;
	if (session && !low_pblks(data + 1, size - 1))
		return 0;
	struct replica *rp = session ? fuzz_replica_tmp() : NULL;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		abort();
	int big = 1 << 20;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	if (write(sv[0], data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	shutdown(sv[0], SHUT_WR);
	struct repl_secret secret = {"fuzz", 4};
	struct repl_server s = {rp, &secret, NULL, 100};
	struct repl_conn c = {.fd = sv[1], .timeout_ms = 100};
	char err[512];
	if (!session && !repl_hs_replica(&c, &secret, err, sizeof(err)))
		abort(); /* proved a secret on a nonce it never saw */
	if (session)
		repl_serve_frames(&s, &c, err, sizeof(err));
	close(sv[0]);
	close(sv[1]);
	return 0;
}
