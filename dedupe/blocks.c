/* The physical block's life (dedupe/blocks.h): its record in `blocks`,
 * allocation, references, and the way out through `pending`, all inside
 * a caller's write transaction: the caller's commit makes a write's new
 * blocks, references and frees visible at once, or not at all.
 *
 * Allocation takes the lowest free block first (the free map is ordered),
 * so a store that frees and rewrites stays compact; only when the free map
 * is empty does the high-water mark grow.
 *
 * The blocks table is packed (see meta/metastore.h):
 *
 *   blocks   key pblk/80 -> ms_block[80]   a slot is changed in place in
 *                     + seal               its 1284-byte record, which is
 *                                          checked when first opened in a
 *                                          transaction, sealed at its first
 *                                          change there and at the commit
 *                                          if changed again
 *
 * A block is indexed under its SHA-1 when it is born and unindexed when
 * its last reference goes (dedupe/index.h).
 */
#include "dedupe/blocks.h"

#include <errno.h>
#include <string.h>

#include "dedupe/csize.h"
#include "dedupe/index.h"

_Static_assert(sizeof(((struct ms_block *)0)->sha1_head) ==
		   DEDUPE_SHA1_HEAD_LEN,
	       "a block record keeps DEDUPE_SHA1_HEAD_LEN bytes of its SHA-1");

#define SLOTS MS_BLOCK_EXTENT

/* A slot open for change, in place in its record: LMDB hands out a
 * pointer into the (already writable) page with MDB_CURRENT|MDB_RESERVE,
 * so changing one block's refs writes 16 bytes, not a whole record.
 * Records are only 2-byte aligned in the page: slots are copied in and out
 * with memcpy. */
struct slot {
	const struct metastore *ms;
	MDB_txn *txn;
	MDB_cursor *cur;
	uint64_t key;	/* the record's, for its seal */
	uint8_t *rec;	/* the record's bytes, writable */
	uint8_t *bytes; /* this slot's bytes, inside it */
	struct ms_block b;
};

#define REC_BYTES MS_BLOCK_REC_LEN /* the slots, then the seal */
_Static_assert(MS_BLOCK_REC_LEN ==
		   SLOTS * sizeof(struct ms_block) + MS_SEAL_LEN,
	       "a blocks record is its slots and a seal");

/* Was the record checked already in this transaction, which changed it
 * since and seals it at its commit (meta/metastore_defer.c)? A sequential
 * write changes one record for 80 blocks in a row: checking its 1284
 * bytes again each time would cost as much as the seal saved. */
static bool record_checked(MDB_txn *txn, uint64_t key, const MDB_val *v)
{
	return v->mv_size == REC_BYTES && ms_seal_pending(txn, MS_BLOCKS, key);
}

/* Is a record past every stored one? Then it goes in with MDB_APPEND: a
 * plain insert at the end splits a full page 2:1 (three records fit a
 * page), MDB_APPEND leaves the full page full. */
static bool rec_is_last(MDB_cursor *cur, uint64_t key)
{
	MDB_val k, v;
	int rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
	uint64_t last = 0;
	if (rc == 0 && k.mv_size == sizeof(last))
		memcpy(&last, k.mv_data, sizeof(last));
	return rc == MDB_NOTFOUND || (rc == 0 && last < key);
}

/* Open the slot of @pblk; with @create, make its record (all slots free)
 * when there is none. -ENOENT: no record and !@create. */
static int slot_open(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		     bool create, struct slot *s)
{
	uint64_t key = pblk / SLOTS;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_BLOCKS), &s->cur);
	if (rc)
		return metastore_errno(rc);
	MDB_val k = {sizeof(key), &key}, v = {REC_BYTES, NULL};
	rc = mdb_cursor_get(s->cur, &k, &v, MDB_SET_KEY);
	s->ms = ms;
	s->txn = txn;
	if (rc == 0 && !record_checked(txn, key, &v) &&
	    (v.mv_size != REC_BYTES || !ms_sealed(MS_BLOCKS, &k, &v))) {
		mdb_cursor_close(s->cur);
		return metastore_damaged(ms, MS_BLOCKS, &k, MS_NO_INO,
					 MS_NO_INO);
	}
	if (rc == 0) {
		v.mv_size = REC_BYTES;
		rc = mdb_cursor_put(s->cur, &k, &v, MDB_CURRENT | MDB_RESERVE);
	} else if (rc == MDB_NOTFOUND && create) {
		unsigned fl =
		    MDB_RESERVE | (rec_is_last(s->cur, key) ? MDB_APPEND : 0);
		v.mv_size = REC_BYTES;
		rc = mdb_cursor_put(s->cur, &k, &v, fl);
		if (rc == 0)
			memset(v.mv_data, 0, REC_BYTES);
	}
	if (rc) {
		mdb_cursor_close(s->cur);
		return rc == MDB_NOTFOUND ? -ENOENT : metastore_errno(rc);
	}
	s->key = key;
	s->rec = v.mv_data;
	s->bytes = s->rec + pblk % SLOTS * sizeof(struct ms_block);
	memcpy(&s->b, s->bytes, sizeof(s->b));
	return 0;
}

/* Write the slot back; the record is sealed again now, at its first change
 * in the transaction, or else once at the commit; a record whose last
 * slot emptied is deleted. */
static int slot_close(struct slot *s)
{
	memcpy(s->bytes, &s->b, sizeof(s->b));
	MDB_val k = {sizeof(s->key), &s->key};
	if (!ms_seal_later(s->ms, s->txn, MS_BLOCKS, s->key))
		ms_seal(MS_BLOCKS, &k, s->rec, REC_BYTES);
	int rc = 0;
	bool empty = true;
	for (unsigned i = 0; i < SLOTS && empty; i++) {
		struct ms_block b;
		memcpy(&b, s->rec + i * sizeof(b), sizeof(b));
		empty = b.refs == 0;
	}
	if (empty)
		rc = mdb_cursor_del(s->cur, 0);
	mdb_cursor_close(s->cur);
	return metastore_errno(rc);
}

static void slot_abandon(struct slot *s)
{
	mdb_cursor_close(s->cur); /* the transaction is failing anyway */
}

int dedupe_block_record(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
			uint64_t ino, uint64_t off, const uint8_t **rec)
{
	uint64_t key = pblk / SLOTS;
	MDB_val k = {sizeof(key), &key}, v;
	int rc = mdb_get(txn, metastore_dbi(ms, MS_BLOCKS), &k, &v);
	if (rc)
		return metastore_errno(rc);
	if (!record_checked(txn, key, &v) &&
	    (v.mv_size != REC_BYTES || !ms_sealed(MS_BLOCKS, &k, &v)))
		return metastore_damaged(ms, MS_BLOCKS, &k, ino, off);
	*rec = v.mv_data;
	return 0;
}

int dedupe_block_slot(const uint8_t *rec, uint64_t pblk, struct ms_block *out)
{
	/* LMDB aligns values to 2 bytes only: copy out the one slot. */
	memcpy(out, rec + pblk % SLOTS * sizeof(*out), sizeof(*out));
	return out->refs ? 0 : -ENOENT;
}

int dedupe_block_get(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		     struct ms_block *out)
{
	const uint8_t *rec;
	int r = dedupe_block_record(ms, txn, pblk, MS_NO_INO, MS_NO_INO, &rec);
	return r ? r : dedupe_block_slot(rec, pblk, out);
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
		return -ENOSPC; /* fpindex items hold 40-bit pblks */
	*pblk = c->next_pblk++;
	return 0;
}

int dedupe_block_new(const struct metastore *ms, MDB_txn *txn,
		     struct ms_counters *c, const struct fingerprint *fp,
		     uint64_t *pblk)
{
	return dedupe_block_new_batched(ms, txn, c, fp, NULL, pblk);
}

int dedupe_block_new_batched(const struct metastore *ms, MDB_txn *txn,
			     struct ms_counters *c,
			     const struct fingerprint *fp,
			     struct dedupe_index_batch *batch, uint64_t *pblk)
{
	int r = alloc_pblk(ms, txn, c, pblk);
	if (r)
		return r;
	struct slot sl;
	r = slot_open(ms, txn, *pblk, true, &sl);
	if (r)
		return r;
	if (sl.b.refs) {
		slot_abandon(&sl);
		return -EIO; /* the allocator handed out a block in use */
	}
	sl.b = (struct ms_block){.xxh3 = fp->xxh3, .refs = 1};
	memcpy(sl.b.sha1_head, fp->sha1, sizeof(sl.b.sha1_head));
	r = slot_close(&sl);
	if (r)
		return r;
	r = batch ? dedupe_index_batch_add(batch, fp->sha1, *pblk)
		  : dedupe_index_add(ms, txn, fp->sha1, *pblk);
	if (r)
		return r;
	c->unique_blocks++;
	return 0;
}

int dedupe_block_ref(const struct metastore *ms, MDB_txn *txn, uint64_t pblk)
{
	struct slot sl;
	int r = slot_open(ms, txn, pblk, false, &sl);
	if (r)
		return r;
	if (sl.b.refs == 0 || sl.b.refs == UINT32_MAX) {
		slot_abandon(&sl);
		return sl.b.refs ? -EMLINK : -ENOENT;
	}
	sl.b.refs++;
	return slot_close(&sl);
}

int dedupe_block_unref(const struct metastore *ms, MDB_txn *txn,
		       struct ms_counters *c, uint64_t pblk, bool *freed)
{
	struct slot sl;
	*freed = false;
	int r = slot_open(ms, txn, pblk, false, &sl);
	if (r)
		return r;
	if (sl.b.refs == 0) {
		slot_abandon(&sl);
		return -ENOENT;
	}
	if (--sl.b.refs > 0)
		return slot_close(&sl);
	struct ms_block last = sl.b;
	sl.b = (struct ms_block){0};
	r = slot_close(&sl);
	/* Unindexed only after the slot is closed: no pointer into the
	 * blocks table is held across changes to another table. */
	if (!r)
		r = dedupe_index_remove(ms, txn, last.sha1_head, pblk);
	if (!r)
		r = dedupe_csize_clear(ms, txn, pblk);
	MDB_val k = {sizeof(pblk), &pblk}, empty = {0, NULL};
	if (!r)
		r = metastore_errno(
		    mdb_put(txn, metastore_dbi(ms, MS_PENDING), &k, &empty, 0));
	if (r)
		return r;
	c->unique_blocks--;
	*freed = true;
	return 0;
}
