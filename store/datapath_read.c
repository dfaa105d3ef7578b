/* Reads (store/datapath.h), and the block loading writes and truncates
 * share.
 *
 * Reads run in a read-only transaction (a snapshot: never blocked by the
 * writer), then read the blocks and check each one's XXH3. A block may be
 * freed and, after a sync, reused between the snapshot and the read; the
 * checksum then fails, and the read is retried on a fresh snapshot before
 * it is called an error. A block that still fails may be rebuilt from the
 * array's redundancy (store/bitrot.c); a block the array lost reads as EIO.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/block.h"
#include "common/log.h"
#include "dedupe/blocks.h"
#include "dedupe/chunker.h"
#include "dedupe/fingerprint.h"
#include "store/bitrot.h"
#include "store/datapath_i.h"
#include "store/loss.h"
#include "store/namespace.h"
#include "store/store_i.h"

#define READ_RETRIES 2

/* The physical blocks of @n logical blocks from @first into io/sum (holes
 * zeroed in @buf); see dp_load_blocks. Each `blocks` record is checked
 * once per call however many of its 80 slots the blocks use. */
static int map_blocks(struct store *st, MDB_txn *txn, uint64_t ino,
		      const struct dp_load *l, struct backing_io *io,
		      uint64_t *sum, unsigned *nio)
{
	uint64_t ext[EXT], cur_idx = UINT64_MAX, rec_key = UINT64_MAX;
	const uint8_t *rec = NULL;
	/* Past EOF nothing is returned, so nothing needs proving; one proof
	 * covers the whole map. */
	uint64_t eof =
	    l->in ? (l->in->size + BLOCK_BYTES - 1) / BLOCK_BYTES : 0;
	bool proven = false;
	int r = 0;
	for (unsigned i = 0; i < l->n && !r; i++) {
		uint64_t lblk = l->first + i;
		if (lblk / EXT != cur_idx) {
			cur_idx = lblk / EXT;
			r = blockmap_load(st->ms, txn, ino, cur_idx, ext);
			if (r == -ENOENT && !proven && lblk < eof) {
				r = blockmap_holes_proven(
				    st->ms, txn, ino, l->in->nblocks, cur_idx);
				proven = !r;
			} else if (r == -ENOENT) {
				r = 0;
			}
			if (r)
				break;
		}
		uint64_t pblk = ext[lblk % EXT];
		uint8_t *dst = l->buf + (size_t)i * BLOCK_BYTES;
		if (l->pblks)
			l->pblks[i] = pblk;
		if (!pblk) {
			memset(dst, 0, BLOCK_BYTES);
			continue;
		}
		struct ms_block b;
		if (pblk / MS_BLOCK_EXTENT != rec_key) {
			r = dedupe_block_record(st->ms, txn, pblk, ino,
						lblk * BLOCK_BYTES, &rec);
			rec_key = r ? UINT64_MAX : pblk / MS_BLOCK_EXTENT;
		}
		if (!r)
			r = dedupe_block_slot(rec, pblk, &b);
		if (r == -ENOENT)
			r = -EIO; /* a map pointing at a free block */
		if (!r && loss_has(st, pblk, b.xxh3))
			r = -ENODATA; /* the array lost it: counted, EIO */
		if (r)
			break;
		io[*nio] = (struct backing_io){pblk, dst};
		sum[(*nio)++] = b.xxh3;
	}
	return r;
}

int dp_load_blocks(struct store *st, MDB_txn *txn, uint64_t ino,
		   const struct dp_load *l)
{
	struct backing_io stack_io[16];
	uint64_t stack_sum[16];
	struct backing_io *io = stack_io;
	uint64_t *sum = stack_sum;
	if (l->n > 16) {
		io = malloc(l->n * sizeof(*io));
		sum = malloc(l->n * sizeof(*sum));
		if (!io || !sum) {
			free(io);
			free(sum);
			return -ENOMEM;
		}
	}
	unsigned nio = 0;
	int r = map_blocks(st, txn, ino, l, io, sum, &nio);
	if (!r && nio)
		r = st->dev.ops->read(st->dev.ctx, io, nio);
	for (unsigned i = 0; i < nio && !r; i++)
		if (fingerprint_xxh3(io[i].buf) != sum[i] &&
		    !bitrot_undo_injected(st, io[i].pblk, io[i].buf, sum[i])) {
			r = -EBADMSG;
			if (l->bad)
				*l->bad =
				    l->first +
				    (uint64_t)((uint8_t *)io[i].buf - l->buf) /
					BLOCK_BYTES;
		}
	if (io != stack_io) {
		free(io);
		free(sum);
	}
	return r;
}

/* A block that cannot be read, counted by why: a checksum failure or a
 * block the array lost; both are EIO to the client. */
int dp_read_error(struct store *st, int r)
{
	_Atomic uint64_t *c = r == -EBADMSG ? &st->stats->dedupe.checksum_errors
			      : r == -ENODATA ? &st->stats->dedupe.lost_reads
					      : NULL;
	if (!c)
		return r;
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
	return -EIO;
}

/* Load with a fresh snapshot each try; a checksum failure that persists
 * across snapshots is real: counted, logged, -EIO. */
int dp_load_blocks_retry(struct store *st, uint64_t ino, uint64_t first,
			 unsigned n, uint8_t *buf, struct ms_inode *in,
			 uint64_t *pblks)
{
	struct ms_inode own;
	uint64_t bad = first;
	struct dp_load l = {.first = first,
			    .n = n,
			    .buf = buf,
			    .pblks = pblks,
			    .in = in ? in : &own,
			    .bad = &bad};
	int r = -EBADMSG;
	for (int tries = 0; tries < READ_RETRIES && r == -EBADMSG; tries++) {
		MDB_txn *txn;
		r = metastore_txn_begin(st->ms, false, &txn);
		if (r)
			return r;
		r = ns_inode_get(st->ms, txn, ino, in ? in : &own);
		if (!r)
			r = dp_load_blocks(st, txn, ino, &l);
		metastore_txn_abort(txn);
	}
	if (r == -EBADMSG)
		log_error("datapath",
			  "inode %llu offset %llu: stored block fails its "
			  "checksum; the read is EIO",
			  (unsigned long long)ino,
			  (unsigned long long)(bad * BLOCK_BYTES));
	return dp_read_error(st, r);
}

/* @whole: @buf holds every block the range touches, whole, so the blocks
 * load straight into it and the bytes asked for move to its start; else
 * @buf holds @len bytes and a range off block boundaries goes through a
 * bounce buffer. */
static int read_range(struct store *st, uint64_t ino, uint64_t off, size_t len,
		      uint8_t *buf, size_t *got, uint64_t *pblks, bool whole)
{
	*got = 0;
	uint64_t first = off / BLOCK_BYTES;
	unsigned n = (unsigned)chunker_count(off, len);
	if (!n)
		return 0;
	size_t head = off % BLOCK_BYTES;
	bool in_place = whole || (!head && len % BLOCK_BYTES == 0);
	uint8_t *blocks = in_place ? buf : malloc((size_t)n * BLOCK_BYTES);
	if (!blocks)
		return -ENOMEM;
	struct ms_inode in;
	int r = dp_load_blocks_retry(st, ino, first, n, blocks, &in, pblks);
	if (!r) {
		uint64_t end = off + len < in.size ? off + len : in.size;
		*got = end > off ? (size_t)(end - off) : 0;
		if (head || !in_place)
			memmove(buf, blocks + head, *got);
	}
	if (!in_place)
		free(blocks);
	return r;
}

int datapath_read(struct store *st, uint64_t ino, uint64_t off, size_t len,
		  void *buf, size_t *got)
{
	return read_range(st, ino, off, len, buf, got, NULL, false);
}

int datapath_read_map(struct store *st, uint64_t ino, uint64_t off, size_t len,
		      void *buf, size_t *got, uint64_t *pblks)
{
	return read_range(st, ino, off, len, buf, got, pblks, true);
}
