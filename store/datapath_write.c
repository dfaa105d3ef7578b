/* Writes (store/datapath.h): block by block, each one resolved by the dedupe
 * policy (dedupe/dedupe.h) to a hole, a shared block or a new one, then
 * mapped (store/blockmap.h), the old block losing a ref (dedupe/blocks.h).
 *
 * The policy reads candidates back through read_back (this transaction's
 * write batch first, then the backing store) and asks may_alloc before a
 * new unique block: the one place a "may the store grow?" rule (thin
 * provisioning, fs/fault_gate.c through store_hooks.thin_full) is consulted.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/block.h"
#include "common/clock.h"
#include "dedupe/blocks.h"
#include "dedupe/chunker.h"
#include "dedupe/dedupe.h"
#include "dedupe/fingerprint.h"
#include "dedupe/fingerprint_pool.h"
#include "dedupe/index.h"
#include "store/datapath_i.h"
#include "store/caps.h"
#include "store/loss.h"
#include "store/namespace.h"
#include "store/store_i.h"

/* dedupe's read-back: the bytes of @pblk, from this transaction's batch
 * if it is about to write them, else read from the backing store. */
static int read_back(void *ctx, uint64_t pblk, void *buf)
{
	struct store_txn *t = ctx;
	const void *pending = store_wb_find(t->wb, pblk);
	if (pending) {
		memcpy(buf, pending, BLOCK_BYTES);
		return 0;
	}
	struct backing_io io = {pblk, buf};
	int r = t->st->dev.ops->read(t->st->dev.ctx, &io, 1);
	return r ? r : 1;
}

/* dedupe's "may the store grow?": not when a thin-provisioned array is
 * out of physical space. */
static bool may_alloc(void *ctx, uint64_t unique_blocks)
{
	struct store_txn *t = ctx;
	const struct store_hooks *h = &t->st->cfg.hooks;
	return !h->thin_full || !h->thin_full(h->ctx, unique_blocks);
}

/* What dedupe decides against inside @t; a new block's kept size goes to
 * @kept. */
static struct dedupe_env dp_env(struct store_txn *t, uint32_t *kept)
{
	return (struct dedupe_env){
	    .ms = t->st->ms,
	    .txn = t->txn,
	    .c = &t->c,
	    .verify = t->st->cfg.verify,
	    .read = read_back,
	    .may_alloc = may_alloc,
	    .ctx = t,
	    .tally = &t->delta,
	    .compress = &t->st->compress,
	    .kept = kept,
	    .batch = t->fp_batch,
	};
}

/* The physical block that will hold @data (dedupe/dedupe.h decides;
 * @known: what dedupe_probe said of it, else true); a new block's bytes
 * are queued for writing before commit. */
static int resolve_block(struct store_txn *t, const void *data,
			 const struct fingerprint *fp, bool known,
			 uint64_t *pblk, uint32_t *kept)
{
	const struct dedupe_env env = dp_env(t, kept);
	*kept = 0; /* a hole or a reference: no data to destage */
	int r = dedupe_resolve_probed(&env, data, fp, known, pblk);
	if (r == DEDUPE_NEW)
		r = store_wb_add(t->wb, *pblk, data);
	return r < 0 ? r : 0;
}

/* Point logical block @lblk of @ino at @pblk (0: hole), dropping the ref
 * of what it pointed at. *delta: change in non-hole blocks (-1, 0, 1). */
int dp_map_block(struct store_txn *t, uint64_t ino, uint64_t lblk,
		 uint64_t pblk, int *delta)
{
	int r = blockmap_seek(t->st->ms, t->txn, t->ext, ino, lblk);
	if (r)
		return r;
	uint64_t *slot = &t->ext->pblk[lblk % EXT];
	uint64_t old = *slot;
	*delta = (pblk != 0) - (old != 0);
	if (old == pblk && !old)
		return 0;
	*slot = pblk;
	t->ext->dirty = true;
	if (old) {
		bool freed;
		r = dedupe_block_unref(t->st->ms, t->txn, &t->c, old, &freed);
		if (!r && freed && loss_any(t->st))
			r = store_txn_note_freed(t, old);
		if (r)
			return r;
		t->delta.blocks_freed += freed;
	}
	t->c.live_blocks += *delta;
	return 0;
}

/* Store one whole block @data at @lblk of @ino; where it went and the
 * size a compressing array keeps of it (0: dedupe found it) into
 * *@pblk_out and *@kept_out when not NULL. */
static int store_block(struct store_txn *t, uint64_t ino, uint64_t lblk,
		       const void *data, const struct fingerprint *fp,
		       bool known, struct ms_inode *in, uint64_t *pblk_out,
		       uint16_t *kept_out)
{
	uint64_t pblk;
	uint32_t kept;
	int delta = 0;
	int r = resolve_block(t, data, fp, known, &pblk, &kept);
	if (!r)
		r = dp_map_block(t, ino, lblk, pblk, &delta);
	if (!r) {
		in->nblocks += delta;
		t->delta.blocks_written++;
		if (pblk_out)
			*pblk_out = pblk;
		if (kept_out)
			*kept_out = (uint16_t)kept;
	}
	return r;
}

/* Fingerprint then store a block that the transaction itself built (the
 * edge of a truncate or punch). @data must live until commit. */
int dp_store_built_block(struct store_txn *t, uint64_t ino, uint64_t lblk,
			 const void *data, struct ms_inode *in)
{
	struct fingerprint fp;
	int r = fingerprint_block(data, &fp);
	return r ? r
		 : store_block(t, ino, lblk, data, &fp, true, in, NULL, NULL);
}

/* ---- write ------------------------------------------------------------ */

/* Is block @i of @w only partly covered by the caller's bytes? */
static bool block_partial(const struct dp_write *w, unsigned i)
{
	return (i == 0 && w->off % BLOCK_BYTES) ||
	       (i == w->n - 1 && (w->off + w->len) % BLOCK_BYTES);
}

/* The bounce block that partial edge block @i of @w is built in: the
 * head first, the tail second. */
static uint8_t *edge_buf(const struct dp_write *w, unsigned i)
{
	return w->bounce + (i == 0 ? 0 : BLOCK_BYTES);
}

/* The bytes block @i of @w stores: whole blocks straight from the
 * caller's buffer, partial edge blocks from their bounce block, so an
 * unaligned 1 MiB write copies 8 KiB, not 1 MiB (the kernel splits large
 * writes from unaligned user buffers at page counts, so unaligned large
 * writes are common). */
static const uint8_t *dp_block(const struct dp_write *w, unsigned i)
{
	if (!block_partial(w, i))
		return w->buf +
		       ((w->off / BLOCK_BYTES + i) * BLOCK_BYTES - w->off);
	return edge_buf(w, i);
}

int datapath_write_prep(struct dp_write *w, uint64_t off, const void *buf,
			size_t len)
{
	*w = (struct dp_write){.off = off, .len = len, .buf = buf};
	if (off + len < off)
		return -EFBIG;
	w->n = (unsigned)chunker_count(off, len);
	if (!w->n)
		return 0;
	w->fp = malloc(w->n * sizeof(*w->fp));
	/* one block is not probed (write_probe) */
	w->known = w->n > 1 ? malloc(w->n * sizeof(*w->known)) : NULL;
	if (!w->fp || (w->n > 1 && !w->known))
		return -ENOMEM;
	/* Whole blocks depend on the caller's bytes alone; they are one run
	 * of the caller's buffer, between the partial edges. A long run is
	 * hashed on idle threads too (dedupe/fingerprint_pool.h). */
	unsigned lo = block_partial(w, 0), hi = w->n;
	if (hi > lo && block_partial(w, hi - 1))
		hi--;
	if (hi <= lo)
		return 0;
	return fp_pool_blocks(fp_pool_shared(), dp_block(w, lo), hi - lo,
			      &w->fp[lo]);
}

void datapath_write_free(struct dp_write *w)
{
	free(w->bounce);
	free(w->fp);
	free(w->known);
	w->bounce = NULL;
	w->fp = NULL;
	w->known = NULL;
}

/* Build partial edge block @i: its current bytes overlaid with the
 * caller's, then fingerprinted. */
static int complete_edge(struct store *st, uint64_t ino, struct dp_write *w,
			 unsigned i)
{
	uint8_t *b = edge_buf(w, i);
	uint64_t lblk = w->off / BLOCK_BYTES + i, start = lblk * BLOCK_BYTES;
	int r = dp_load_blocks_retry(st, ino, lblk, 1, b, NULL, NULL);
	if (r)
		return r;
	uint64_t from = w->off > start ? w->off : start;
	uint64_t to = w->off + w->len < start + BLOCK_BYTES
			  ? w->off + w->len
			  : start + BLOCK_BYTES;
	memcpy(b + (from - start), w->buf + (from - w->off), to - from);
	return fingerprint_block(b, &w->fp[i]);
}

/* Complete partial edge blocks with the bytes they hold now (the caller
 * holds the inode's data lock, so they cannot change under us). */
static int complete_edges(struct store *st, uint64_t ino, struct dp_write *w)
{
	bool head = block_partial(w, 0), tail = block_partial(w, w->n - 1);
	if (!head && !tail)
		return 0;
	if (!w->bounce)
		w->bounce = malloc(2 * BLOCK_BYTES);
	if (!w->bounce)
		return -ENOMEM;
	int r = head ? complete_edge(st, ino, w, 0) : 0;
	if (!r && tail && w->n > 1)
		r = complete_edge(st, ino, w, w->n - 1);
	return r;
}

/* Look a write's blocks up in one sorted pass before storing any
 * (dedupe_probe): one index walk forward instead of a descent per block.
 * A single block has nothing to sort (no @known: datapath_write_prep):
 * it walks as before. */
static int write_probe(struct store_txn *t, struct dp_write *p)
{
	if (!p->known)
		return 0;
	uint32_t unused;
	const struct dedupe_env env = dp_env(t, &unused);
	return dedupe_probe(&env, p->fp, p->n, p->known);
}

/* Store a probed write's blocks with their new index items indexed
 * together at the end (dedupe_index_flush), in the same transaction. */
static int write_blocks(struct store_txn *t, struct dp_write *p,
			struct ms_inode *in)
{
	struct dedupe_index_batch b = {NULL, 0, p->n};
	if (p->known && !(b.it = malloc(p->n * MS_FP_ITEM_LEN)))
		return -ENOMEM;
	t->fp_batch = b.it ? &b : NULL;
	uint64_t first = p->off / BLOCK_BYTES;
	int r = 0;
	for (unsigned i = 0; i < p->n && !r; i++)
		r = store_block(t, p->ino, first + i, dp_block(p, i), &p->fp[i],
				!p->known || p->known[i], in,
				p->pblks ? &p->pblks[i] : NULL,
				p->kept ? &p->kept[i] : NULL);
	if (!r && b.it)
		r = dedupe_index_flush(t->st->ms, t->txn, &b);
	t->fp_batch = NULL;
	free(b.it);
	return r;
}

/* A write's change inside @t, which other writes of its group may share:
 * its counters and outputs are its own deltas. */
static int write_apply(struct store_txn *t, void *arg)
{
	struct dp_write *p = arg;
	struct store *st = t->st;
	struct dedupe_stats d0 = t->delta;
	struct ms_inode in;
	int r = ns_inode_get(st->ms, t->txn, p->ino, &in);
	if (!r && !S_ISREG(in.mode))
		r = -EINVAL;
	if (!r)
		r = write_probe(t, p);
	if (!r)
		r = write_blocks(t, p, &in);
	if (r)
		return r;
	if (p->off + p->len > in.size) {
		t->c.logical_bytes += p->off + p->len - in.size;
		in.size = p->off + p->len;
	}
	in.mtime_ns = in.ctime_ns = clock_wall_ns();
	*p->drop_setid = p->drop_in && caps_drop_setid(&in.mode);
	/* Any writer, CAP_FSETID or not: as the VFS's file_remove_privs. */
	bool uncapped;
	r = caps_kill(t, p->ino, &uncapped);
	if (!r)
		r = ns_inode_put(st->ms, t->txn, p->ino, &in);
	if (r)
		return r;
	t->delta.logical_bytes_written += p->len;
	if (p->io) {
		p->io->blocks_stored =
		    (uint32_t)(t->delta.unique_writes - d0.unique_writes);
		p->io->blocks_deduped =
		    (uint32_t)(t->delta.duplicate_hits - d0.duplicate_hits);
	}
	return 0;
}

static int write_txn(struct store *st, struct dp_write *p)
{
	struct store_txn t;
	int r = store_txn_begin(st, &t);
	if (r)
		return r;
	r = write_apply(&t, p);
	if (r) {
		store_txn_abort(&t);
		return r;
	}
	uint64_t no_trim; /* a write never truncates */
	return store_txn_commit_one(&t, &no_trim);
}

/* The write alone, in its own transaction. */
static int write_solo(void *ctx, void *arg)
{
	struct store *st = ctx;
	int r = write_txn(st, arg);
	/* Freed blocks wait in `pending` until a sync makes their freeing
	 * durable; a full disk may only need that sync. */
	if (r == -ENOSPC && store_sync(st) == 0)
		r = write_txn(st, arg);
	return r;
}

/* A callback write's group is committed. */
static void write_done(struct gc_entry *e)
{
	struct dp_write *w =
	    (struct dp_write *)((char *)e - offsetof(struct dp_write, gc));
	w->done(w, e->result);
}

int datapath_write_queue(struct store *st, struct dp_write *w, uint64_t ino,
			 bool *drop_setid, struct array_io *io)
{
	w->st = st;
	w->ino = ino;
	w->drop_in = *drop_setid;
	w->drop_setid = drop_setid;
	w->io = io;
	*drop_setid = false;
	if (w->n == 0)
		return 0;
	uint64_t lo = w->off / BLOCK_BYTES, hi = lo + w->n - 1;
	if (datapath_write_read_file(w)) {
		/* An edge block's bytes may be in a queued write of this
		 * file's same blocks (and only there). */
		group_commit_drain_over(&st->gc, ino, lo, hi);
		int r = complete_edges(st, ino, w);
		if (r)
			return r;
	}
	w->gc = (struct gc_entry){.solo = write_solo,
				  .arg = w,
				  .done_fn = w->done ? write_done : NULL,
				  .key = ino,
				  .lo = lo,
				  .hi = hi};
	group_commit_submit(&st->gc, &w->gc);
	return 0;
}

bool datapath_write_read_file(const struct dp_write *w)
{
	return w->n && (block_partial(w, 0) || block_partial(w, w->n - 1));
}

/* A group of writes in one transaction (store/group_commit.h). */
static int write_together(void *ctx, struct gc_entry *first, unsigned n)
{
	struct store_txn t;
	int r = store_txn_begin(ctx, &t);
	if (r)
		return r;
	struct gc_entry *e = first;
	for (unsigned i = 0; i < n && !r; i++, e = e->next)
		r = write_apply(&t, e->arg);
	if (r) {
		store_txn_abort(&t);
		return r;
	}
	uint64_t no_trim; /* a write never truncates */
	return store_txn_commit_one(&t, &no_trim);
}

int datapath_write_wait(struct dp_write *w)
{
	return w->n ? group_commit_wait(&w->st->gc, write_together, w->st,
					&w->gc)
		    : 0;
}

void datapath_write_run(struct store *st)
{
	group_commit_lead(&st->gc, write_together, st);
}

int datapath_write_commit(struct store *st, struct dp_write *w, uint64_t ino,
			  bool *drop_setid, struct array_io *io)
{
	int r = datapath_write_queue(st, w, ino, drop_setid, io);
	return r ? r : datapath_write_wait(w);
}

int datapath_write(struct store *st, uint64_t ino, uint64_t off,
		   const void *buf, size_t len, bool *drop_setid,
		   struct array_io *io)
{
	struct dp_write w;
	int r = datapath_write_prep(&w, off, buf, len);
	if (!r)
		r = datapath_write_commit(st, &w, ino, drop_setid, io);
	datapath_write_free(&w);
	return r;
}
