/* A batch's content, from two read snapshots of the source's metadata:
 * the one the replica holds (NULL: none, a full batch) and the cut taken
 * now. Every table is walked in key order on both, and what differs is
 * the batch: the META ops that turn the old state into the new, the
 * blocks whose bytes the new state uses and the old one did not (their
 * fingerprints go first), the blocks pending in the new state (reusable
 * on the source once the replica has applied it) and the logical blocks
 * the batch changed. */
#ifndef ARRAYSIM_REPLICATION_DIFF_H
#define ARRAYSIM_REPLICATION_DIFF_H

#include <lmdb.h>
#include <stdint.h>

#include "meta/metastore.h"
#include "replication/wire.h"

struct repl_cand {
	uint64_t pblk, xxh3;
	uint8_t sha[REPL_SHA_LEN];
	uint8_t has_sha; /* its fpindex item was found */
};

struct repl_diff {
	struct wbuf meta; /* the META message */
	uint64_t nops;
	struct repl_cand *cand;
	size_t ncand, capcand;
	uint64_t *pending;
	size_t npending, cappending;
	uint64_t logical_blocks; /* bmap slots now pointing somewhere new */
};

/* Fill @d (zeroed by the caller) with the batch from @old (NULL: full) to
 * @cut. 0, -EIO (a record of the source fails its seal: never shipped),
 * -ENOMEM or -errno. */
int repl_diff(const struct metastore *ms, MDB_txn *old, MDB_txn *cut,
	      struct repl_diff *d);
void repl_diff_free(struct repl_diff *d);
/* The FPS message of @d's candidates. */
void repl_diff_fps(const struct repl_diff *d, bool full, struct wbuf *out);

#endif
