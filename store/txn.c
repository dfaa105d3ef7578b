/* The store transaction (store/txn.h): an LMDB write transaction, the
 * counters it will store, the extent it is working on (store/blockmap.h)
 * and the bytes of the new blocks it must write first.
 *
 *   store_txn_begin --> reads, writes, truncates --> store_txn_commit
 *                                               1. store the extent
 *                                               2. write new blocks' bytes
 *                                               3. store the counters
 *                                               4. commit, publish stats
 *                                               5. say what a long
 *                                                  truncate left
 *
 * New blocks' bytes reach the backing store before the transaction that
 * points at them commits, so a crash at any point leaves either the old
 * state or the new one.
 */
#include "store/txn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/block.h"
#include "store/blockmap.h"
#include "store/loss.h"
#include "store/store_i.h"

/* ---- write batch: bytes of new blocks, written before commit ---------- */

/* A block buffer that lives until the transaction ends: the bytes of a
 * block built inside it (the edge of a truncate or punch) are written at
 * commit. */
uint8_t *store_wb_scratch(struct store_wbatch *wb)
{
	void **grown =
	    realloc(wb->scratch, (wb->nscratch + 1) * sizeof(*wb->scratch));
	if (!grown)
		return NULL;
	wb->scratch = grown;
	uint8_t *b = aligned_alloc(64, BLOCK_BYTES);
	if (b)
		wb->scratch[wb->nscratch++] = b;
	return b;
}

int store_wb_add(struct store_wbatch *wb, uint64_t pblk, const void *data)
{
	if (wb->n == wb->cap) {
		unsigned cap = wb->cap ? wb->cap * 2 : 64;
		struct backing_io *io = realloc(wb->io, cap * sizeof(*io));
		if (!io)
			return -ENOMEM;
		wb->io = io;
		wb->cap = cap;
	}
	/* The backing store only reads from a write's buffer. */
	wb->io[wb->n++] = (struct backing_io){pblk, (void *)data};
	return 0;
}

/* Bytes of @pblk if this transaction is about to write them. */
const void *store_wb_find(const struct store_wbatch *wb, uint64_t pblk)
{
	for (unsigned i = wb->n; i-- > 0;)
		if (wb->io[i].pblk == pblk)
			return wb->io[i].buf;
	return NULL;
}

int store_txn_note_freed(struct store_txn *t, uint64_t pblk)
{
	if (t->nfreed == t->capfreed) {
		size_t cap = t->capfreed ? 2 * t->capfreed : 64;
		void *g = realloc(t->freed, cap * sizeof(*t->freed));
		if (!g)
			return -ENOMEM;
		t->freed = g;
		t->capfreed = cap;
	}
	t->freed[t->nfreed++] = pblk;
	return 0;
}

/* ---- transactions ----------------------------------------------------- */

int store_txn_begin(struct store *st, struct store_txn *t)
{
	memset(t, 0, sizeof(*t));
	t->st = st;
	t->wb = calloc(1, sizeof(*t->wb));
	t->ext = calloc(1, sizeof(*t->ext));
	if (!t->wb || !t->ext) {
		free(t->wb);
		free(t->ext);
		return -ENOMEM;
	}
	int r = metastore_txn_begin(st->ms, true, &t->txn);
	if (!r)
		r = metastore_counters_get(st->ms, t->txn, &t->c);
	if (r) {
		metastore_txn_abort(t->txn);
		free(t->wb);
		free(t->ext);
		return r;
	}
	t->c0 = t->c;
	return 0;
}

static void store_txn_release(struct store_txn *t)
{
	if (t->wb) {
		free(t->wb->io);
		for (unsigned i = 0; i < t->wb->nscratch; i++)
			free(t->wb->scratch[i]);
		free(t->wb->scratch);
	}
	free(t->wb);
	free(t->ext);
	free(t->freed);
	t->wb = NULL;
	t->ext = NULL;
	t->txn = NULL;
	t->freed = NULL;
}

void store_txn_abort(struct store_txn *t)
{
	metastore_txn_abort(t->txn);
	store_txn_release(t);
}

static void publish(struct stats *s, const struct dedupe_stats *d)
{
	struct dedupe_stats *g = &s->dedupe;
#define ADD(f) atomic_fetch_add_explicit(&g->f, d->f, memory_order_relaxed)
	ADD(logical_bytes_written);
	ADD(blocks_written);
	ADD(duplicate_hits);
	ADD(zero_blocks);
	ADD(unique_writes);
	ADD(verify_reads);
	ADD(verify_mismatches);
	ADD(checksum_errors);
	ADD(blocks_freed);
#undef ADD
}

int store_txn_commit_one(struct store_txn *t, uint64_t *trim_ino)
{
	struct store *st = t->st;
	int r = blockmap_store(st->ms, t->txn, t->ext);
	if (!r && t->wb->n)
		r = st->dev.ops->write(st->dev.ctx, t->wb->io, t->wb->n);
	if (!r && memcmp(&t->c, &t->c0, sizeof(t->c)))
		r = metastore_counters_put(st->ms, t->txn, &t->c);
	if (r) {
		store_txn_abort(t);
		return r;
	}
	r = metastore_txn_commit(t->txn);
	if (!r) {
		loss_forget(st, t->freed, t->nfreed);
		publish(st->stats, &t->delta);
		uint64_t n = atomic_fetch_add_explicit(&st->commits, 1,
						       memory_order_relaxed);
		if (n % STORE_TRIM_COMMITS == STORE_TRIM_COMMITS - 1)
			store_trim_meta_cache(st);
	}
	*trim_ino = r ? 0 : t->trim_ino;
	store_txn_release(t);
	return r;
}
