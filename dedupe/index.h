/* The fingerprint index and reference counts, inside a caller's write
 * transaction of the metadata store.
 *
 * A physical block lives while some logical block points at it:
 *
 *   (free) --dedupe_block_new--> refs=1 --ref--> refs=n --unref...--> 0
 *      ^                                                               |
 *      +--- metastore_sync(): pending -> freemap <--- pending <--------+
 *
 * fpindex maps a SHA-1 to every block that has it. Two blocks share a
 * SHA-1 only when verify-on-match found the same SHA-1 with other bytes (a
 * collision): both are indexed, and each stays a dedupe target for its own
 * bytes.
 */
#ifndef ARRAYSIM_DEDUPE_INDEX_H
#define ARRAYSIM_DEDUPE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "common/metastore.h"
#include "dedupe/fingerprint.h"

/* Called for each block indexed under a SHA-1, lowest pblk first; return
 * 1 to stop, 0 to go on, -errno to fail the walk. */
typedef int (*dedupe_candidate_fn)(void *ctx, uint64_t pblk);
/* Walk the blocks holding @sha1: 0 (also when there are none) or -errno,
 * or what @fn returned if not 0. */
int dedupe_index_walk(const struct metastore *ms, MDB_txn *txn,
		      const uint8_t sha1[FINGERPRINT_SHA1_LEN],
		      dedupe_candidate_fn fn, void *ctx);
/* The record of block @pblk: 0, -ENOENT (not allocated) or -errno. */
int dedupe_block_get(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		     struct ms_block *out);
/* Allocate a block for @fp with refs 1 (reusing the free map first) and
 * index it. 0, -ENOSPC (also past pblk 2^48, see MS_PBLK_LIMIT) or -errno. */
int dedupe_block_new(const struct metastore *ms, MDB_txn *txn,
		     struct ms_counters *c, const struct fingerprint *fp,
		     uint64_t *pblk);
/* refs + 1. 0, -ENOENT or -errno. */
int dedupe_block_ref(const struct metastore *ms, MDB_txn *txn, uint64_t pblk);
/* refs - 1; at 0 the block leaves the index and goes to pending, and
 * *freed is set. 0, -ENOENT, -EIO (its index item is missing) or -errno. */
int dedupe_block_unref(const struct metastore *ms, MDB_txn *txn,
		       struct ms_counters *c, uint64_t pblk, bool *freed);

#endif
