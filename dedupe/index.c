/* Fingerprint index, block records and the block allocator, all inside a
 * caller's write transaction: the caller's commit makes a write's new
 * blocks, references and frees visible at once, or not at all.
 *
 * Allocation takes the lowest free block first (the free map is ordered),
 * so a store that frees and rewrites stays compact; only when the free map
 * is empty does the high-water mark grow.
 */
#include "dedupe/index.h"

#include <errno.h>
#include <string.h>

static MDB_val u64_val(uint64_t *v)
{
	return (MDB_val){sizeof(*v), v};
}

int dedupe_index_walk(const struct metastore *ms, MDB_txn *txn,
		      const uint8_t sha1[FINGERPRINT_SHA1_LEN],
		      dedupe_candidate_fn fn, void *ctx)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_FPINDEX), &cur);
	if (rc)
		return metastore_errno(rc);
	MDB_val k = {FINGERPRINT_SHA1_LEN, (void *)sha1}, v;
	int r = 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY); rc == 0 && !r;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		uint64_t pblk;
		if (v.mv_size != sizeof(pblk)) {
			r = -EIO;
			break;
		}
		memcpy(&pblk, v.mv_data, sizeof(pblk));
		r = fn(ctx, pblk);
	}
	mdb_cursor_close(cur);
	if (r)
		return r;
	return rc == MDB_NOTFOUND ? 0 : metastore_errno(rc);
}

int dedupe_block_get(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		     struct ms_block *out)
{
	MDB_val k = u64_val(&pblk), v;
	int rc = mdb_get(txn, metastore_dbi(ms, MS_BLOCKS), &k, &v);
	if (rc)
		return metastore_errno(rc);
	if (v.mv_size != sizeof(*out))
		return -EIO;
	memcpy(out, v.mv_data, sizeof(*out));
	return 0;
}

static int block_put(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		     const struct ms_block *b)
{
	MDB_val k = u64_val(&pblk), v = {sizeof(*b), (void *)b};
	return metastore_errno(
		mdb_put(txn, metastore_dbi(ms, MS_BLOCKS), &k, &v, 0));
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
		return metastore_errno(rc);
	}
	mdb_cursor_close(cur);
	if (rc != MDB_NOTFOUND)
		return metastore_errno(rc);
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
	struct ms_block b = {.refs = 1, .xxh3 = fp->xxh3};
	memcpy(b.sha1, fp->sha1, sizeof(b.sha1));
	r = block_put(ms, txn, *pblk, &b);
	if (r)
		return r;
	MDB_val k = {FINGERPRINT_SHA1_LEN, (void *)fp->sha1};
	MDB_val v = u64_val(pblk);
	r = metastore_errno(
		mdb_put(txn, metastore_dbi(ms, MS_FPINDEX), &k, &v, 0));
	if (r)
		return r;
	c->unique_blocks++;
	return 0;
}

int dedupe_block_ref(const struct metastore *ms, MDB_txn *txn, uint64_t pblk)
{
	struct ms_block b;
	int r = dedupe_block_get(ms, txn, pblk, &b);
	if (r)
		return r;
	if (b.refs == UINT32_MAX)
		return -EMLINK;
	b.refs++;
	return block_put(ms, txn, pblk, &b);
}

/* Drop this block's own entry; a collision twin keeps its entry. */
static int unindex(const struct metastore *ms, MDB_txn *txn,
		   const struct ms_block *b, uint64_t pblk)
{
	MDB_val k = {FINGERPRINT_SHA1_LEN, (void *)b->sha1};
	MDB_val v = u64_val(&pblk);
	int rc = mdb_del(txn, metastore_dbi(ms, MS_FPINDEX), &k, &v);
	return rc == MDB_NOTFOUND ? -EIO : metastore_errno(rc);
}

int dedupe_block_unref(const struct metastore *ms, MDB_txn *txn,
		       struct ms_counters *c, uint64_t pblk, bool *freed)
{
	struct ms_block b;
	*freed = false;
	int r = dedupe_block_get(ms, txn, pblk, &b);
	if (r)
		return r;
	if (b.refs == 0)
		return -EIO;
	if (--b.refs > 0)
		return block_put(ms, txn, pblk, &b);
	r = unindex(ms, txn, &b, pblk);
	if (r)
		return r;
	MDB_val k = u64_val(&pblk), empty = {0, NULL};
	r = metastore_errno(
		mdb_del(txn, metastore_dbi(ms, MS_BLOCKS), &k, NULL));
	if (!r)
		r = metastore_errno(mdb_put(
			txn, metastore_dbi(ms, MS_PENDING), &k, &empty, 0));
	if (r)
		return r;
	c->unique_blocks--;
	*freed = true;
	return 0;
}
