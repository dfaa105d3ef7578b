/* The block-map codec and the extent a transaction works on
 * (store/blockmap.h). */
#include "store/blockmap.h"

#include <errno.h>
#include <string.h>

#include "common/block.h"

#define EXT BMAP_EXTENT_BLOCKS

void blockmap_key_encode(uint8_t kb[BLOCKMAP_KEY_LEN], uint64_t ino,
			 uint64_t idx)
{
	ms_put_be64(kb, ino);
	ms_put_be64(kb + 8, idx);
}

void blockmap_value_encode(const uint8_t kb[BLOCKMAP_KEY_LEN],
			   const uint64_t pblk[BMAP_EXTENT_BLOCKS],
			   uint8_t vb[MS_BMAP_VALUE_LEN])
{
	ms_bmap_encode(pblk, vb);
	MDB_val k = {BLOCKMAP_KEY_LEN, (void *)kb};
	ms_seal(MS_BMAP, &k, vb, MS_BMAP_VALUE_LEN);
}

int blockmap_decode(const MDB_val *k, const MDB_val *v, uint64_t *ino,
		    uint64_t *idx, uint64_t pblk[BMAP_EXTENT_BLOCKS])
{
	if (k->mv_size != BLOCKMAP_KEY_LEN || v->mv_size != MS_BMAP_VALUE_LEN ||
	    !ms_sealed(MS_BMAP, k, v))
		return -EIO;
	*ino = ms_get_be64(k->mv_data);
	*idx = ms_get_be64((const uint8_t *)k->mv_data + 8);
	ms_bmap_decode(v->mv_data, pblk);
	return 0;
}

int blockmap_load(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		  uint64_t idx, uint64_t pblk[BMAP_EXTENT_BLOCKS])
{
	uint8_t kb[BLOCKMAP_KEY_LEN];
	blockmap_key_encode(kb, ino, idx);
	MDB_val k = {sizeof(kb), kb}, v;
	int rc = mdb_get(txn, metastore_dbi(ms, MS_BMAP), &k, &v);
	if (rc == MDB_NOTFOUND) {
		memset(pblk, 0, EXT * sizeof(*pblk));
		return -ENOENT;
	}
	if (rc)
		return metastore_errno(rc);
	uint64_t kino, kidx;
	if (blockmap_decode(&k, &v, &kino, &kidx, pblk))
		return metastore_damaged(ms, MS_BMAP, &k, ino,
					 idx * EXT * BLOCK_BYTES);
	return 0;
}

/* A missing extent reads as holes; trusted only when the extents that
 * are there hold the inode's nblocks, each whole: a damaged page (a
 * branch, a leaf's keys) can lose an extent without failing any seal.
 * Walks the file's map, so only a read that meets a missing extent pays. */
int blockmap_holes_proven(const struct metastore *ms, MDB_txn *txn,
			  uint64_t ino, uint64_t nblocks, uint64_t idx)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_BMAP), &cur);
	if (rc)
		return metastore_errno(rc);
	uint8_t kb[BLOCKMAP_KEY_LEN];
	blockmap_key_encode(kb, ino, 0);
	MDB_val k = {sizeof(kb), kb}, v;
	uint64_t mapped = 0, pblk[EXT], kino, kidx;
	bool whole = true;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0 && whole;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size < 8 || ms_get_be64(k.mv_data) != ino)
			break;
		whole = blockmap_decode(&k, &v, &kino, &kidx, pblk) == 0;
		for (unsigned i = 0; i < EXT && whole; i++)
			mapped += pblk[i] != 0;
	}
	mdb_cursor_close(cur);
	if (rc && rc != MDB_NOTFOUND)
		return metastore_errno(rc);
	if (whole && mapped == nblocks)
		return 0;
	blockmap_key_encode(kb, ino, idx);
	MDB_val hk = {sizeof(kb), kb};
	return metastore_damaged_why(
	    ms, MS_BMAP, &hk, ino, idx * EXT * BLOCK_BYTES,
	    whole ? "is missing (the map does not hold the inode's nblocks)"
		  : "is missing, and another extent of the file fails its "
		    "checksum");
}

int blockmap_block_of(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		      uint64_t lblk, uint64_t *pblk)
{
	uint64_t ext[EXT];
	int r = blockmap_load(ms, txn, ino, lblk / EXT, ext);
	*pblk = r ? 0 : ext[lblk % EXT];
	return r == -ENOENT ? 0 : r;
}

int blockmap_find(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		  uint64_t from, uint64_t to, uint64_t *idx, int max)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_BMAP), &cur);
	if (rc)
		return metastore_errno(rc);
	uint8_t kb[BLOCKMAP_KEY_LEN];
	blockmap_key_encode(kb, ino, from / EXT);
	MDB_val k = {sizeof(kb), kb}, v;
	int n = 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	     rc == 0 && n < max; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		uint64_t x = ms_get_be64((const uint8_t *)k.mv_data + 8);
		if (ms_get_be64(k.mv_data) != ino || x * EXT >= to)
			break;
		idx[n++] = x;
	}
	mdb_cursor_close(cur);
	return rc == 0 || rc == MDB_NOTFOUND ? n : metastore_errno(rc);
}

/* Does key @kb sort after every extent in the table? A file growing at
 * its end (the newest file, typically) then appends: MDB_APPEND leaves
 * full pages full, where a plain insert at the end splits them in half. */
static bool ext_is_last(MDB_txn *txn, MDB_dbi dbi,
			const uint8_t kb[BLOCKMAP_KEY_LEN])
{
	MDB_cursor *cur;
	if (mdb_cursor_open(txn, dbi, &cur))
		return false;
	MDB_val k, v;
	int rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
	bool last =
	    rc == MDB_NOTFOUND || (rc == 0 && k.mv_size == BLOCKMAP_KEY_LEN &&
				   memcmp(k.mv_data, kb, BLOCKMAP_KEY_LEN) < 0);
	mdb_cursor_close(cur);
	return last;
}

int blockmap_store(const struct metastore *ms, MDB_txn *txn,
		   struct blockmap_extent *e)
{
	if (!e->valid || !e->dirty)
		return 0;
	uint8_t kb[BLOCKMAP_KEY_LEN];
	blockmap_key_encode(kb, e->ino, e->idx);
	MDB_val k = {sizeof(kb), kb};
	MDB_dbi dbi = metastore_dbi(ms, MS_BMAP);
	bool empty = true;
	for (unsigned i = 0; i < EXT && empty; i++)
		empty = !e->pblk[i];
	int rc;
	if (empty) {
		rc = mdb_del(txn, dbi, &k, NULL);
		if (rc == MDB_NOTFOUND)
			rc = 0;
	} else {
		uint8_t vb[MS_BMAP_VALUE_LEN];
		blockmap_value_encode(kb, e->pblk, vb);
		MDB_val v = {sizeof(vb), vb};
		unsigned fl =
		    e->fresh && ext_is_last(txn, dbi, kb) ? MDB_APPEND : 0;
		rc = mdb_put(txn, dbi, &k, &v, fl);
		e->fresh = rc != 0;
	}
	e->dirty = false;
	return metastore_errno(rc);
}

int blockmap_seek(const struct metastore *ms, MDB_txn *txn,
		  struct blockmap_extent *e, uint64_t ino, uint64_t lblk)
{
	uint64_t idx = lblk / EXT;
	if (e->valid && e->ino == ino && e->idx == idx)
		return 0;
	int r = blockmap_store(ms, txn, e);
	if (r)
		return r;
	e->valid = false;
	r = blockmap_load(ms, txn, ino, idx, e->pblk);
	if (r && r != -ENOENT)
		return r;
	e->fresh = r == -ENOENT;
	e->ino = ino;
	e->idx = idx;
	e->valid = true;
	return 0;
}
