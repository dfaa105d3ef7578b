/* The fingerprint index, inside a caller's write transaction of the
 * metadata store: fpindex maps a SHA-1 to every block that has it.
 *
 * Two blocks share a SHA-1 only when verify-on-match found the same SHA-1
 * with other bytes (a collision, dedupe/dedupe.h): both are indexed, and
 * each stays a dedupe target for its own bytes. Blocks are indexed and
 * unindexed by their life (dedupe/blocks.h), never directly.
 */
#ifndef ARRAYSIM_DEDUPE_INDEX_H
#define ARRAYSIM_DEDUPE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "meta/metastore.h"
#include "dedupe/fingerprint.h"

/* The bytes of a SHA-1 a block record keeps (ms_block.sha1_head). */
#define DEDUPE_SHA1_HEAD_LEN 4

/* Called for each block indexed under a SHA-1, lowest pblk first; return
 * 1 to stop, 0 to go on, -errno to fail the walk. */
typedef int (*dedupe_candidate_fn)(void *ctx, uint64_t pblk);
/* Walk the blocks holding @sha1: 0 (also when there are none) or -errno,
 * or what @fn returned if not 0. */
int dedupe_index_walk(const struct metastore *ms, MDB_txn *txn,
		      const uint8_t sha1[FINGERPRINT_SHA1_LEN],
		      dedupe_candidate_fn fn, void *ctx);
/* Is any block indexed under each of @n SHA-1s, @sha1s in ascending
 * order (their first 16 bytes, as the index keeps them)? found[i]; seals
 * unchecked (dedupe_index_walk checks them). 0 or -errno. */
int dedupe_index_probe(const struct metastore *ms, MDB_txn *txn,
		       const uint8_t *const *sha1s, size_t n, bool *found);
/* Index @pblk under @sha1. 0 or -errno. */
int dedupe_index_add(const struct metastore *ms, MDB_txn *txn,
		     const uint8_t sha1[FINGERPRINT_SHA1_LEN], uint64_t pblk);
/* A request's new items, waiting to be indexed together: one cursor and
 * one MDB_MULTIPLE put instead of an mdb_put each (dedupe/README.md).
 * @it holds @cap items of MS_FP_ITEM_LEN bytes, the caller's. */
struct dedupe_index_batch {
	uint8_t *it;
	size_t n, cap;
};
/* Queue @pblk's item under @sha1 in @b. 0 or -EOVERFLOW (full). */
int dedupe_index_batch_add(struct dedupe_index_batch *b,
			   const uint8_t sha1[FINGERPRINT_SHA1_LEN],
			   uint64_t pblk);
/* Index every item queued in @b and empty it. 0 or -errno. */
int dedupe_index_flush(const struct metastore *ms, MDB_txn *txn,
		       struct dedupe_index_batch *b);
/* Drop the item of @pblk, whose SHA-1 begins with @sha1_head. 0, -EIO
 * (not indexed: the tables disagree) or -errno. */
int dedupe_index_remove(const struct metastore *ms, MDB_txn *txn,
			const uint8_t sha1_head[DEDUPE_SHA1_HEAD_LEN],
			uint64_t pblk);

/* Also declared in dedupe/blocks.h, where it belongs; repeated here only
 * until store/loss.c and store/bitrot.c include that header instead of this
 * one (not including it keeps blocks.h -> index.h one way). */
int dedupe_block_get(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		     struct ms_block *out);

#endif
