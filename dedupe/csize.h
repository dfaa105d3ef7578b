/* The size a compressing array would store each unique block at, kept
 * beside the block's `blocks` record and changed in the same write
 * transaction as its refcount: set when the block is born (compression
 * on), cleared when its last reference goes, so the sum survives a remount
 * and drops when blocks are freed.
 *
 * In the `meta` table (no new table, no format change: a store written
 * without compression simply has none of these records):
 *
 *   "csize:" + 16 hex digits of pblk / 80   u16[80] (slot i: pblk key * 80
 *                                           + i; 0 not measured) + seal
 *   "csize:total"                           struct dedupe_csize_total + seal
 *
 * A block stored while compression was off has no size (0): the figures
 * count it whole.
 */
#ifndef ARRAYSIM_DEDUPE_CSIZE_H
#define ARRAYSIM_DEDUPE_CSIZE_H

#include <stdint.h>

#include "meta/metastore.h"

/* The sums over the blocks that have a size. */
struct dedupe_csize_total {
	uint64_t bytes;	 /* their sizes */
	uint64_t blocks; /* how many */
};

/* Record @size (1..BLOCK_BYTES) for block @pblk, just allocated. 0, -EINVAL
 * (a size out of range), -EIO (a damaged record: reported) or -errno. */
int dedupe_csize_set(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		     uint32_t size);
/* Forget @pblk's size, its last reference gone (nothing when it has none).
 * 0, -EIO (damaged, or the total disagrees) or -errno. */
int dedupe_csize_clear(const struct metastore *ms, MDB_txn *txn, uint64_t pblk);
/* The sums (zeros when nothing was ever measured). 0, -EIO or -errno. */
int dedupe_csize_total(const struct metastore *ms, MDB_txn *txn,
		       struct dedupe_csize_total *out);

/* For fsck: what record (@k, @v) of the `meta` table is. */
enum dedupe_csize_kind {
	DEDUPE_CSIZE_OTHER,  /* not a size record */
	DEDUPE_CSIZE_SIZES,  /* 80 sizes: *first_pblk, @sizes filled */
	DEDUPE_CSIZE_TOTAL,  /* the total: @total filled */
	DEDUPE_CSIZE_BROKEN, /* named as one, but the key or size is wrong */
};
/* The key prefix every size record has: fsck's cursor starts there. */
#define DEDUPE_CSIZE_PREFIX "csize:"
enum dedupe_csize_kind dedupe_csize_parse(const MDB_val *k, const MDB_val *v,
					  uint64_t *first_pblk,
					  uint16_t sizes[MS_BLOCK_EXTENT],
					  struct dedupe_csize_total *total);

#endif
