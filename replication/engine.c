/* The replication thread and its batches (replication/repl.h). */
#include "replication/repl_i.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/stats.h"
#include "replication/diff.h"
#include "replication/link.h"
#include "store/store.h"

/* One batch's messages and what came of them. */
struct batch {
	struct repl_diff d;
	struct wbuf fps, verdict, blocks, meta;
	struct replica_tally tally;
	bool full;
};

static void batch_free(struct batch *b)
{
	repl_diff_free(&b->d);
	wbuf_free(&b->fps);
	wbuf_free(&b->verdict);
	wbuf_free(&b->blocks);
	wbuf_free(&b->meta);
}

/* The BLOCKS message: the bytes of every block the replica said it
 * needs, read from the source's chunk files (stable: the cut uses them,
 * and no freed block is reused while replication holds them). */
static int read_needed(struct repl *r, struct batch *b)
{
	enum { CHUNK = 64 };
	struct backing_io ios[CHUNK];
	uint64_t need = b->tally.need;
	size_t len = 8 + need * (8 + BLOCK_BYTES);
	uint8_t *p = malloc(len);
	if (!p)
		return -ENOMEM;
	wbuf_free(&b->blocks);
	b->blocks = (struct wbuf){.p = p, .len = len, .cap = len};
	for (int s = 0; s < 8; s++)
		p[s] = (uint8_t)(need >> (8 * s));
	size_t at = 8;
	unsigned n = 0;
	for (size_t i = 0; i < b->d.ncand; i++) {
		if (b->verdict.p[i] != REPL_NEED)
			continue;
		uint64_t pblk = b->d.cand[i].pblk;
		for (int s = 0; s < 8; s++)
			p[at + s] = (uint8_t)(pblk >> (8 * s));
		ios[n++] = (struct backing_io){pblk, p + at + 8};
		at += 8 + BLOCK_BYTES;
		int e = n == CHUNK ? r->dev.ops->read(r->dev.ctx, ios, n) : 0;
		if (e)
			return e;
		n = n == CHUNK ? 0 : n;
	}
	return n ? r->dev.ops->read(r->dev.ctx, ios, n) : 0;
}

/* Fingerprints out, verdicts back, the bytes lacked out, the metadata
 * change out: the replica applies it once the bytes are durable. */
static int exchange(struct repl *r, struct batch *b, char *err, size_t errlen)
{
	repl_diff_fps(&b->d, b->full, &b->fps);
	if (b->fps.oom)
		return -ENOMEM;
	const struct repl_link_ops *l = r->link.ops;
	int e =
	    l->fps(r->link.ctx, &b->fps, &b->verdict, &b->tally, err, errlen);
	if (e)
		return e;
	if (b->tally.conflict) {
		snprintf(err, errlen,
			 "replica %.3000s uses %llu block(s) the source has "
			 "reused with other bytes: it is not a prior state "
			 "of this source (empty it to replicate there)",
			 r->dest, (unsigned long long)b->tally.conflict);
		return -EEXIST;
	}
	/* The model's link carries the batch while we ship it. */
	uint64_t due = repl_cost_book(r, &b->d, b->verdict.p,
				      b->fps.len + b->verdict.len + 8 +
					  b->tally.need * (8 + BLOCK_BYTES) +
					  9 + b->d.meta.len);
	if ((e = read_needed(r, b)) != 0) {
		snprintf(err, errlen, "reading the source's blocks: %s",
			 strerror(-e));
		return e;
	}
	if ((e = l->blocks(r->link.ctx, &b->blocks, err, errlen)))
		return e;
	wbuf_u8(&b->meta, b->full);
	wbuf_u64(&b->meta, b->d.nops);
	wbuf_put(&b->meta, b->d.meta.p, b->d.meta.len);
	if (b->meta.oom)
		return -ENOMEM;
	repl_cost_wait(r, due);
	return l->commit(r->link.ctx, &b->meta, err, errlen);
}

static void account(struct repl *r, const struct batch *b, uint64_t txnid,
		    int64_t cut_ns, uint64_t write_bytes, int64_t took)
{
	struct repl_figures *f = &r->fig;
	uint64_t logical = b->d.logical_blocks * BLOCK_BYTES;
	uint64_t shipped = b->tally.need * BLOCK_BYTES;
	pthread_mutex_lock(&r->lock);
	f->batches++;
	f->wire_bytes += b->fps.len + b->verdict.len + b->blocks.len +
			 b->meta.len + REPL_ACK_LEN +
			 r->link.ops->overhead(r->link.ctx);
	f->block_bytes += shipped;
	f->logical_bytes += logical;
	f->saved_bytes += logical > shipped ? logical - shipped : 0;
	f->blocks_shipped += b->tally.need;
	f->blocks_local += b->tally.local;
	f->blocks_have += b->tally.have;
	f->meta_ops += b->d.nops;
	f->rep_txnid = txnid;
	f->rep_mono_ns = cut_ns;
	f->rep_write_bytes = write_bytes;
	f->last_batch_ns = took;
	f->have_point = true;
	pthread_mutex_unlock(&r->lock);
}

/* The blocks pending in the cut the replica now holds are free there,
 * and the sync before the batch made their frees durable here: the
 * source may reuse them. */
static int release(struct repl *r, const struct repl_diff *d)
{
	if (!d->npending)
		return 0;
	int commits = metastore_release_listed(r->ms, d->pending, d->npending);
	if (commits <= 0)
		return commits;
	/* Only ours since the cut: the replica lacks nothing a file shows
	 * (the free map's change goes with the next batch). */
	MDB_envinfo info;
	mdb_env_info(metastore_env(r->ms), &info);
	pthread_mutex_lock(&r->lock);
	if (info.me_last_txnid == r->fig.rep_txnid + (uint64_t)commits)
		r->fig.rep_txnid = info.me_last_txnid;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

static void caught_up(struct repl *r, uint64_t write_bytes)
{
	pthread_mutex_lock(&r->lock);
	r->fig.rep_mono_ns = clock_mono_ns();
	r->fig.rep_write_bytes = write_bytes;
	pthread_mutex_unlock(&r->lock);
}

int repl_batch(struct repl *r, char *err, size_t errlen)
{
	int64_t t0 = clock_mono_ns();
	uint64_t wb = atomic_load(&r->stats->op[STATS_OP_WRITE].bytes);
	MDB_txn *cut;
	int e = metastore_txn_begin(r->ms, false, &cut);
	if (e) {
		snprintf(err, errlen, "source snapshot: %s", strerror(-e));
		return e;
	}
	uint64_t id = mdb_txn_id(cut);
	if (r->prev && id == mdb_txn_id(r->prev)) {
		metastore_txn_abort(cut); /* nothing committed since */
		caught_up(r, wb);
		return 0;
	}
	struct batch b = {.full = !r->prev};
	/* The source keeps what the replica gets: after a crash it opens at
	 * or past the replica's state, and no block that state uses has
	 * been reused (it is held pending from the open on). */
	e = store_sync(r->src);
	if (e)
		snprintf(err, errlen, "source sync: %s", strerror(-e));
	if (!e && (e = repl_diff(r->ms, r->prev, cut, &b.d)))
		snprintf(err, errlen, "reading the source's metadata: %s",
			 strerror(-e));
	if (!e)
		e = exchange(r, &b, err, errlen);
	if (e) {
		metastore_txn_abort(cut);
		batch_free(&b);
		return e;
	}
	pthread_mutex_lock(&r->lock); /* start() waits for it to go */
	metastore_txn_abort(r->prev);
	r->prev = cut;
	pthread_mutex_unlock(&r->lock);
	account(r, &b, id, t0, wb, clock_mono_ns() - t0);
	if ((e = release(r, &b.d)))
		snprintf(err, errlen, "releasing freed blocks: %s",
			 strerror(-e));
	batch_free(&b);
	return e;
}

void repl_forget(struct repl *r)
{
	pthread_mutex_lock(&r->lock);
	metastore_txn_abort(r->prev);
	r->prev = NULL;
	pthread_mutex_unlock(&r->lock);
}
