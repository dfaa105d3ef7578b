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

int dedupe_index_add(const struct metastore *ms, MDB_txn *txn,
		     const uint8_t sha1[FINGERPRINT_SHA1_LEN], uint64_t pblk)
{
	uint8_t item[MS_FP_ITEM_LEN];
	memcpy(item, sha1, TAIL);
	ms_put_pblk(item + TAIL, pblk);
	MDB_val k = {1, (void *)&fp_key}, v = {sizeof(item), item};
	ms_seal(MS_FPINDEX, &k, item, sizeof(item));
	return metastore_errno(
	    mdb_put(txn, metastore_dbi(ms, MS_FPINDEX), &k, &v, 0));
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
