/* Per-block compressed sizes and their sum (dedupe/csize.h). A record of
 * 80 sizes shares its blocks record's numbering, so a sequential write
 * changes one record per 80 blocks, like the blocks table. */
#include "dedupe/csize.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/block.h"

#define SLOTS MS_BLOCK_EXTENT
#define KEY_LEN 22 /* "csize:" + 16 hex digits */

struct rec {
	uint16_t size[SLOTS];
};

static const char total_key[] = DEDUPE_CSIZE_PREFIX "total";
#define PREFIX_LEN (sizeof(DEDUPE_CSIZE_PREFIX) - 1)

static MDB_val key_of(uint64_t pblk, char buf[KEY_LEN + 1])
{
	snprintf(buf, KEY_LEN + 1, DEDUPE_CSIZE_PREFIX "%016llx",
		 (unsigned long long)(pblk / SLOTS));
	return (MDB_val){KEY_LEN, buf};
}

/* The record of @k, all zeros when there is none. */
static int rec_get(const struct metastore *ms, MDB_txn *txn, MDB_val *k,
		   void *out, size_t size)
{
	int r = metastore_get_sealed(ms, txn, MS_META, k, out, size);
	if (r == -ENOENT) {
		memset(out, 0, size);
		return 0;
	}
	return r;
}

int dedupe_csize_total(const struct metastore *ms, MDB_txn *txn,
		       struct dedupe_csize_total *out)
{
	MDB_val k = {sizeof(total_key) - 1, (void *)total_key};
	return rec_get(ms, txn, &k, out, sizeof(*out));
}

static int total_put(const struct metastore *ms, MDB_txn *txn,
		     const struct dedupe_csize_total *t)
{
	MDB_val k = {sizeof(total_key) - 1, (void *)total_key};
	return metastore_put_sealed(ms, txn, MS_META, &k, t, sizeof(*t), 0);
}

/* Put @rec back under @k, or delete it when every slot is empty. */
static int rec_put(const struct metastore *ms, MDB_txn *txn, MDB_val *k,
		   const struct rec *rec)
{
	for (unsigned i = 0; i < SLOTS; i++)
		if (rec->size[i])
			return metastore_put_sealed(ms, txn, MS_META, k, rec,
						    sizeof(*rec), 0);
	return metastore_errno(
	    mdb_del(txn, metastore_dbi(ms, MS_META), k, NULL));
}

int dedupe_csize_set(const struct metastore *ms, MDB_txn *txn, uint64_t pblk,
		     uint32_t size)
{
	if (size == 0 || size > BLOCK_BYTES)
		return -EINVAL;
	char buf[KEY_LEN + 1];
	MDB_val k = key_of(pblk, buf);
	struct rec rec;
	struct dedupe_csize_total t;
	int r = rec_get(ms, txn, &k, &rec, sizeof(rec));
	if (!r)
		r = dedupe_csize_total(ms, txn, &t);
	if (r)
		return r;
	uint16_t *slot = &rec.size[pblk % SLOTS];
	/* A size left by a block freed outside the data path (fsck) is
	 * replaced, the sum kept the sum of the slots. */
	if (*slot) {
		t.bytes -= *slot;
		t.blocks--;
	}
	*slot = (uint16_t)size;
	t.bytes += size;
	t.blocks++;
	r = rec_put(ms, txn, &k, &rec);
	return r ? r : total_put(ms, txn, &t);
}

int dedupe_csize_clear(const struct metastore *ms, MDB_txn *txn, uint64_t pblk)
{
	struct dedupe_csize_total t;
	int r = dedupe_csize_total(ms, txn, &t);
	if (r || t.blocks == 0)
		return r; /* nothing measured: the common case, one read */
	char buf[KEY_LEN + 1];
	MDB_val k = key_of(pblk, buf);
	struct rec rec;
	r = rec_get(ms, txn, &k, &rec, sizeof(rec));
	uint16_t *slot = &rec.size[pblk % SLOTS];
	if (r || !*slot)
		return r;
	if (t.bytes < *slot)
		return metastore_damaged_why(ms, MS_META, &k, MS_NO_INO,
					     MS_NO_INO,
					     "holds more than the total");
	t.bytes -= *slot;
	t.blocks--;
	*slot = 0;
	r = rec_put(ms, txn, &k, &rec);
	return r ? r : total_put(ms, txn, &t);
}

enum dedupe_csize_kind dedupe_csize_parse(const MDB_val *k, const MDB_val *v,
					  uint64_t *first_pblk,
					  uint16_t sizes[MS_BLOCK_EXTENT],
					  struct dedupe_csize_total *total)
{
	const char *key = k->mv_data;
	if (k->mv_size < PREFIX_LEN ||
	    memcmp(key, DEDUPE_CSIZE_PREFIX, PREFIX_LEN))
		return DEDUPE_CSIZE_OTHER;
	if (k->mv_size == sizeof(total_key) - 1 &&
	    !memcmp(key, total_key, k->mv_size)) {
		if (v->mv_size != sizeof(*total) + MS_SEAL_LEN)
			return DEDUPE_CSIZE_BROKEN;
		memcpy(total, v->mv_data, sizeof(*total));
		return DEDUPE_CSIZE_TOTAL;
	}
	if (k->mv_size != KEY_LEN ||
	    v->mv_size != sizeof(struct rec) + MS_SEAL_LEN)
		return DEDUPE_CSIZE_BROKEN;
	uint64_t n = 0;
	for (size_t i = PREFIX_LEN; i < KEY_LEN; i++) {
		char c = key[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
					       : -1;
		if (d < 0)
			return DEDUPE_CSIZE_BROKEN;
		n = n << 4 | (uint64_t)d;
	}
	if (n > UINT64_MAX / SLOTS)
		return DEDUPE_CSIZE_BROKEN;
	*first_pblk = n * SLOTS;
	memcpy(sizes, v->mv_data, sizeof(struct rec));
	return DEDUPE_CSIZE_SIZES;
}
