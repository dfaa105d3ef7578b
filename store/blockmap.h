/* Block maps: which physical block each logical block of a file maps to,
 * stored in extents of BMAP_EXTENT_BLOCKS physical block numbers (0 =
 * hole) in the bmap table, keyed by (ino, lblk / BMAP_EXTENT_BLOCKS), so
 * a sequential 1 MiB write touches 4 records, not 256.
 *
 *   key   ino (be64) | idx (be64)                     BLOCKMAP_KEY_LEN
 *   value pblk[BMAP_EXTENT_BLOCKS], packed (ms_bmap_*), then the seal
 *         of key and value (meta/metastore.h)       MS_BMAP_VALUE_LEN
 *
 * This is the one codec of that table: the data path, fsck and the tests
 * read and write extents through it. A write transaction keeps the one
 * extent it is working on in memory (struct blockmap_extent) and stores
 * it when it moves on (or at commit); an extent that becomes all holes is
 * deleted.
 */
#ifndef ARRAYSIM_STORE_BLOCKMAP_H
#define ARRAYSIM_STORE_BLOCKMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "meta/metastore.h"

#define BLOCKMAP_KEY_LEN 16u

/* The key of extent @idx of @ino. */
void blockmap_key_encode(uint8_t kb[BLOCKMAP_KEY_LEN], uint64_t ino,
			 uint64_t idx);
/* The value of the extent at key @kb holding @pblk, sealed. */
void blockmap_value_encode(const uint8_t kb[BLOCKMAP_KEY_LEN],
			   const uint64_t pblk[BMAP_EXTENT_BLOCKS],
			   uint8_t vb[MS_BMAP_VALUE_LEN]);
/* A bmap record back into its inode, extent index and pblks: 0, or -EIO
 * when the key or the value has the wrong size or fails its seal. */
int blockmap_decode(const MDB_val *k, const MDB_val *v, uint64_t *ino,
		    uint64_t *idx, uint64_t pblk[BMAP_EXTENT_BLOCKS]);

/* Load extent @idx of @ino into @pblk: 0, -ENOENT (all holes; @pblk is
 * zeroed) when the store has no such extent, -EIO (damaged: counted and
 * logged, metastore_damaged) or -errno. */
int blockmap_load(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		  uint64_t idx, uint64_t pblk[BMAP_EXTENT_BLOCKS]);
/* After blockmap_load said -ENOENT for extent @idx of @ino: 0 when the
 * file's extents hold its inode's @nblocks (the hole is one), else -EIO
 * (reported as damage at that extent). */
int blockmap_holes_proven(const struct metastore *ms, MDB_txn *txn,
			  uint64_t ino, uint64_t nblocks, uint64_t idx);
/* The physical block logical block @lblk of @ino maps to (0: a hole). */
int blockmap_block_of(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		      uint64_t lblk, uint64_t *pblk);
/* Extents of @ino that hold blocks in [@from, @to), at most @max of them,
 * in order, into @idx. Returns how many, or -errno. */
int blockmap_find(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		  uint64_t from, uint64_t to, uint64_t *idx, int max);

/* The extent a write transaction is working on. */
struct blockmap_extent {
	uint64_t ino;
	uint64_t idx;
	uint64_t pblk[BMAP_EXTENT_BLOCKS];
	bool valid; /* holds (ino, idx) */
	bool dirty; /* differs from the store */
	bool fresh; /* not in the store yet */
};

/* Store @e if it changed (delete it if all holes). 0 or -errno. */
int blockmap_store(const struct metastore *ms, MDB_txn *txn,
		   struct blockmap_extent *e);
/* Make @e the extent holding @lblk of @ino, storing the one it held. */
int blockmap_seek(const struct metastore *ms, MDB_txn *txn,
		  struct blockmap_extent *e, uint64_t ino, uint64_t lblk);

#endif
