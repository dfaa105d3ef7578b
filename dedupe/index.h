/* The fingerprint index and reference counts, inside a caller's write
 * transaction of the metadata store.
 *
 * A physical block lives while some logical block points at it:
 *
 *   (free) --dedupe_block_new--> refs=1 --ref--> refs=n --unref...--> 0
 *      ^                                                               |
 *      +--- metastore_sync(): pending -> freemap <--- pending <--------+
 *
 * fpindex maps a SHA-1 to at most one block. A block whose SHA-1 is taken
 * by a block with other bytes (a collision found by verify-on-match) is
 * stored unindexed: it is never a dedupe target, and freeing it leaves the
 * index alone.
 */
#ifndef ARRAYSIM_DEDUPE_INDEX_H
#define ARRAYSIM_DEDUPE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "common/metastore.h"
#include "dedupe/fingerprint.h"

/* The block holding @sha1, if any: 0 or -ENOENT. */
int dedupe_index_lookup(const struct metastore *ms, MDB_txn *txn,
			const uint8_t sha1[FINGERPRINT_SHA1_LEN],
			uint64_t *pblk);
/* The record of block @pblk: 0, -ENOENT (not allocated) or -errno. */
int dedupe_block_get(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		     struct ms_block *out);
/* Allocate a block for @fp with refs 1 (reusing the free map first),
 * indexing it unless @unindexed. 0, -ENOSPC or -errno. */
int dedupe_block_new(const struct metastore *ms, MDB_txn *txn,
		     struct ms_counters *c, const struct fingerprint *fp,
		     bool unindexed, uint64_t *pblk);
/* refs + 1. 0, -ENOENT or -errno. */
int dedupe_block_ref(const struct metastore *ms, MDB_txn *txn,
		     uint64_t pblk);
/* refs - 1; at 0 the block leaves the index and goes to pending, and
 * *freed is set. 0, -ENOENT or -errno. */
int dedupe_block_unref(const struct metastore *ms, MDB_txn *txn,
		       struct ms_counters *c, uint64_t pblk, bool *freed);

#endif
