/* The replica's side of a replication session: a store of its own (made
 * like any store when its directory is empty), which answers a batch's
 * fingerprints from its own last applied state, takes the bytes it lacks,
 * checks each one's checksum, makes them durable, and only then applies
 * the batch's metadata in one LMDB write transaction: a crash at any
 * moment leaves it at the state of the previous batch, a consistent prior
 * state of the source, as the store's own crash ordering would.
 *
 * It never writes a block its applied state still uses: a fingerprint
 * whose pblk holds other bytes it uses is a CONFLICT, and the batch is
 * refused before anything is written (see replication/README.md). */
#ifndef ARRAYSIM_REPLICATION_REPLICA_H
#define ARRAYSIM_REPLICATION_REPLICA_H

#include <lmdb.h>
#include <stddef.h>
#include <stdint.h>

#include "replication/wire.h"

struct replica;

/* What the replica did with the last batch's fingerprints. */
struct replica_tally {
	uint64_t have, local, need, conflict;
};

/* Open (make when empty, mkdir when missing) the store in @dir and lock
 * it: 0, or -errno with one line in @err. */
int replica_open(const char *dir, struct replica **out, char *err,
		 size_t errlen);
void replica_close(struct replica *rp);
/* Its metadata's environment (tests: the last transaction id). */
MDB_env *replica_env(struct replica *rp);
/* FPS in, VERDICT out (and the tally). 0 or -errno (-EPROTO: a bad
 * message). */
int replica_fps(struct replica *rp, const struct wbuf *fps,
		struct wbuf *verdict, struct replica_tally *t, char *err,
		size_t errlen);
/* BLOCKS in: each one's XXH3 checked against its fingerprint (-EIO, none
 * written, when one fails), the same bytes found locally checked by SHA-1
 * and XXH3, all written and made durable. */
int replica_blocks(struct replica *rp, const struct wbuf *blocks, char *err,
		   size_t errlen);
/* META in: applied in one write transaction, then made durable. */
int replica_commit(struct replica *rp, const struct wbuf *meta, char *err,
		   size_t errlen);

#endif
