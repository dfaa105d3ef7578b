/* Inside the data path (store/datapath.h): what its files share.
 *
 *   txn.c             the store transaction (store/txn.h), its write batch
 *   datapath_read.c   loading blocks: map, checksum, retry on a new snapshot
 *   datapath_write.c  storing blocks: dedupe_resolve, map, ref/unref; writes
 *   datapath_trunc.c  truncate and punch, in bounded steps
 *   blockmap.c        the block-map codec and the current extent
 */
#ifndef ARRAYSIM_STORE_DATAPATH_I_H
#define ARRAYSIM_STORE_DATAPATH_I_H

#include <stdbool.h>
#include <stdint.h>

#include "store/blockmap.h"
#include "store/datapath.h"

#define EXT BMAP_EXTENT_BLOCKS

/* ---- datapath_read.c -------------------------------------------------- */

/* What dp_load_blocks reads: @n logical blocks from @first into @buf
 * (holes read as zeros), their physical blocks into @pblks when not NULL.
 * With @in (the inode, from the same snapshot), a missing extent is a hole
 * only if the file's map holds in->nblocks (blockmap_holes_proven); @bad,
 * when not NULL, gets the block that failed its checksum. */
struct dp_load {
	uint64_t first;
	unsigned n;
	uint8_t *buf;
	uint64_t *pblks;
	const struct ms_inode *in;
	uint64_t *bad;
};
/* Read @l's blocks of @ino as of @txn. -EBADMSG when a block fails its
 * checksum, -ENODATA when the array lost it, -EIO when metadata on the
 * way is damaged (counted and logged, metastore_damaged). */
int dp_load_blocks(struct store *st, MDB_txn *txn, uint64_t ino,
		   const struct dp_load *l);
/* -EBADMSG and -ENODATA counted and made -EIO; others pass through. */
int dp_read_error(struct store *st, int r);
/* dp_load_blocks on fresh snapshots (and the inode into @in when not
 * NULL), retried while a block fails its checksum; errors as read. */
int dp_load_blocks_retry(struct store *st, uint64_t ino, uint64_t first,
			 unsigned n, uint8_t *buf, struct ms_inode *in,
			 uint64_t *pblks);

/* ---- datapath_write.c ------------------------------------------------- */

/* Point logical block @lblk of @ino at @pblk (0: hole), dropping the ref
 * of what it pointed at. *delta: change in non-hole blocks (-1, 0, 1). */
int dp_map_block(struct store_txn *t, uint64_t ino, uint64_t lblk,
		 uint64_t pblk, int *delta);
/* Fingerprint then store a block that the transaction itself built (the
 * edge of a truncate or punch). @data must live until commit. */
int dp_store_built_block(struct store_txn *t, uint64_t ino, uint64_t lblk,
			 const void *data, struct ms_inode *in);

#endif
