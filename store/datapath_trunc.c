/* Truncate and punch (store/datapath.h), in bounded steps: one transaction
 * drops at most DROP_EXTENTS extents' blocks, the rest are dropped by
 * further transactions after store_txn_commit (store_trim), with the inode in
 * `orphans` until they are gone. A partial edge block is rebuilt with
 * zeros and stored like any written block.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/block.h"
#include "store/datapath_i.h"
#include "store/store_i.h"

#define DROP_EXTENTS 4 /* extents (of 64 blocks) dropped per transaction */

/* Drop the refs of the blocks of @ino in [@from, @to), at most
 * DROP_EXTENTS extents' worth, so that one transaction stays small however
 * big the file; *more tells whether blocks are left in the range. */
static int drop_blocks(struct store_txn *t, uint64_t ino, struct ms_inode *in,
		       uint64_t from, uint64_t to, bool *more)
{
	/* The cursor must see the current extent. */
	int r = blockmap_store(t->st->ms, t->txn, t->ext);
	t->ext->valid = false;
	if (r)
		return r;
	uint64_t idx[DROP_EXTENTS + 1];
	int n = blockmap_find(t->st->ms, t->txn, ino, from, to, idx,
			      DROP_EXTENTS + 1);
	if (n < 0)
		return n;
	*more = n > (int)DROP_EXTENTS;
	for (int i = 0; i < n && i < (int)DROP_EXTENTS && !r; i++) {
		uint64_t lo = idx[i] * EXT, hi = lo + EXT;
		lo = lo < from ? from : lo;
		hi = hi > to ? to : hi;
		for (uint64_t l = lo; l < hi && !r; l++) {
			int delta = 0;
			r = dp_map_block(t, ino, l, 0, &delta);
			in->nblocks += delta;
		}
	}
	return r;
}

/* Zero bytes [from, to) inside logical block @lblk, which stays mapped.
 * The rebuilt block is kept in @keep until commit. */
static int zero_in_block(struct store_txn *t, uint64_t ino, struct ms_inode *in,
			 uint64_t lblk, uint32_t from, uint32_t to,
			 uint8_t *keep)
{
	/* dp_load_blocks reads the map from the transaction. No hole is
	 * proven here: @in's nblocks runs ahead of the stored map inside a
	 * write, and the seals still catch a damaged extent. */
	int r = blockmap_store(t->st->ms, t->txn, t->ext);
	struct dp_load l = {.first = lblk, .n = 1, .buf = keep};
	if (!r)
		r = dp_read_error(t->st,
				  dp_load_blocks(t->st, t->txn, ino, &l));
	if (r)
		return r;
	memset(keep + from, 0, to - from);
	return dp_store_built_block(t, ino, lblk, keep, in);
}

/* Blocks past the new end that one transaction could not take are left
 * to further ones (store_txn_commit runs them); until they are gone the
 * inode is in `orphans`, so a crash in between is finished at the next
 * mount. */
static int defer_trim(struct store_txn *t, uint64_t ino)
{
	MDB_val k = {sizeof(ino), &ino}, empty = {0, NULL};
	t->trim_ino = ino;
	return metastore_errno(mdb_put(
	    t->txn, metastore_dbi(t->st->ms, MS_ORPHANS), &k, &empty, 0));
}

int datapath_truncate(struct store_txn *t, uint64_t ino, struct ms_inode *in,
		      uint64_t size)
{
	int r = 0;
	bool more = false;
	if (size < in->size) {
		uint64_t keep_blocks = (size + BLOCK_BYTES - 1) / BLOCK_BYTES;
		r = drop_blocks(t, ino, in, keep_blocks, UINT64_MAX, &more);
		if (!r && size % BLOCK_BYTES) {
			uint8_t *edge = store_wb_scratch(t->wb);
			r = edge ? zero_in_block(t, ino, in, size / BLOCK_BYTES,
						 size % BLOCK_BYTES,
						 BLOCK_BYTES, edge)
				 : -ENOMEM;
		}
		if (!r && more)
			r = defer_trim(t, ino);
	}
	if (r)
		return r;
	if (S_ISREG(in->mode))
		t->c.logical_bytes += size - in->size;
	in->size = size;
	return 0;
}

int datapath_trim_step(struct store_txn *t, uint64_t ino, struct ms_inode *in,
		       uint64_t from_lblk, bool *more)
{
	return drop_blocks(t, ino, in, from_lblk, UINT64_MAX, more);
}

int datapath_punch(struct store_txn *t, uint64_t ino, struct ms_inode *in,
		   uint64_t off, uint64_t len, bool *more)
{
	*more = false;
	uint64_t end = off + len < off ? UINT64_MAX : off + len;
	if (end > in->size)
		end = in->size; /* nothing to zero past EOF */
	if (off >= end)
		return 0;
	uint64_t first_whole = (off + BLOCK_BYTES - 1) / BLOCK_BYTES,
		 end_whole = end / BLOCK_BYTES;
	int r = 0;
	if (first_whole < end_whole)
		r = drop_blocks(t, ino, in, first_whole, end_whole, more);
	/* Partial edges: the head block (and the tail, if another). */
	if (!r && off % BLOCK_BYTES) {
		uint64_t lblk = off / BLOCK_BYTES;
		uint32_t to = end / BLOCK_BYTES == lblk
				  ? (uint32_t)(end % BLOCK_BYTES)
				  : BLOCK_BYTES;
		uint8_t *edge = store_wb_scratch(t->wb);
		r = edge ? zero_in_block(t, ino, in, lblk, off % BLOCK_BYTES,
					 to, edge)
			 : -ENOMEM;
	}
	if (!r && end % BLOCK_BYTES &&
	    (end / BLOCK_BYTES != off / BLOCK_BYTES ||
	     off % BLOCK_BYTES == 0)) {
		uint8_t *edge = store_wb_scratch(t->wb);
		r = edge ? zero_in_block(t, ino, in, end / BLOCK_BYTES, 0,
					 end % BLOCK_BYTES, edge)
			 : -ENOMEM;
	}
	return r;
}
