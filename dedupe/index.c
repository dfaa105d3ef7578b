/* The fingerprint index (dedupe/index.h), inside a caller's write
 * transaction: which blocks hold a SHA-1.
 *
 * The table is packed (see meta/metastore.h):
 *
 *   fpindex  one key -> items              sha1[0..16) | 40-bit pblk | seal
 *
 * A block's record keeps only sha1_head = sha1[0..4), so unindexing a
 * freed block walks the items that share those 4 bytes (a handful at
 * most, in practice one) for the one that names the block.
 *
 * A damaged item (its seal fails) is counted and logged, and a lookup goes
 * on without it: the write stores its block anew rather than trust it.
 */
#include "dedupe/index.h"

#include <errno.h>
#include <string.h>

#define TAIL MS_FP_SHA1_LEN /* the SHA-1's first bytes open an item */

/* All items sit under one key: one B-tree of packed items, so a write of
 * 256 new blocks touches the leaves it lands in, not 256 sub-trees. */
static const uint8_t fp_key = 0;

int dedupe_index_walk(const struct metastore *ms, MDB_txn *txn,
		      const uint8_t sha1[FINGERPRINT_SHA1_LEN],
		      dedupe_candidate_fn fn, void *ctx)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_FPINDEX), &cur);
	if (rc)
		return metastore_errno(rc);
	uint8_t item[MS_FP_ITEM_LEN] = {0};
	memcpy(item, sha1, TAIL);
	MDB_val k = {1, (void *)&fp_key}, v = {sizeof(item), item};
	int r = 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_GET_BOTH_RANGE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		if (v.mv_size != MS_FP_ITEM_LEN) {
			r = -EIO;
			break;
		}
		if (memcmp(v.mv_data, sha1, TAIL))
			break; /* past this SHA-1's items */
		if (!ms_sealed(MS_FPINDEX, &k, &v)) {
			metastore_damaged(ms, MS_FPINDEX, &k, MS_NO_INO,
					  MS_NO_INO);
			continue;
		}
		r = fn(ctx, ms_get_pblk((const uint8_t *)v.mv_data + TAIL));
		if (r)
			break;
	}
	mdb_cursor_close(cur);
	if (r)
		return r;
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : metastore_errno(rc);
}

/* A leaf page of items, as MDB_GET_MULTIPLE hands it: packed, sorted. */
struct leaf {
	const uint8_t *it;
	size_t n;
};

/* The page the cursor is on; a lone item (no duplicates yet: LMDB keeps
 * it in the node, not in a page) is a page of one. */
static int leaf_here(MDB_cursor *cur, const MDB_val *v, struct leaf *pg)
{
	MDB_val k, m = {0, NULL};
	int rc = mdb_cursor_get(cur, &k, &m, MDB_GET_MULTIPLE);
	if (rc)
		return metastore_errno(rc);
	if (!m.mv_size)
		m = *v;
	if (!m.mv_size || m.mv_size % MS_FP_ITEM_LEN)
		return -EIO;
	*pg = (struct leaf){m.mv_data, m.mv_size / MS_FP_ITEM_LEN};
	return 0;
}

/* The page holding the first item at or past @sha1 (a descent from the
 * root): 0, 1 when there is none, or -errno. */
static int leaf_seek(MDB_cursor *cur, const uint8_t *sha1, struct leaf *pg)
{
	uint8_t item[MS_FP_ITEM_LEN] = {0};
	memcpy(item, sha1, TAIL);
	MDB_val k = {1, (void *)&fp_key}, v = {sizeof(item), item};
	int rc = mdb_cursor_get(cur, &k, &v, MDB_GET_BOTH_RANGE);
	if (rc == MDB_NOTFOUND)
		return 1;
	if (rc)
		return metastore_errno(rc);
	if (v.mv_size != MS_FP_ITEM_LEN)
		return -EIO;
	return leaf_here(cur, &v, pg);
}

/* The page after the cursor's (a step to the sibling): 0, 1 at the end,
 * or -errno. */
static int leaf_next(MDB_cursor *cur, struct leaf *pg)
{
	MDB_val k, m;
	int rc = mdb_cursor_get(cur, &k, &m, MDB_NEXT_MULTIPLE);
	if (rc == MDB_NOTFOUND)
		return 1;
	if (rc)
		return metastore_errno(rc);
	if (!m.mv_size || m.mv_size % MS_FP_ITEM_LEN)
		return -EIO;
	*pg = (struct leaf){m.mv_data, m.mv_size / MS_FP_ITEM_LEN};
	return 0;
}

static const uint8_t *leaf_item(const struct leaf *pg, size_t i)
{
	return pg->it + i * MS_FP_ITEM_LEN;
}

/* Is an item of @sha1 on @pg, which ends at or past it? A binary search
 * for the first item not below it. */
static bool leaf_has(const struct leaf *pg, const uint8_t *sha1)
{
	size_t lo = 0, hi = pg->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (memcmp(leaf_item(pg, mid), sha1, TAIL) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pg->n && !memcmp(leaf_item(pg, lo), sha1, TAIL);
}

/* Bring @pg to the page where @sha1 would be, moving forward only: the
 * same page, else the next one, else a seek. 0, 1 past the last item, or
 * -errno. */
static int leaf_reach(MDB_cursor *cur, struct leaf *pg, const uint8_t *sha1)
{
	if (pg->n && memcmp(sha1, leaf_item(pg, pg->n - 1), TAIL) <= 0)
		return 0;
	int r = pg->n ? leaf_next(cur, pg) : leaf_seek(cur, sha1, pg);
	if (r || memcmp(sha1, leaf_item(pg, pg->n - 1), TAIL) <= 0)
		return r;
	return leaf_seek(cur, sha1, pg);
}

/* One cursor for the whole run: consecutive SHA-1s of a sorted run land
 * on the same leaf page or the next one far more often than not, so most
 * lookups are a binary search in a page already at hand instead of a
 * descent from the root. Seals are not checked: an item found here only
 * sends its block to dedupe_index_walk, which checks them. */
int dedupe_index_probe(const struct metastore *ms, MDB_txn *txn,
		       const uint8_t *const *sha1s, size_t n, bool *found)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_FPINDEX), &cur);
	if (rc)
		return metastore_errno(rc);
	struct leaf pg = {NULL, 0};
	int r = 0;
	size_t i = 0;
	for (; i < n && !r; i++) {
		r = leaf_reach(cur, &pg, sha1s[i]);
		found[i] = !r && leaf_has(&pg, sha1s[i]);
	}
	mdb_cursor_close(cur);
	if (r < 0)
		return r;
	for (; i < n; i++)
		found[i] = false; /* past the last item */
	return 0;
}

static void item_make(uint8_t item[MS_FP_ITEM_LEN], const uint8_t *sha1,
		      uint64_t pblk)
{
	memcpy(item, sha1, TAIL);
	ms_put_pblk(item + TAIL, pblk);
	MDB_val k = {1, (void *)&fp_key};
	ms_seal(MS_FPINDEX, &k, item, MS_FP_ITEM_LEN);
}

int dedupe_index_add(const struct metastore *ms, MDB_txn *txn,
		     const uint8_t sha1[FINGERPRINT_SHA1_LEN], uint64_t pblk)
{
	uint8_t item[MS_FP_ITEM_LEN];
	item_make(item, sha1, pblk);
	MDB_val k = {1, (void *)&fp_key}, v = {sizeof(item), item};
	return metastore_errno(
	    mdb_put(txn, metastore_dbi(ms, MS_FPINDEX), &k, &v, 0));
}

int dedupe_index_batch_add(struct dedupe_index_batch *b,
			   const uint8_t sha1[FINGERPRINT_SHA1_LEN],
			   uint64_t pblk)
{
	if (b->n == b->cap)
		return -EOVERFLOW;
	item_make(b->it + b->n++ * MS_FP_ITEM_LEN, sha1, pblk);
	return 0;
}

/* MDB_MULTIPLE (a DUPFIXED table's contiguous items in one call) still
 * places each item with its own descent in LMDB, but skips the per-put
 * cursor set-up and the search for the one key: about a third of the
 * cost of an mdb_put each (bench/RESULTS.md). The items need no order. */
int dedupe_index_flush(const struct metastore *ms, MDB_txn *txn,
		       struct dedupe_index_batch *b)
{
	if (!b->n)
		return 0;
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_FPINDEX), &cur);
	if (rc)
		return metastore_errno(rc);
	MDB_val k = {1, (void *)&fp_key};
	MDB_val v[2] = {{MS_FP_ITEM_LEN, b->it}, {b->n, NULL}};
	rc = mdb_cursor_put(cur, &k, v, MDB_MULTIPLE);
	bool short_put = !rc && v[1].mv_size != b->n; /* fewer, no error */
	mdb_cursor_close(cur);
	b->n = 0;
	return short_put ? -EIO : metastore_errno(rc);
}

/* Found by its sha1_head; a collision twin keeps its item. */
int dedupe_index_remove(const struct metastore *ms, MDB_txn *txn,
			const uint8_t sha1_head[DEDUPE_SHA1_HEAD_LEN],
			uint64_t pblk)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_FPINDEX), &cur);
	if (rc)
		return metastore_errno(rc);
	uint8_t item[MS_FP_ITEM_LEN] = {0};
	const size_t head = DEDUPE_SHA1_HEAD_LEN;
	memcpy(item, sha1_head, head);
	MDB_val k = {1, (void *)&fp_key}, v = {sizeof(item), item};
	int r = -EIO; /* not indexed: the tables disagree */
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_GET_BOTH_RANGE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		const uint8_t *it = v.mv_data;
		if (v.mv_size != MS_FP_ITEM_LEN || memcmp(it, sha1_head, head))
			break;
		if (ms_get_pblk(it + TAIL) == pblk) {
			/* Going anyway: damage elsewhere in it is reported,
			 * not a reason to keep a freed block indexed. */
			if (!ms_sealed(MS_FPINDEX, &k, &v))
				metastore_damaged(ms, MS_FPINDEX, &k, MS_NO_INO,
						  MS_NO_INO);
			r = metastore_errno(mdb_cursor_del(cur, 0));
			break;
		}
	}
	if (rc && rc != MDB_NOTFOUND)
		r = metastore_errno(rc);
	mdb_cursor_close(cur);
	return r;
}
