/* The physical block's life, inside a caller's write transaction of the
 * metadata store. A block lives while some logical block points at it:
 *
 *   (free) --dedupe_block_new--> refs=1 --ref--> refs=n --unref...--> 0
 *      ^                                                               |
 *      +--- metastore_sync(): pending -> freemap <--- pending <--------+
 *
 * A block is indexed under its SHA-1 (dedupe/index.h) from its birth to
 * its last unref; it is reusable only once a sync has made its freeing
 * durable, so a crash never finds a map pointing at reused bytes.
 */
#ifndef ARRAYSIM_DEDUPE_BLOCKS_H
#define ARRAYSIM_DEDUPE_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "meta/metastore.h"
#include "dedupe/fingerprint.h"

struct dedupe_index_batch; /* dedupe/index.h */

/* The record of block @pblk: 0, -ENOENT (not allocated), -EIO (its
 * `blocks` record is damaged: counted and logged) or -errno. */
int dedupe_block_get(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		     struct ms_block *out);
/* The same in two steps, for a reader of many blocks: the checked record
 * holding @pblk's slot (a pointer into @txn's pages; every pblk with the
 * same pblk / MS_BLOCK_EXTENT shares it; damage is logged as met by a
 * read of @ino at byte @off, or MS_NO_INO), then one slot of it. */
int dedupe_block_record(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
			uint64_t ino, uint64_t off, const uint8_t **rec);
int dedupe_block_slot(const uint8_t *rec, uint64_t pblk, struct ms_block *out);
/* Allocate a block for @fp with refs 1 (reusing the free map first) and
 * index it. 0, -ENOSPC (also past pblk 2^48, see MS_PBLK_LIMIT) or -errno. */
int dedupe_block_new(const struct metastore *ms, MDB_txn *txn,
		     struct ms_counters *c, const struct fingerprint *fp,
		     uint64_t *pblk);
/* The same, the item queued in @batch (NULL: indexed at once) for the
 * caller to dedupe_index_flush before anything looks it up. */
int dedupe_block_new_batched(const struct metastore *ms, MDB_txn *txn,
			     struct ms_counters *c,
			     const struct fingerprint *fp,
			     struct dedupe_index_batch *batch, uint64_t *pblk);
/* refs + 1. 0, -ENOENT or -errno. */
int dedupe_block_ref(const struct metastore *ms, MDB_txn *txn, uint64_t pblk);
/* refs - 1; at 0 the block leaves the index and goes to pending, and
 * *freed is set. 0, -ENOENT, -EIO (its index item is missing) or -errno. */
int dedupe_block_unref(const struct metastore *ms, MDB_txn *txn,
		       struct ms_counters *c, uint64_t pblk, bool *freed);

#endif
