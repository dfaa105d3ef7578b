/* The replica's side (replication/replica.h). */
#include "replication/replica.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dedupe/fingerprint.h"
#include "meta/metastore.h"
#include "tiers/backing.h"

struct fp_item {
	uint64_t pblk, xxh3;
	uint64_t from; /* REPL_LOCAL: the replica's block with its bytes */
	uint8_t sha[REPL_SHA_LEN];
	uint8_t has_sha, verdict;
};

struct replica {
	struct metastore *ms;
	struct backing *backing;
	struct backing_dev dev;
	struct fp_item *items; /* the batch's fingerprints */
	size_t nitems;
};

int replica_open(const char *dir, struct replica **out, char *err,
		 size_t errlen)
{
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		int r = -errno;
		snprintf(err, errlen, "replica %s: %s", dir, strerror(errno));
		return r;
	}
	struct replica *rp = calloc(1, sizeof(*rp));
	if (!rp) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int r = metastore_open(dir, 0, true, false, &rp->ms, err, errlen);
	if (!r && (r = metastore_check(rp->ms, err, errlen)))
		metastore_close(rp->ms);
	if (!r && (r = backing_open(dir, &rp->backing, err, errlen)))
		metastore_close(rp->ms);
	if (r) {
		free(rp);
		return r;
	}
	rp->dev = backing_dev(rp->backing);
	*out = rp;
	return 0;
}

void replica_close(struct replica *rp)
{
	if (!rp)
		return;
	backing_close(rp->backing);
	metastore_close(rp->ms);
	free(rp->items);
	free(rp);
}

MDB_env *replica_env(struct replica *rp)
{
	return metastore_env(rp->ms);
}

/* The `blocks` slot of @pblk in @txn; a missing record is a free slot. */
static int slot_of(struct replica *rp, MDB_txn *txn, uint64_t pblk,
		   struct ms_block *out)
{
	struct ms_block rec[MS_BLOCK_EXTENT];
	uint64_t key = pblk / MS_BLOCK_EXTENT;
	MDB_val k = {sizeof(key), &key};
	int r =
	    metastore_get_sealed(rp->ms, txn, MS_BLOCKS, &k, rec, sizeof(rec));
	if (r == -ENOENT) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	if (!r)
		*out = rec[pblk % MS_BLOCK_EXTENT];
	return r;
}

/* A block the replica uses with the same SHA-1 prefix and XXH3. */
static int find_local(struct replica *rp, MDB_txn *txn,
		      const struct fp_item *it, uint64_t *from)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(rp->ms, MS_FPINDEX), &cur);
	if (rc)
		return metastore_errno(rc);
	uint8_t probe[MS_FP_ITEM_LEN] = {0};
	memcpy(probe, it->sha, REPL_SHA_LEN);
	MDB_val k = {1, "\0"}, v = {sizeof(probe), probe};
	int r = -ENOENT;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_GET_BOTH_RANGE);
	     !rc && r == -ENOENT && v.mv_size == MS_FP_ITEM_LEN &&
	     !memcmp(v.mv_data, it->sha, REPL_SHA_LEN);
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT_DUP)) {
		if (!ms_sealed(MS_FPINDEX, &k, &v))
			continue; /* a damaged item is never a candidate */
		uint64_t q =
		    ms_get_pblk((const uint8_t *)v.mv_data + REPL_SHA_LEN);
		struct ms_block b;
		if (!slot_of(rp, txn, q, &b) && b.refs && b.xxh3 == it->xxh3) {
			*from = q;
			r = 0;
		}
	}
	mdb_cursor_close(cur);
	return r;
}

static int verdict_of(struct replica *rp, MDB_txn *txn, struct fp_item *it)
{
	struct ms_block b;
	int r = slot_of(rp, txn, it->pblk, &b);
	if (r)
		return r;
	if (b.refs) {
		bool same = b.xxh3 == it->xxh3 &&
			    (!it->has_sha || !memcmp(b.sha1_head, it->sha, 4));
		it->verdict = same ? REPL_HAVE : REPL_CONFLICT;
		return 0;
	}
	r = it->has_sha ? find_local(rp, txn, it, &it->from) : -ENOENT;
	if (r && r != -ENOENT)
		return r;
	it->verdict = r ? REPL_NEED : REPL_LOCAL;
	return 0;
}

static int parse_fps(struct replica *rp, const struct wbuf *fps)
{
	struct rbuf in = {fps->p, fps->len, 0, false};
	(void)rbuf_u8(&in); /* full: the replica answers both alike */
	uint64_t n = rbuf_u64(&in);
	if (in.bad || n > (fps->len - in.at) / REPL_FP_ITEM)
		return -EPROTO;
	struct fp_item *items = calloc(n ? n : 1, sizeof(*items));
	if (!items)
		return -ENOMEM;
	/* A bad pblk ends the parse: later reads would be of a bad message. */
	for (uint64_t i = 0; i < n && !in.bad; i++) {
		items[i].pblk = rbuf_u64(&in);
		items[i].xxh3 = rbuf_u64(&in);
		items[i].has_sha = rbuf_u8(&in);
		memcpy(items[i].sha, rbuf_take(&in, REPL_SHA_LEN),
		       REPL_SHA_LEN);
		if (!items[i].pblk || items[i].pblk >= MS_PBLK_LIMIT)
			in.bad = true;
	}
	free(rp->items);
	rp->items = items;
	rp->nitems = n;
	return in.bad || in.at != in.len ? -EPROTO : 0;
}

int replica_fps(struct replica *rp, const struct wbuf *fps,
		struct wbuf *verdict, struct replica_tally *t, char *err,
		size_t errlen)
{
	memset(t, 0, sizeof(*t));
	int r = parse_fps(rp, fps);
	MDB_txn *txn = NULL;
	if (!r)
		r = metastore_txn_begin(rp->ms, false, &txn);
	for (size_t i = 0; !r && i < rp->nitems; i++) {
		r = verdict_of(rp, txn, &rp->items[i]);
		uint8_t v = rp->items[i].verdict;
		wbuf_u8(verdict, v);
		t->have += v == REPL_HAVE;
		t->local += v == REPL_LOCAL;
		t->need += v == REPL_NEED;
		t->conflict += v == REPL_CONFLICT;
	}
	metastore_txn_abort(txn);
	if (!r && verdict->oom)
		r = -ENOMEM;
	if (r)
		snprintf(err, errlen, "replica: fingerprints: %s",
			 r == -EPROTO ? "bad message" : strerror(-r));
	return r;
}

/* The same bytes the replica holds at it->from, checked again. */
static int copy_local(struct replica *rp, const struct fp_item *it,
		      uint8_t *buf)
{
	struct backing_io io = {it->from, buf};
	int r = rp->dev.ops->read(rp->dev.ctx, &io, 1);
	uint8_t sha[FINGERPRINT_SHA1_LEN];
	if (!r && (fingerprint_xxh3(buf) != it->xxh3 ||
		   fingerprint_sha1(buf, BLOCK_BYTES, sha) ||
		   memcmp(sha, it->sha, REPL_SHA_LEN)))
		r = -EILSEQ; /* not the block asked for: never stored */
	io.pblk = it->pblk;
	return r ? r : rp->dev.ops->write(rp->dev.ctx, &io, 1);
}

static int take_needed(struct replica *rp, struct rbuf *in)
{
	uint64_t n = rbuf_u64(in), got = 0;
	for (size_t i = 0; i < rp->nitems && !in->bad; i++) {
		const struct fp_item *it = &rp->items[i];
		if (it->verdict != REPL_NEED)
			continue;
		uint64_t pblk = rbuf_u64(in);
		const uint8_t *bytes = rbuf_take(in, BLOCK_BYTES);
		if (in->bad || pblk != it->pblk || got++ >= n)
			return -EPROTO;
		if (fingerprint_xxh3(bytes) != it->xxh3)
			return -EILSEQ; /* damaged in transit */
	}
	return in->bad || got != n || in->at != in->len ? -EPROTO : 0;
}

static int write_needed(struct replica *rp, const struct wbuf *blocks)
{
	struct rbuf in = {blocks->p, blocks->len, 8, false};
	for (size_t i = 0; i < rp->nitems; i++) {
		if (rp->items[i].verdict != REPL_NEED)
			continue;
		in.at += 8;
		struct backing_io io = {rp->items[i].pblk,
					(void *)(blocks->p + in.at)};
		in.at += BLOCK_BYTES;
		int r = rp->dev.ops->write(rp->dev.ctx, &io, 1);
		if (r)
			return r;
	}
	return 0;
}

int replica_blocks(struct replica *rp, const struct wbuf *blocks, char *err,
		   size_t errlen)
{
	struct rbuf in = {blocks->p, blocks->len, 0, false};
	uint8_t buf[BLOCK_BYTES];
	/* Every block is checked before the first is written. */
	int r = take_needed(rp, &in);
	if (!r)
		r = write_needed(rp, blocks);
	for (size_t i = 0; !r && i < rp->nitems; i++)
		if (rp->items[i].verdict == REPL_LOCAL)
			r = copy_local(rp, &rp->items[i], buf);
	if (!r)
		r = rp->dev.ops->sync(rp->dev.ctx);
	if (r)
		snprintf(err, errlen, "replica: blocks: %s",
			 r == -EPROTO	? "bad message"
			 : r == -EILSEQ ? "a block fails its checksum"
					: strerror(-r));
	return r;
}

static int apply_op(MDB_txn *txn, MDB_dbi dbi, bool dup, uint8_t op, MDB_val *k,
		    MDB_val *v)
{
	int rc;
	if (op == REPL_OP_PUT) {
		rc = mdb_put(txn, dbi, k, v, 0);
		return rc == MDB_KEYEXIST ? 0 : metastore_errno(rc);
	}
	if (op != REPL_OP_DEL)
		return -EPROTO;
	rc = mdb_del(txn, dbi, k, dup ? v : NULL);
	/* A delete of what the replica lacks: it is not at the state the
	 * batch starts from, and the whole batch is refused. */
	return rc == MDB_NOTFOUND ? -EPROTO : metastore_errno(rc);
}

static int apply_ops(struct replica *rp, MDB_txn *txn, struct rbuf *in)
{
	bool full = rbuf_u8(in) != 0;
	uint64_t nops = rbuf_u64(in);
	int r = in->bad ? -EPROTO : 0;
	for (int t = 0; !r && full && t < MS_NTABLES; t++)
		r = metastore_errno(
		    mdb_drop(txn, metastore_dbi(rp->ms, (enum ms_table)t), 0));
	for (uint64_t i = 0; !r && i < nops; i++) {
		uint8_t op = rbuf_u8(in), t = rbuf_u8(in);
		MDB_val k, v;
		k.mv_size = rbuf_u32(in);
		k.mv_data = (void *)rbuf_take(in, k.mv_size);
		v.mv_size = rbuf_u32(in);
		v.mv_data = (void *)rbuf_take(in, v.mv_size);
		if (in->bad || t >= MS_NTABLES || !k.mv_size || !k.mv_data ||
		    (v.mv_size && !v.mv_data))
			return -EPROTO;
		MDB_dbi dbi = metastore_dbi(rp->ms, (enum ms_table)t);
		unsigned flags = 0;
		r = metastore_errno(mdb_dbi_flags(txn, dbi, &flags));
		if (!r)
			r = apply_op(txn, dbi, flags & MDB_DUPSORT, op, &k, &v);
	}
	return r || in->at == in->len ? r : -EPROTO;
}

int replica_commit(struct replica *rp, const struct wbuf *meta, char *err,
		   size_t errlen)
{
	struct rbuf in = {meta->p, meta->len, 0, false};
	MDB_txn *txn;
	int r = metastore_txn_begin(rp->ms, true, &txn);
	if (!r && (r = apply_ops(rp, txn, &in)))
		metastore_txn_abort(txn);
	else if (!r)
		r = metastore_txn_commit(txn);
	if (!r)
		r = metastore_errno(mdb_env_sync(metastore_env(rp->ms), 1));
	if (r)
		snprintf(err, errlen, "replica: metadata: %s",
			 r == -EPROTO ? "bad message, or the replica is not "
					"at the batch's starting state"
				      : strerror(-r));
	return r;
}
