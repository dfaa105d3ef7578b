/* Fingerprint index, block records and the block allocator, all inside a
 * caller's write transaction: the caller's commit makes a write's new
 * blocks, references and frees visible at once, or not at all.
 *
 * Allocation takes the lowest free block first (the free map is ordered),
 * so a store that frees and rewrites stays compact; only when the free map
 * is empty does the high-water mark grow.
 *
 * Both tables are packed (see common/metastore.h):
 *
 *   blocks   key pblk/64 -> ms_block[64]   a slot is changed by rewriting
 *                                          its 1 KiB record
 *   fpindex  key sha1[0] -> items          sha1[1..20) | be48 pblk
 *
 * A slot keeps only sha1_head = sha1[0..4), so unindexing a freed block
 * walks the items that share those 4 bytes (a handful at most, in practice
 * one) for the one that names the block.
 */
#include "dedupe/index.h"

#include <errno.h>
#include <string.h>

#define SLOTS MS_BLOCK_EXTENT
#define TAIL (FINGERPRINT_SHA1_LEN - 1) /* sha1[1..20) opens an item */

/* One `blocks` record: the slots of pblks [key*64, key*64+64). */
struct block_rec {
	uint64_t key;
	bool stored; /* the table has it (else: all slots were free) */
	struct ms_block slot[SLOTS];
};

static void put_be48(uint8_t *p, uint64_t v)
{
	for (int i = 5; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

static uint64_t get_be48(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 6; i++)
		v = v << 8 | p[i];
	return v;
}

/* The record holding @pblk; all slots free when it has none. */
static int rec_load(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		    struct block_rec *r)
{
	r->key = pblk / SLOTS;
	r->stored = false;
	MDB_val k = {sizeof(r->key), &r->key}, v;
	int rc = mdb_get(txn, metastore_dbi(ms, MS_BLOCKS), &k, &v);
	if (rc == MDB_NOTFOUND) {
		memset(r->slot, 0, sizeof(r->slot));
		return 0;
	}
	if (rc)
		return metastore_errno(rc);
	if (v.mv_size != sizeof(r->slot))
		return -EIO;
	memcpy(r->slot, v.mv_data, sizeof(r->slot));
	r->stored = true;
	return 0;
}

/* A new record past the last one (the allocator's high-water mark
 * growing) goes in with MDB_APPEND: a plain insert at the end splits a
 * full page 2:1 here (three 1 KiB records fit a page), MDB_APPEND leaves
 * the full page full. */
static unsigned put_flags(const struct metastore *ms, MDB_txn *txn,
			  const struct block_rec *r)
{
	MDB_cursor *cur;
	if (r->stored ||
	    mdb_cursor_open(txn, metastore_dbi(ms, MS_BLOCKS), &cur))
		return 0;
	MDB_val k, v;
	int rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
	uint64_t last = 0;
	if (rc == 0 && k.mv_size == sizeof(last))
		memcpy(&last, k.mv_data, sizeof(last));
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND || (rc == 0 && last < r->key) ? MDB_APPEND
								 : 0;
}

/* Store the record, or delete it when no slot is in use. */
static int rec_store(const struct metastore *ms, MDB_txn *txn,
		     struct block_rec *r)
{
	MDB_val k = {sizeof(r->key), &r->key};
	MDB_val v = {sizeof(r->slot), r->slot};
	for (unsigned i = 0; i < SLOTS; i++)
		if (r->slot[i].refs)
			return metastore_errno(
				mdb_put(txn, metastore_dbi(ms, MS_BLOCKS), &k,
					&v, put_flags(ms, txn, r)));
	if (!r->stored)
		return 0;
	return metastore_errno(
		mdb_del(txn, metastore_dbi(ms, MS_BLOCKS), &k, NULL));
}

int dedupe_index_walk(const struct metastore *ms, MDB_txn *txn,
		      const uint8_t sha1[FINGERPRINT_SHA1_LEN],
		      dedupe_candidate_fn fn, void *ctx)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_FPINDEX), &cur);
	if (rc)
		return metastore_errno(rc);
	uint8_t item[MS_FP_ITEM_LEN] = {0};
	memcpy(item, sha1 + 1, TAIL);
	MDB_val k = {1, (void *)sha1}, v = {sizeof(item), item};
	int r = 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_GET_BOTH_RANGE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		if (v.mv_size != MS_FP_ITEM_LEN) {
			r = -EIO;
			break;
		}
		if (memcmp(v.mv_data, sha1 + 1, TAIL))
			break; /* past this SHA-1's items */
		r = fn(ctx, get_be48((const uint8_t *)v.mv_data + TAIL));
		if (r)
			break;
	}
	mdb_cursor_close(cur);
	if (r)
		return r;
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : metastore_errno(rc);
}

int dedupe_block_get(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		     struct ms_block *out)
{
	uint64_t key = pblk / SLOTS;
	MDB_val k = {sizeof(key), &key}, v;
	int rc = mdb_get(txn, metastore_dbi(ms, MS_BLOCKS), &k, &v);
	if (rc)
		return metastore_errno(rc);
	if (v.mv_size != SLOTS * sizeof(*out))
		return -EIO;
	/* LMDB aligns values to 2 bytes only: copy out the one slot. */
	memcpy(out, (const uint8_t *)v.mv_data + pblk % SLOTS * sizeof(*out),
	       sizeof(*out));
	return out->refs ? 0 : -ENOENT;
}

/* Lowest block of the free map, removed from it; or a new one. */
static int alloc_pblk(const struct metastore *ms, MDB_txn *txn,
		      struct ms_counters *c, uint64_t *pblk)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_FREEMAP), &cur);
	if (rc)
		return metastore_errno(rc);
	MDB_val k, v;
	rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
	if (rc == 0) {
		memcpy(pblk, k.mv_data, sizeof(*pblk));
		rc = mdb_cursor_del(cur, 0);
		mdb_cursor_close(cur);
		if (!rc && *pblk >= MS_PBLK_LIMIT)
			return -EIO; /* no allocator handed that out */
		return metastore_errno(rc);
	}
	mdb_cursor_close(cur);
	if (rc != MDB_NOTFOUND)
		return metastore_errno(rc);
	if (c->next_pblk >= MS_PBLK_LIMIT)
		return -ENOSPC; /* fpindex items hold 48-bit pblks */
	*pblk = c->next_pblk++;
	return 0;
}

int dedupe_block_new(const struct metastore *ms, MDB_txn *txn,
		     struct ms_counters *c, const struct fingerprint *fp,
		     uint64_t *pblk)
{
	int r = alloc_pblk(ms, txn, c, pblk);
	if (r)
		return r;
	struct block_rec rec;
	r = rec_load(ms, txn, *pblk, &rec);
	if (r)
		return r;
	struct ms_block *b = &rec.slot[*pblk % SLOTS];
	if (b->refs)
		return -EIO; /* the allocator handed out a block in use */
	*b = (struct ms_block){.xxh3 = fp->xxh3, .refs = 1};
	memcpy(b->sha1_head, fp->sha1, sizeof(b->sha1_head));
	r = rec_store(ms, txn, &rec);
	if (r)
		return r;
	uint8_t item[MS_FP_ITEM_LEN];
	memcpy(item, fp->sha1 + 1, TAIL);
	put_be48(item + TAIL, *pblk);
	MDB_val k = {1, (void *)fp->sha1}, v = {sizeof(item), item};
	r = metastore_errno(
		mdb_put(txn, metastore_dbi(ms, MS_FPINDEX), &k, &v, 0));
	if (r)
		return r;
	c->unique_blocks++;
	return 0;
}

int dedupe_block_ref(const struct metastore *ms, MDB_txn *txn, uint64_t pblk)
{
	struct block_rec rec;
	int r = rec_load(ms, txn, pblk, &rec);
	if (r)
		return r;
	struct ms_block *b = &rec.slot[pblk % SLOTS];
	if (b->refs == 0)
		return -ENOENT;
	if (b->refs == UINT32_MAX)
		return -EMLINK;
	b->refs++;
	return rec_store(ms, txn, &rec);
}

/* Drop this block's own item, found by its sha1_head; a collision twin
 * keeps its item. */
static int unindex(const struct metastore *ms, MDB_txn *txn,
		   const struct ms_block *b, uint64_t pblk)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_FPINDEX), &cur);
	if (rc)
		return metastore_errno(rc);
	uint8_t item[MS_FP_ITEM_LEN] = {0};
	const size_t head = sizeof(b->sha1_head) - 1;
	memcpy(item, b->sha1_head + 1, head);
	MDB_val k = {1, (void *)b->sha1_head}, v = {sizeof(item), item};
	int r = -EIO; /* not indexed: the tables disagree */
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_GET_BOTH_RANGE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		const uint8_t *it = v.mv_data;
		if (v.mv_size != MS_FP_ITEM_LEN ||
		    memcmp(it, b->sha1_head + 1, head))
			break;
		if (get_be48(it + TAIL) == pblk) {
			r = metastore_errno(mdb_cursor_del(cur, 0));
			break;
		}
	}
	if (rc && rc != MDB_NOTFOUND)
		r = metastore_errno(rc);
	mdb_cursor_close(cur);
	return r;
}

int dedupe_block_unref(const struct metastore *ms, MDB_txn *txn,
		       struct ms_counters *c, uint64_t pblk, bool *freed)
{
	struct block_rec rec;
	*freed = false;
	int r = rec_load(ms, txn, pblk, &rec);
	if (r)
		return r;
	struct ms_block *b = &rec.slot[pblk % SLOTS];
	if (b->refs == 0)
		return -ENOENT;
	if (--b->refs > 0)
		return rec_store(ms, txn, &rec);
	r = unindex(ms, txn, b, pblk);
	if (r)
		return r;
	*b = (struct ms_block){0};
	r = rec_store(ms, txn, &rec);
	MDB_val k = {sizeof(pblk), &pblk}, empty = {0, NULL};
	if (!r)
		r = metastore_errno(mdb_put(
			txn, metastore_dbi(ms, MS_PENDING), &k, &empty, 0));
	if (r)
		return r;
	c->unique_blocks--;
	*freed = true;
	return 0;
}
