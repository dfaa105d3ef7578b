/* libFuzzer harness for the replica's side of replication
 * (replication/replica.c), which parses the source's messages: once the
 * replica listens on TCP (issue 17) those bytes come from the network.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_replica
 *   ./build-fuzz/tests/fuzz/fuzz_replica
 *
 * An input is three messages: u16 length of FPS, FPS, u16 length of
 * BLOCKS, BLOCKS, and META (the rest). Beyond "does not crash": a META
 * the replica refuses leaves its committed state as it was (the same
 * last transaction id). BLOCKS is only tried when every fingerprint
 * names a low pblk, so that the fuzzer does not fill the disk with chunk
 * files.
 */
#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta/metastore.h"
#include "replica_tmp.h"
#include "replication/replica.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct replica *rp;

static struct wbuf part(const uint8_t **p, size_t *left, bool last)
{
	size_t n = *left;
	if (!last) {
		n = *left >= 2 ? (size_t)((*p)[0] | (*p)[1] << 8) : 0;
		*p += *left >= 2 ? 2 : *left;
		*left -= *left >= 2 ? 2 : *left;
		n = n < *left ? n : *left;
	}
	struct wbuf b = {(uint8_t *)*p, n, n, false};
	*p += n;
	*left -= n;
	return b;
}

static bool low_pblks(const struct wbuf *fps)
{
	if (fps->len < 9)
		return false;
	for (size_t at = 9; at + 8 <= fps->len; at += REPL_FP_ITEM) {
		uint64_t pblk = 0;
		for (int i = 7; i >= 0; i--)
			pblk = pblk << 8 | fps->p[at + i];
		if (pblk > 4096)
			return false;
	}
	return true;
}

static uint64_t last_txn(void)
{
	MDB_envinfo info;
	mdb_env_info(replica_env(rp), &info);
	return info.me_last_txnid;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rp = fuzz_replica_tmp();
	const uint8_t *p = data;
	size_t left = size;
	struct wbuf fps = part(&p, &left, false);
	struct wbuf blocks = part(&p, &left, false);
	struct wbuf meta = part(&p, &left, true);
	struct wbuf verdict = {0};
	struct replica_tally t;
	char err[512];
	if (!replica_fps(rp, &fps, &verdict, &t, err, sizeof(err)) &&
	    low_pblks(&fps))
		replica_blocks(rp, &blocks, err, sizeof(err));
	wbuf_free(&verdict);
	uint64_t before = last_txn();
	if (replica_commit(rp, &meta, err, sizeof(err)) && last_txn() != before)
		abort(); /* refused, yet something was committed */
	return 0;
}
