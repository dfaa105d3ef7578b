/* The batch between two snapshots (replication/diff.h). */
#include "replication/diff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 1024;
	void *q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static void emit(struct repl_diff *d, uint8_t op, enum ms_table t,
		 const MDB_val *k, const MDB_val *v)
{
	wbuf_u8(&d->meta, op);
	wbuf_u8(&d->meta, (uint8_t)t);
	wbuf_u32(&d->meta, (uint32_t)k->mv_size);
	wbuf_put(&d->meta, k->mv_data, k->mv_size);
	wbuf_u32(&d->meta, v ? (uint32_t)v->mv_size : 0);
	if (v)
		wbuf_put(&d->meta, v->mv_data, v->mv_size);
	d->nops++;
}

/* Blocks record @k now @nv (before: @ov, NULL none): slots that now hold
 * bytes the old state did not have there. */
static int blocks_changed(struct repl_diff *d, const MDB_val *k,
			  const MDB_val *nv, const MDB_val *ov)
{
	if (k->mv_size != sizeof(uint64_t) || nv->mv_size != MS_BLOCK_REC_LEN)
		return -EIO;
	uint64_t key;
	memcpy(&key, k->mv_data, sizeof(key));
	for (unsigned i = 0; i < MS_BLOCK_EXTENT; i++) {
		struct ms_block n, o = {0};
		memcpy(&n, (const uint8_t *)nv->mv_data + i * 16, 16);
		if (ov && ov->mv_size == MS_BLOCK_REC_LEN)
			memcpy(&o, (const uint8_t *)ov->mv_data + i * 16, 16);
		if (!n.refs || (o.refs && o.xxh3 == n.xxh3 &&
				!memcmp(o.sha1_head, n.sha1_head, 4)))
			continue;
		if (grow((void **)&d->cand, &d->capcand, d->ncand,
			 sizeof(*d->cand)))
			return -ENOMEM;
		struct repl_cand *c = &d->cand[d->ncand++];
		*c = (struct repl_cand){.pblk = key * MS_BLOCK_EXTENT + i,
					.xxh3 = n.xxh3};
		memcpy(c->sha, n.sha1_head, 4);
	}
	return 0;
}

static void bmap_changed(struct repl_diff *d, const MDB_val *nv,
			 const MDB_val *ov)
{
	if (nv->mv_size != MS_BMAP_VALUE_LEN)
		return;
	bool old = ov && ov->mv_size == MS_BMAP_VALUE_LEN;
	for (unsigned i = 0; i < BMAP_EXTENT_BLOCKS; i++) {
		const uint8_t *np = (const uint8_t *)nv->mv_data + i * 5;
		uint64_t n = ms_get_pblk(np);
		uint64_t o =
		    old ? ms_get_pblk((const uint8_t *)ov->mv_data + i * 5) : 0;
		d->logical_blocks += n && n != o;
	}
}

/* Record (@k, @nv) of @t is in the batch (before: @ov). */
static int put(struct repl_diff *d, enum ms_table t, const MDB_val *k,
	       const MDB_val *nv, const MDB_val *ov)
{
	if (ms_table_sealed(t) && !ms_sealed(t, k, nv))
		return -EIO;
	emit(d, REPL_OP_PUT, t, k, nv);
	if (t == MS_BLOCKS)
		return blocks_changed(d, k, nv, ov);
	if (t == MS_BMAP)
		bmap_changed(d, nv, ov);
	return 0;
}

/* Pending in the new state: the source may reuse it once the replica
 * has this state. */
static int note_pending(struct repl_diff *d, const MDB_val *k)
{
	if (k->mv_size != sizeof(uint64_t))
		return -EIO;
	if (grow((void **)&d->pending, &d->cappending, d->npending, 8))
		return -ENOMEM;
	memcpy(&d->pending[d->npending++], k->mv_data, 8);
	return 0;
}

struct side {
	MDB_cursor *cur;
	MDB_val k, v;
	int rc; /* 0: at a record; MDB_NOTFOUND: past the end */
};

static int side_open(MDB_txn *txn, MDB_dbi dbi, struct side *s)
{
	s->cur = NULL;
	s->rc = MDB_NOTFOUND;
	if (!txn)
		return 0;
	int rc = mdb_cursor_open(txn, dbi, &s->cur);
	if (!rc)
		s->rc = mdb_cursor_get(s->cur, &s->k, &s->v, MDB_FIRST);
	return rc ? metastore_errno(rc) : 0;
}

static void side_next(struct side *s)
{
	s->rc = mdb_cursor_get(s->cur, &s->k, &s->v, MDB_NEXT);
}

/* Order of the two sides' records: new first (<0), old first (>0). */
static int order(MDB_txn *cut, MDB_dbi dbi, bool dup, struct side *n,
		 struct side *o)
{
	if (n->rc || o->rc)
		return n->rc ? 1 : -1;
	int c = mdb_cmp(cut, dbi, &n->k, &o->k);
	return c || !dup ? c : mdb_dcmp(cut, dbi, &n->v, &o->v);
}

static bool same_value(const MDB_val *a, const MDB_val *b)
{
	return a->mv_size == b->mv_size &&
	       !memcmp(a->mv_data, b->mv_data, a->mv_size);
}

static int diff_table(const struct metastore *ms, MDB_txn *old, MDB_txn *cut,
		      enum ms_table t, struct repl_diff *d)
{
	MDB_dbi dbi = metastore_dbi(ms, t);
	unsigned flags = 0;
	struct side n, o;
	int r = metastore_errno(mdb_dbi_flags(cut, dbi, &flags));
	bool dup = flags & MDB_DUPSORT;
	n.cur = o.cur = NULL;
	if (!r && !(r = side_open(cut, dbi, &n)))
		r = side_open(old, dbi, &o);
	while (!r && (!n.rc || !o.rc)) {
		int c = order(cut, dbi, dup, &n, &o);
		if (c > 0)
			emit(d, REPL_OP_DEL, t, &o.k, &o.v);
		else if (c < 0 || !same_value(&n.v, &o.v))
			r = put(d, t, &n.k, &n.v, c ? NULL : &o.v);
		if (!r && c <= 0 && t == MS_PENDING)
			r = note_pending(d, &n.k);
		if (c <= 0)
			side_next(&n);
		if (c >= 0)
			side_next(&o);
	}
	int rc = n.rc != MDB_NOTFOUND ? n.rc : o.rc;
	if (!r && rc != MDB_NOTFOUND)
		r = metastore_errno(rc);
	if (n.cur)
		mdb_cursor_close(n.cur);
	if (o.cur)
		mdb_cursor_close(o.cur);
	return r;
}

/* The candidate's SHA-1 prefix from its fpindex item in @cut, found as
 * the store unindexes a block: by the head its slot keeps, then pblk. */
static int find_sha(MDB_cursor *cur, struct repl_cand *c)
{
	uint8_t probe[MS_FP_ITEM_LEN] = {0};
	memcpy(probe, c->sha, 4);
	MDB_val k = {1, "\0"}, v = {sizeof(probe), probe};
	int rc;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_GET_BOTH_RANGE);
	     !rc && v.mv_size == MS_FP_ITEM_LEN &&
	     !memcmp(v.mv_data, c->sha, 4);
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		const uint8_t *item = v.mv_data;
		if (ms_get_pblk(item + REPL_SHA_LEN) != c->pblk ||
		    !ms_sealed(MS_FPINDEX, &k, &v))
			continue;
		memcpy(c->sha, item, REPL_SHA_LEN);
		c->has_sha = 1;
		return 0;
	}
	return rc && rc != MDB_NOTFOUND ? metastore_errno(rc) : 0;
}

int repl_diff(const struct metastore *ms, MDB_txn *old, MDB_txn *cut,
	      struct repl_diff *d)
{
	int r = 0;
	for (int t = 0; !r && t < MS_NTABLES; t++)
		r = diff_table(ms, old, cut, (enum ms_table)t, d);
	MDB_cursor *cur = NULL;
	if (!r && d->ncand)
		r = metastore_errno(
		    mdb_cursor_open(cut, metastore_dbi(ms, MS_FPINDEX), &cur));
	for (size_t i = 0; !r && i < d->ncand; i++)
		r = find_sha(cur, &d->cand[i]);
	if (cur)
		mdb_cursor_close(cur);
	return r || !d->meta.oom ? r : -ENOMEM;
}

void repl_diff_fps(const struct repl_diff *d, bool full, struct wbuf *out)
{
	wbuf_u8(out, full);
	wbuf_u64(out, d->ncand);
	for (size_t i = 0; i < d->ncand; i++) {
		const struct repl_cand *c = &d->cand[i];
		wbuf_u64(out, c->pblk);
		wbuf_u64(out, c->xxh3);
		wbuf_u8(out, c->has_sha);
		wbuf_put(out, c->sha, REPL_SHA_LEN);
	}
}

void repl_diff_free(struct repl_diff *d)
{
	wbuf_free(&d->meta);
	free(d->cand);
	free(d->pending);
	*d = (struct repl_diff){0};
}
