/* File data path: block maps, inline dedupe, backing store I/O.
 *
 * Block maps are stored in extents of BMAP_EXTENT_BLOCKS physical block
 * numbers (0 = hole), keyed by (ino, lblk / BMAP_EXTENT_BLOCKS), so a
 * sequential 1 MiB write touches 4 records, not 256. A write transaction
 * keeps the one extent it is working on in memory and stores it when it
 * moves on (or at commit); an extent that becomes all holes is deleted.
 *
 * Reads run in a read-only transaction (a snapshot: never blocked by the
 * writer), then read the blocks and check each one's XXH3. A block may be
 * freed and, after a sync, reused between the snapshot and the read; the
 * checksum then fails, and the read is retried on a fresh snapshot before
 * it is called an error.
 */
#include "fs/datapath.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/block.h"
#include "common/log.h"
#include "dedupe/chunker.h"
#include "dedupe/dedupe.h"
#include "dedupe/fingerprint.h"
#include "dedupe/blocks.h"
#include "fs/bitrot.h"
#include "fs/fault_gate.h"
#include "fs/loss.h"
#include "fs/namespace.h"

#define EXT BMAP_EXTENT_BLOCKS
#define READ_RETRIES 2
#define DROP_EXTENTS 4 /* extents (of 64 blocks) dropped per transaction */

/* ---- block map extents ------------------------------------------------ */

struct dp_extent {
	uint64_t ino;
	uint64_t idx;
	uint64_t pblk[EXT];
	bool valid; /* holds (ino, idx) */
	bool dirty; /* differs from the store */
	bool fresh; /* not in the store yet */
};

static void ext_key(uint8_t kb[16], uint64_t ino, uint64_t idx)
{
	ms_put_be64(kb, ino);
	ms_put_be64(kb + 8, idx);
}

/* Load extent @idx of @ino into @pblk: 0, or -ENOENT (all holes) when
 * the store has no such extent. */
static int ext_load(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		    uint64_t idx, uint64_t pblk[EXT])
{
	uint8_t kb[16];
	ext_key(kb, ino, idx);
	MDB_val k = {16, kb}, v;
	int rc = mdb_get(txn, metastore_dbi(ms, MS_BMAP), &k, &v);
	if (rc == MDB_NOTFOUND) {
		memset(pblk, 0, EXT * sizeof(*pblk));
		return -ENOENT;
	}
	if (rc)
		return metastore_errno(rc);
	if (v.mv_size != MS_BMAP_VALUE_LEN)
		return -EIO;
	ms_bmap_decode(v.mv_data, pblk);
	return 0;
}

int datapath_block_of(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		      uint64_t lblk, uint64_t *pblk)
{
	uint64_t ext[EXT];
	int r = ext_load(ms, txn, ino, lblk / EXT, ext);
	*pblk = r ? 0 : ext[lblk % EXT];
	return r == -ENOENT ? 0 : r;
}

/* Does key @kb sort after every extent in the table? A file growing at
 * its end (the newest file, typically) then appends: MDB_APPEND leaves
 * full pages full, where a plain insert at the end splits them in half. */
static bool ext_is_last(MDB_txn *txn, MDB_dbi dbi, const uint8_t kb[16])
{
	MDB_cursor *cur;
	if (mdb_cursor_open(txn, dbi, &cur))
		return false;
	MDB_val k, v;
	int rc = mdb_cursor_get(cur, &k, &v, MDB_LAST);
	bool last = rc == MDB_NOTFOUND || (rc == 0 && k.mv_size == 16 &&
					   memcmp(k.mv_data, kb, 16) < 0);
	mdb_cursor_close(cur);
	return last;
}

static int ext_store(struct dp_txn *t)
{
	struct dp_extent *e = t->ext;
	if (!e->valid || !e->dirty)
		return 0;
	uint8_t kb[16];
	ext_key(kb, e->ino, e->idx);
	MDB_val k = {16, kb};
	MDB_dbi dbi = metastore_dbi(t->fs->ms, MS_BMAP);
	bool empty = true;
	for (unsigned i = 0; i < EXT && empty; i++)
		empty = !e->pblk[i];
	int rc;
	if (empty) {
		rc = mdb_del(t->txn, dbi, &k, NULL);
		if (rc == MDB_NOTFOUND)
			rc = 0;
	} else {
		uint8_t vb[MS_BMAP_VALUE_LEN];
		ms_bmap_encode(e->pblk, vb);
		MDB_val v = {sizeof(vb), vb};
		unsigned fl =
		    e->fresh && ext_is_last(t->txn, dbi, kb) ? MDB_APPEND : 0;
		rc = mdb_put(t->txn, dbi, &k, &v, fl);
		e->fresh = rc != 0;
	}
	e->dirty = false;
	return metastore_errno(rc);
}

/* Make the extent holding @lblk of @ino the current one. */
static int ext_seek(struct dp_txn *t, uint64_t ino, uint64_t lblk)
{
	struct dp_extent *e = t->ext;
	uint64_t idx = lblk / EXT;
	if (e->valid && e->ino == ino && e->idx == idx)
		return 0;
	int r = ext_store(t);
	if (r)
		return r;
	e->valid = false;
	r = ext_load(t->fs->ms, t->txn, ino, idx, e->pblk);
	if (r && r != -ENOENT)
		return r;
	e->fresh = r == -ENOENT;
	e->ino = ino;
	e->idx = idx;
	e->valid = true;
	return 0;
}

/* ---- write batch: bytes of new blocks, written before commit ---------- */

struct dp_wbatch {
	struct backing_io *io;
	unsigned n, cap;
	void **scratch; /* blocks the transaction built itself */
	unsigned nscratch;
};

/* A block buffer that lives until the transaction ends: the bytes of a
 * block built inside it (the edge of a truncate or punch) are written at
 * commit. */
static uint8_t *wb_scratch(struct dp_wbatch *wb)
{
	void **grown =
	    realloc(wb->scratch, (wb->nscratch + 1) * sizeof(*wb->scratch));
	if (!grown)
		return NULL;
	wb->scratch = grown;
	uint8_t *b = aligned_alloc(64, BLOCK_SIZE);
	if (b)
		wb->scratch[wb->nscratch++] = b;
	return b;
}

static int wb_add(struct dp_wbatch *wb, uint64_t pblk, const void *data)
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
static const void *wb_find(const struct dp_wbatch *wb, uint64_t pblk)
{
	for (unsigned i = wb->n; i-- > 0;)
		if (wb->io[i].pblk == pblk)
			return wb->io[i].buf;
	return NULL;
}

/* ---- transactions ----------------------------------------------------- */

int dp_begin(struct fs *fs, struct dp_txn *t)
{
	memset(t, 0, sizeof(*t));
	t->fs = fs;
	t->wb = calloc(1, sizeof(*t->wb));
	t->ext = calloc(1, sizeof(*t->ext));
	if (!t->wb || !t->ext) {
		free(t->wb);
		free(t->ext);
		return -ENOMEM;
	}
	int r = metastore_txn_begin(fs->ms, true, &t->txn);
	if (!r)
		r = metastore_counters_get(fs->ms, t->txn, &t->c);
	if (r) {
		metastore_txn_abort(t->txn);
		free(t->wb);
		free(t->ext);
		return r;
	}
	t->c0 = t->c;
	return 0;
}

static void dp_release(struct dp_txn *t)
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

void dp_abort(struct dp_txn *t)
{
	metastore_txn_abort(t->txn);
	dp_release(t);
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

int dp_commit(struct dp_txn *t)
{
	struct fs *fs = t->fs;
	int r = ext_store(t);
	if (!r && t->wb->n)
		r = fs->dev.ops->write(fs->dev.ctx, t->wb->io, t->wb->n);
	if (!r && memcmp(&t->c, &t->c0, sizeof(t->c)))
		r = metastore_counters_put(fs->ms, t->txn, &t->c);
	if (r) {
		dp_abort(t);
		return r;
	}
	r = metastore_txn_commit(t->txn);
	if (!r) {
		loss_forget(fs, t->freed, t->nfreed);
		publish(&fs->stats, &t->delta);
		uint64_t n = atomic_fetch_add_explicit(&fs->commits, 1,
						       memory_order_relaxed);
		if (n % FS_TRIM_COMMITS == FS_TRIM_COMMITS - 1)
			fs_trim_meta_cache(fs);
	}
	uint64_t trim = r ? 0 : t->trim_ino;
	dp_release(t);
	return trim ? fs_trim(fs, trim) : r;
}

/* ---- loading blocks --------------------------------------------------- */

/* Read @n logical blocks from @first of @ino, as of @txn, into @buf (holes
 * read as zeros), and their physical blocks into @pblks when not NULL.
 * -EBADMSG when a block fails its checksum. */
static int load_blocks(struct fs *fs, MDB_txn *txn, uint64_t ino,
		       uint64_t first, unsigned n, uint8_t *buf,
		       uint64_t *pblks)
{
	struct backing_io stack_io[16];
	uint64_t stack_sum[16];
	struct backing_io *io = stack_io;
	uint64_t *sum = stack_sum, ext[EXT];
	if (n > 16) {
		io = malloc(n * sizeof(*io));
		sum = malloc(n * sizeof(*sum));
		if (!io || !sum) {
			free(io);
			free(sum);
			return -ENOMEM;
		}
	}
	unsigned nio = 0;
	uint64_t cur_idx = UINT64_MAX;
	int r = 0;
	for (unsigned i = 0; i < n && !r; i++) {
		uint64_t lblk = first + i;
		if (lblk / EXT != cur_idx) {
			cur_idx = lblk / EXT;
			r = ext_load(fs->ms, txn, ino, cur_idx, ext);
			if (r == -ENOENT)
				r = 0; /* all holes */
			if (r)
				break;
		}
		uint64_t pblk = ext[lblk % EXT];
		uint8_t *dst = buf + (size_t)i * BLOCK_SIZE;
		if (pblks)
			pblks[i] = pblk;
		if (!pblk) {
			memset(dst, 0, BLOCK_SIZE);
			continue;
		}
		struct ms_block b;
		r = dedupe_block_get(fs->ms, txn, pblk, &b);
		if (r == -ENOENT)
			r = -EIO; /* a map pointing at a free block */
		if (!r && loss_has(fs, pblk, b.xxh3))
			r = -ENODATA; /* the array lost it: counted, EIO */
		if (r)
			break;
		io[nio] = (struct backing_io){pblk, dst};
		sum[nio++] = b.xxh3;
	}
	if (!r && nio)
		r = fs->dev.ops->read(fs->dev.ctx, io, nio);
	for (unsigned i = 0; i < nio && !r; i++)
		if (fingerprint_xxh3(io[i].buf) != sum[i] &&
		    !bitrot_rebuild(fs, io[i].pblk, io[i].buf, sum[i]))
			r = -EBADMSG;
	if (io != stack_io) {
		free(io);
		free(sum);
	}
	return r;
}

/* A block that cannot be read, counted by why: a checksum failure or a
 * block the array lost; both are EIO to the client. */
static int read_error(struct fs *fs, int r)
{
	_Atomic uint64_t *c = r == -EBADMSG ? &fs->stats.dedupe.checksum_errors
			      : r == -ENODATA ? &fs->stats.dedupe.lost_reads
					      : NULL;
	if (!c)
		return r;
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
	return -EIO;
}

/* Load with a fresh snapshot each try; a checksum failure that persists
 * across snapshots is real: counted, logged, -EIO. */
static int load_blocks_retry(struct fs *fs, uint64_t ino, uint64_t first,
			     unsigned n, uint8_t *buf, struct ms_inode *in,
			     uint64_t *pblks)
{
	int r = -EBADMSG;
	for (int tries = 0; tries < READ_RETRIES && r == -EBADMSG; tries++) {
		MDB_txn *txn;
		r = metastore_txn_begin(fs->ms, false, &txn);
		if (r)
			return r;
		if (in)
			r = ns_inode_get(fs->ms, txn, ino, in);
		if (!r)
			r = load_blocks(fs, txn, ino, first, n, buf, pblks);
		metastore_txn_abort(txn);
	}
	if (r == -EBADMSG)
		log_error("datapath",
			  "inode %llu blocks %llu..%llu: stored block fails "
			  "its checksum",
			  (unsigned long long)ino, (unsigned long long)first,
			  (unsigned long long)(first + n - 1));
	return read_error(fs, r);
}

int datapath_read(struct fs *fs, uint64_t ino, uint64_t off, size_t len,
		  void *buf, size_t *got)
{
	return datapath_read_map(fs, ino, off, len, buf, got, NULL);
}

int datapath_read_map(struct fs *fs, uint64_t ino, uint64_t off, size_t len,
		      void *buf, size_t *got, uint64_t *pblks)
{
	*got = 0;
	uint64_t first = off / BLOCK_SIZE;
	unsigned n = (unsigned)chunker_count(off, len);
	if (!n)
		return 0;
	/* Aligned reads land in the caller's buffer; others go through a
	 * bounce buffer of whole blocks. */
	bool aligned = off % BLOCK_SIZE == 0 && len % BLOCK_SIZE == 0;
	uint8_t *blocks = aligned ? buf : malloc((size_t)n * BLOCK_SIZE);
	if (!blocks)
		return -ENOMEM;
	struct ms_inode in;
	int r = load_blocks_retry(fs, ino, first, n, blocks, &in, pblks);
	if (!r) {
		uint64_t end = off + len < in.size ? off + len : in.size;
		*got = end > off ? (size_t)(end - off) : 0;
		if (!aligned)
			memcpy(buf, blocks + off % BLOCK_SIZE, *got);
	}
	if (!aligned)
		free(blocks);
	return r;
}

/* ---- storing blocks --------------------------------------------------- */

/* dedupe's read-back: the bytes of @pblk, from this transaction's batch
 * if it is about to write them, else read from the backing store. */
static int read_back(void *ctx, uint64_t pblk, void *buf)
{
	struct dp_txn *t = ctx;
	const void *pending = wb_find(t->wb, pblk);
	if (pending) {
		memcpy(buf, pending, BLOCK_SIZE);
		return 0;
	}
	struct backing_io io = {pblk, buf};
	int r = t->fs->dev.ops->read(t->fs->dev.ctx, &io, 1);
	return r ? r : 1;
}

/* dedupe's "may the store grow?": not when a thin-provisioned array is
 * out of physical space. */
static bool may_alloc(void *ctx, uint64_t unique_blocks)
{
	struct dp_txn *t = ctx;
	return !fault_gate_thin_full(t->fs, unique_blocks);
}

/* The physical block that will hold @data (dedupe/dedupe.h decides); a
 * new block's bytes are queued for writing before commit. */
static int resolve_block(struct dp_txn *t, const void *data,
			 const struct fingerprint *fp, uint64_t *pblk)
{
	const struct dedupe_env env = {
	    .ms = t->fs->ms,
	    .txn = t->txn,
	    .c = &t->c,
	    .verify = t->fs->cfg.verify,
	    .read = read_back,
	    .may_alloc = may_alloc,
	    .ctx = t,
	    .tally = &t->delta,
	};
	int r = dedupe_resolve(&env, data, fp, pblk);
	if (r == DEDUPE_NEW)
		r = wb_add(t->wb, *pblk, data);
	return r < 0 ? r : 0;
}

static int note_freed(struct dp_txn *t, uint64_t pblk)
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

/* Point logical block @lblk of @ino at @pblk (0: hole), dropping the ref
 * of what it pointed at. *delta: change in non-hole blocks (-1, 0, 1). */
static int map_block(struct dp_txn *t, uint64_t ino, uint64_t lblk,
		     uint64_t pblk, int *delta)
{
	int r = ext_seek(t, ino, lblk);
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
		r = dedupe_block_unref(t->fs->ms, t->txn, &t->c, old, &freed);
		if (!r && freed && loss_any(t->fs))
			r = note_freed(t, old);
		if (r)
			return r;
		t->delta.blocks_freed += freed;
	}
	t->c.live_blocks += *delta;
	return 0;
}

/* Store one whole block @data at @lblk of @ino. */
static int store_block(struct dp_txn *t, uint64_t ino, uint64_t lblk,
		       const void *data, const struct fingerprint *fp,
		       struct ms_inode *in, uint64_t *pblk_out)
{
	uint64_t pblk;
	int delta = 0;
	int r = resolve_block(t, data, fp, &pblk);
	if (!r)
		r = map_block(t, ino, lblk, pblk, &delta);
	if (!r) {
		in->nblocks += delta;
		t->delta.blocks_written++;
		if (pblk_out)
			*pblk_out = pblk;
	}
	return r;
}

/* Fingerprint then store a block that the transaction itself built (the
 * edge of a truncate or punch). @data must live until commit. */
static int store_built_block(struct dp_txn *t, uint64_t ino, uint64_t lblk,
			     const void *data, struct ms_inode *in)
{
	struct fingerprint fp;
	int r = fingerprint_block(data, &fp);
	return r ? r : store_block(t, ino, lblk, data, &fp, in, NULL);
}

/* ---- write ------------------------------------------------------------ */

/* Is block @i of @w only partly covered by the caller's bytes? */
static bool block_partial(const struct dp_write *w, unsigned i)
{
	return (i == 0 && w->off % BLOCK_SIZE) ||
	       (i == w->n - 1 && (w->off + w->len) % BLOCK_SIZE);
}

/* The bounce block that partial edge block @i of @w is built in: the
 * head first, the tail second. */
static uint8_t *edge_buf(const struct dp_write *w, unsigned i)
{
	return w->bounce + (i == 0 ? 0 : BLOCK_SIZE);
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
		       ((w->off / BLOCK_SIZE + i) * BLOCK_SIZE - w->off);
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
	if (!w->fp)
		return -ENOMEM;
	/* Whole blocks depend on the caller's bytes alone. */
	for (unsigned i = 0; i < w->n; i++) {
		if (block_partial(w, i))
			continue;
		int r = fingerprint_block(dp_block(w, i), &w->fp[i]);
		if (r)
			return r;
	}
	return 0;
}

void datapath_write_free(struct dp_write *w)
{
	free(w->bounce);
	free(w->fp);
	w->bounce = NULL;
	w->fp = NULL;
}

/* Build partial edge block @i: its current bytes overlaid with the
 * caller's, then fingerprinted. */
static int complete_edge(struct fs *fs, uint64_t ino, struct dp_write *w,
			 unsigned i)
{
	uint8_t *b = edge_buf(w, i);
	uint64_t lblk = w->off / BLOCK_SIZE + i, start = lblk * BLOCK_SIZE;
	int r = load_blocks_retry(fs, ino, lblk, 1, b, NULL, NULL);
	if (r)
		return r;
	uint64_t from = w->off > start ? w->off : start;
	uint64_t to = w->off + w->len < start + BLOCK_SIZE ? w->off + w->len
							   : start + BLOCK_SIZE;
	memcpy(b + (from - start), w->buf + (from - w->off), to - from);
	return fingerprint_block(b, &w->fp[i]);
}

/* Complete partial edge blocks with the bytes they hold now (the caller
 * holds the inode's data lock, so they cannot change under us). */
static int complete_edges(struct fs *fs, uint64_t ino, struct dp_write *w)
{
	bool head = block_partial(w, 0), tail = block_partial(w, w->n - 1);
	if (!head && !tail)
		return 0;
	if (!w->bounce)
		w->bounce = malloc(2 * BLOCK_SIZE);
	if (!w->bounce)
		return -ENOMEM;
	int r = head ? complete_edge(fs, ino, w, 0) : 0;
	if (!r && tail && w->n > 1)
		r = complete_edge(fs, ino, w, w->n - 1);
	return r;
}

/* Returns whether a bit was cleared. */
static bool drop_setid_bits(struct ms_inode *in)
{
	uint32_t before = in->mode;
	in->mode &= ~(uint32_t)S_ISUID;
	if ((in->mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		in->mode &= ~(uint32_t)S_ISGID;
	return in->mode != before;
}

static int write_txn(struct fs *fs, uint64_t ino, const struct dp_write *p,
		     bool *drop_setid, struct array_io *io)
{
	uint64_t off = p->off;
	size_t len = p->len;
	struct dp_txn t;
	int r = dp_begin(fs, &t);
	if (r)
		return r;
	struct ms_inode in;
	r = ns_inode_get(fs->ms, t.txn, ino, &in);
	if (!r && !S_ISREG(in.mode))
		r = -EINVAL;
	uint64_t first = off / BLOCK_SIZE;
	for (unsigned i = 0; i < p->n && !r; i++)
		r = store_block(&t, ino, first + i, dp_block(p, i), &p->fp[i],
				&in, p->pblks ? &p->pblks[i] : NULL);
	if (r) {
		dp_abort(&t);
		return r;
	}
	if (off + len > in.size) {
		t.c.logical_bytes += off + len - in.size;
		in.size = off + len;
	}
	in.mtime_ns = in.ctime_ns = fs_now_ns();
	if (*drop_setid)
		*drop_setid = drop_setid_bits(&in);
	r = ns_inode_put(fs->ms, t.txn, ino, &in);
	if (r) {
		dp_abort(&t);
		return r;
	}
	t.delta.logical_bytes_written = len;
	if (io) {
		io->blocks_stored = (uint32_t)t.delta.unique_writes;
		io->blocks_deduped = (uint32_t)t.delta.duplicate_hits;
	}
	return dp_commit(&t);
}

int datapath_write_commit(struct fs *fs, struct dp_write *w, uint64_t ino,
			  bool *drop_setid, struct array_io *io)
{
	if (w->n == 0)
		return 0;
	int r = complete_edges(fs, ino, w);
	if (r)
		return r;
	r = write_txn(fs, ino, w, drop_setid, io);
	/* Freed blocks wait in `pending` until a sync makes their freeing
	 * durable; a full disk may only need that sync. */
	if (r == -ENOSPC && fs_sync(fs) == 0)
		r = write_txn(fs, ino, w, drop_setid, io);
	return r;
}

int datapath_write(struct fs *fs, uint64_t ino, uint64_t off, const void *buf,
		   size_t len, bool *drop_setid, struct array_io *io)
{
	struct dp_write w;
	int r = datapath_write_prep(&w, off, buf, len);
	if (!r)
		r = datapath_write_commit(fs, &w, ino, drop_setid, io);
	datapath_write_free(&w);
	return r;
}

/* ---- truncate and punch ----------------------------------------------- */

/* Block-map extents of @ino that hold blocks in [@from, @to), at most
 * @max of them, in order, into @idx. Returns how many, or -errno. */
static int find_extents(struct dp_txn *t, uint64_t ino, uint64_t from,
			uint64_t to, uint64_t *idx, int max)
{
	MDB_cursor *cur;
	int rc =
	    mdb_cursor_open(t->txn, metastore_dbi(t->fs->ms, MS_BMAP), &cur);
	if (rc)
		return metastore_errno(rc);
	uint8_t kb[16];
	ext_key(kb, ino, from / EXT);
	MDB_val k = {16, kb}, v;
	int n = 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	     rc == 0 && n < max; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		uint64_t x = ms_get_be64((const uint8_t *)k.mv_data + 8);
		if (ms_get_be64(k.mv_data) != ino || x * EXT >= to)
			break;
		idx[n++] = x;
	}
	mdb_cursor_close(cur);
	return rc == 0 || rc == MDB_NOTFOUND ? n : metastore_errno(rc);
}

/* Drop the refs of the blocks of @ino in [@from, @to), at most
 * DROP_EXTENTS extents' worth, so that one transaction stays small however
 * big the file; *more tells whether blocks are left in the range. */
static int drop_blocks(struct dp_txn *t, uint64_t ino, struct ms_inode *in,
		       uint64_t from, uint64_t to, bool *more)
{
	int r = ext_store(t); /* the cursor must see the current extent */
	t->ext->valid = false;
	if (r)
		return r;
	uint64_t idx[DROP_EXTENTS + 1];
	int n = find_extents(t, ino, from, to, idx, DROP_EXTENTS + 1);
	if (n < 0)
		return n;
	*more = n > (int)DROP_EXTENTS;
	for (int i = 0; i < n && i < (int)DROP_EXTENTS && !r; i++) {
		uint64_t lo = idx[i] * EXT, hi = lo + EXT;
		lo = lo < from ? from : lo;
		hi = hi > to ? to : hi;
		for (uint64_t l = lo; l < hi && !r; l++) {
			int delta = 0;
			r = map_block(t, ino, l, 0, &delta);
			in->nblocks += delta;
		}
	}
	return r;
}

/* Zero bytes [from, to) inside logical block @lblk, which stays mapped.
 * The rebuilt block is kept in @keep until commit. */
static int zero_in_block(struct dp_txn *t, uint64_t ino, struct ms_inode *in,
			 uint64_t lblk, uint32_t from, uint32_t to,
			 uint8_t *keep)
{
	int r = ext_store(t); /* load_blocks reads the map from the txn */
	if (!r)
		r = read_error(t->fs, load_blocks(t->fs, t->txn, ino, lblk, 1,
						  keep, NULL));
	if (r)
		return r;
	memset(keep + from, 0, to - from);
	return store_built_block(t, ino, lblk, keep, in);
}

/* Blocks past the new end that one transaction could not take are left
 * to further ones (dp_commit runs them); until they are gone the inode is
 * in `orphans`, so a crash in between is finished at the next mount. */
static int defer_trim(struct dp_txn *t, uint64_t ino)
{
	MDB_val k = {sizeof(ino), &ino}, empty = {0, NULL};
	t->trim_ino = ino;
	return metastore_errno(mdb_put(
	    t->txn, metastore_dbi(t->fs->ms, MS_ORPHANS), &k, &empty, 0));
}

int datapath_truncate(struct dp_txn *t, uint64_t ino, struct ms_inode *in,
		      uint64_t size)
{
	int r = 0;
	bool more = false;
	if (size < in->size) {
		uint64_t keep_blocks = (size + BLOCK_SIZE - 1) / BLOCK_SIZE;
		r = drop_blocks(t, ino, in, keep_blocks, UINT64_MAX, &more);
		if (!r && size % BLOCK_SIZE) {
			uint8_t *edge = wb_scratch(t->wb);
			r = edge ? zero_in_block(t, ino, in, size / BLOCK_SIZE,
						 size % BLOCK_SIZE, BLOCK_SIZE,
						 edge)
				 : -ENOMEM;
		}
		if (!r && more)
			r = defer_trim(t, ino);
	}
	if (r)
		return r;
	if (S_ISREG(in->mode))
		t->c.logical_bytes += size - in->size;
	in->size = size;
	return 0;
}

int datapath_trim_step(struct dp_txn *t, uint64_t ino, struct ms_inode *in,
		       uint64_t from_lblk, bool *more)
{
	return drop_blocks(t, ino, in, from_lblk, UINT64_MAX, more);
}

int datapath_punch(struct dp_txn *t, uint64_t ino, struct ms_inode *in,
		   uint64_t off, uint64_t len, bool *more)
{
	*more = false;
	uint64_t end = off + len < off ? UINT64_MAX : off + len;
	if (end > in->size)
		end = in->size; /* nothing to zero past EOF */
	if (off >= end)
		return 0;
	uint64_t first_whole = (off + BLOCK_SIZE - 1) / BLOCK_SIZE,
		 end_whole = end / BLOCK_SIZE;
	int r = 0;
	if (first_whole < end_whole)
		r = drop_blocks(t, ino, in, first_whole, end_whole, more);
	/* Partial edges: the head block (and the tail, if another). */
	if (!r && off % BLOCK_SIZE) {
		uint64_t lblk = off / BLOCK_SIZE;
		uint32_t to = end / BLOCK_SIZE == lblk
				  ? (uint32_t)(end % BLOCK_SIZE)
				  : BLOCK_SIZE;
		uint8_t *edge = wb_scratch(t->wb);
		r = edge ? zero_in_block(t, ino, in, lblk, off % BLOCK_SIZE, to,
					 edge)
			 : -ENOMEM;
	}
	if (!r && end % BLOCK_SIZE &&
	    (end / BLOCK_SIZE != off / BLOCK_SIZE || off % BLOCK_SIZE == 0)) {
		uint8_t *edge = wb_scratch(t->wb);
		r = edge ? zero_in_block(t, ino, in, end / BLOCK_SIZE, 0,
					 end % BLOCK_SIZE, edge)
			 : -ENOMEM;
	}
	return r;
}
