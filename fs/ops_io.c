/* FUSE ops of file data: open, read, write, flush, release, fsync,
 * fallocate. Reads and writes are handed to the array model once their
 * bytes have moved (tiers/array.h): the model replies at the request's
 * emulated completion time, possibly from another thread, and the FUSE
 * worker returns at once.
 *
 * A FUSE write, entry to reply. The files that hold its flow, in order
 * (indented: a call behind an interface whose header says what it does,
 * which a reader need not open):
 *
 *   fs/ops_io.c             op_write: decode; ask the fault gate
 *       fs/fault_gate.c       fault_gate_io: error, latency, torn prefix
 *   store/datapath_write.c  fingerprint whole blocks (no lock), take the
 *                           file's data lock, complete partial edge blocks,
 *                           queue the write for the group commit
 *                           (store/group_commit.c: one transaction for all
 *                           writes waiting): inode, block map, and per
 *                           block
 *       dedupe/chunker.c,     the blocks of the range, SHA-1 and XXH3
 *       dedupe/fingerprint.c
 *       store/namespace.c,    the inode and the block map's extents
 *       store/blockmap.c
 *   dedupe/dedupe.c         dedupe_probe: the write's SHA-1s sorted and
 *                           looked up in one forward pass; then per block,
 *                           in file order, dedupe_resolve_probed: zero, a
 *                           verified match (the walk only where the pass
 *                           found the SHA-1), or a new block (after the
 *                           thin limit's may_alloc)
 *       dedupe/index.c,       the sorted pass, the fingerprint walk,
 *                             refcounts
 *       dedupe/blocks.c
 *   store/txn.c             store_txn_commit_one: the new blocks' bytes
 *                           (tiers/backing.c), then the LMDB commit
 *                           (meta/metastore.c)
 *   fs/ops_io.c             write_committed, on the thread that waited,
 *                           or for whole blocks from a FUSE ring (whose
 *                           bytes stay in the ring until the reply) on
 *                           whichever thread led the group commit
 *                           (write_done): the worker did not wait
 *   tiers/array.c           array_submit: after an injected delay, to the
 *                           null or timed array
 *   tiers/array_timed.c     the model's completion time (tiers/model.c:
 *                           RAID plan, cache residency, engine stages),
 *                           then the completer's deadline
 *       tiers/completer.c     complete_write at that time, on its thread
 *   fs/ops_io.c             complete_write: fuse_reply_write
 *
 * A read whose stored block fails its checksum, repaired from redundancy:
 * fs/ops_io.c op_read -> store/datapath_read.c (a read transaction, the
 * block map, each block's XXH3 checked; a mismatch asks store/bitrot.c,
 * which rebuilds the block when tiers/array.c's array_block_repairable
 * says its stripe can spare it) -> tiers/array.c and the rest as for a
 * write -> fs/ops_io.c complete_read: fuse_reply_buf.
 */
#include "fs/ops_i.h"

#include <errno.h>
#include <fcntl.h> /* O_TRUNC, FALLOC_FL_* */
#include <stddef.h>
#include <stdlib.h>

#include "common/block.h"
#include "dedupe/chunker.h"
#include "store/attrs.h"
#include "store/datapath.h"
#include "fs/fault_gate.h"
#include "fs/inode_table.h"
#include "fs/uring.h"
#include "store/namespace.h"
#include "replication/repl.h"
#include "tiers/array.h"

/* libfuse asks for atomic O_TRUNC, so the kernel leaves the truncation of
 * an O_TRUNC open to us, set-ID bits and capabilities with it. */
static int truncate_on_open(fuse_req_t req, uint64_t ino)
{
	struct stat a = {.st_size = 0};
	struct ms_inode in;
	int set = FUSE_SET_ATTR_SIZE;
	bool kill = ops_kill_suidgid(req, false);
	if (kill)
		set |= ATTRS_KILL_SUIDGID;
	int r = ops_setattr_txn(fs_of(req), ino, &a, set, &in);
	/* The kernel keeps the mode it had; the open reply carries none. */
	if (!r && kill && fs_of(req)->session)
		fuse_lowlevel_notify_inval_inode(fs_of(req)->session, ino, -1,
						 0);
	return r;
}

void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	int r = fault_gate_meta(fs_of(req), FOP_OPEN, ino, 0, NULL);
	if (!r && (fi->flags & O_TRUNC))
		r = truncate_on_open(req, ino);
	if (r)
		return ops_reply_err(req, STATS_OP_OPEN, t0, r);
	ops_set_open_flags(fs_of(req), fi);
	ops_account(req, STATS_OP_OPEN, t0, 0, 0);
	fuse_reply_open(req, fi);
}

/* A read or write in flight through the array model. */
struct fs_io {
	struct array_io io;
	fuse_req_t req;
	void *buf;
	bool buf_owned;	 /* buf is ours to free, not a ring entry's */
	size_t got;	 /* reads: bytes to return */
	uint64_t *pblks; /* io.pblks, when the model wants them */
	uint16_t *kept;	 /* io.kept, a write's, likewise */
	/* a write's, until its commit */
	struct fs *fs;
	struct dp_write w;
	bool drop_setid;
};

/* Where each block of [off, off+len) is stored, for a model that keeps
 * residency by physical block; NULL otherwise (or without memory: the
 * model then keys by logical block). Zeros until the data path fills
 * it, so blocks a torn write did not store count as holes. */
static void want_blocks(struct fs *fs, struct fs_io *x, uint64_t off,
			size_t len)
{
	if (!len || !array_wants_blocks(fs->array))
		return;
	x->pblks =
	    calloc((off % BLOCK_BYTES + len + BLOCK_BYTES - 1) / BLOCK_BYTES,
		   sizeof(uint64_t));
	x->io.pblks = x->pblks;
}

static void complete_read(struct array_io *aio)
{
	struct fs_io *x = (struct fs_io *)aio;
	if (aio->result) {
		ops_reply_err(x->req, STATS_OP_READ, aio->submit_ns,
			      aio->result);
	} else {
		ops_account(x->req, STATS_OP_READ, aio->submit_ns, 0, x->got);
		fuse_reply_buf(x->req, x->buf, x->got);
	}
	if (x->buf_owned)
		free(x->buf);
	free(x->pblks);
	free(x);
}

static void complete_write(struct array_io *aio)
{
	struct fs_io *x = (struct fs_io *)aio;
	if (aio->result) {
		ops_reply_err(x->req, STATS_OP_WRITE, aio->submit_ns,
			      aio->result);
	} else {
		ops_account(x->req, STATS_OP_WRITE, aio->submit_ns, 0,
			    aio->length);
		fuse_reply_write(x->req, aio->length);
	}
	free(x->kept);
	free(x->pblks);
	free(x);
}

static struct fs_io *new_io(fuse_req_t req, enum array_io_kind kind,
			    uint64_t ino, uint64_t off, size_t len, uint64_t t0)
{
	struct fs_io *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->req = req;
	x->io = (struct array_io){
	    .kind = kind,
	    .ino = ino,
	    .offset = off,
	    .length = len,
	    .submit_ns = t0,
	    .complete = kind == ARRAY_IO_READ ? complete_read : complete_write,
	};
	return x;
}

/* Where a read's blocks go, whole (datapath_read_map): on a ring, where
 * its reply goes (1 MiB less to copy per 1 MiB read); else a buffer. */
static bool read_buffer(struct fs_io *x, uint64_t off, size_t size)
{
	size_t whole = (size_t)chunker_count(off, size) * BLOCK_BYTES;
	x->buf = uring_reply_space(whole);
	x->buf_owned = !x->buf;
	if (x->buf_owned)
		x->buf = aligned_alloc(BLOCK_BYTES, whole);
	return x->buf;
}

void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
	     struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct fault_hit hit;
	fault_gate_io(fs, FOP_READ, ino, off, size, &hit);
	if (hit.err)
		return ops_reply_err(req, STATS_OP_READ, t0, hit.err);
	struct fs_io *x = new_io(req, ARRAY_IO_READ, ino, off, size, t0);
	if (!x || !read_buffer(x, off, size)) {
		free(x);
		return ops_reply_err(req, STATS_OP_READ, t0, -ENOMEM);
	}
	want_blocks(fs, x, off, size);
	x->io.result = datapath_read_map(fs->st, ino, off, size, x->buf,
					 &x->got, x->pblks);
	x->io.delay_ns = hit.delay_ns;
	array_submit(fs->array, &x->io);
}

/* A write is committed (or failed): to the array model, which replies
 * at its emulated completion. */
static void write_committed(struct fs_io *x)
{
	datapath_write_free(&x->w);
	if (!x->io.result && x->drop_setid && x->fs->session)
		fuse_lowlevel_notify_inval_inode(x->fs->session, x->io.ino, -1,
						 0);
	array_submit(x->fs->array, &x->io);
}

static void write_done(struct dp_write *w, int result)
{
	struct fs_io *x =
	    (struct fs_io *)((char *)w - offsetof(struct fs_io, w));
	x->io.result = result;
	write_committed(x);
}

/* The blocks a write touches, edges included: disjoint writes to one
 * file go on at once. */
static void lock_range(struct fs *fs, struct range_hold *h, uint64_t ino,
		       off_t off, size_t size)
{
	uint64_t first = (uint64_t)off / BLOCK_BYTES;
	inode_table_lock(fs->itab, h, ino, first,
			 size ? ((uint64_t)off + size - 1) / BLOCK_BYTES
			      : first);
}

/* Queue the write for its group commit under its range, then wait for
 * the commit here, or, with x->w.done set, go back to serving: the thread
 * that leads its group calls write_done. A write that reads its partial
 * edge blocks keeps the range through its commit; one of whole blocks
 * lets it go once queued, since the queue keeps its place. */
static void write_queued(struct fs *fs, struct fs_io *x, uint64_t ino,
			 off_t off, size_t size)
{
	/* Once queued, @x belongs to its group's leader, which frees it at
	 * the commit when x->w.done is set: decide everything before. */
	bool handed_off = x->w.done != NULL;
	bool edges = datapath_write_read_file(&x->w);
	struct range_hold h;
	lock_range(fs, &h, ino, off, size);
	int r =
	    datapath_write_queue(fs->st, &x->w, ino, &x->drop_setid, &x->io);
	bool held = !r && edges;
	if (!held)
		inode_table_unlock(fs->itab, &h);
	if (!r && handed_off)
		return datapath_write_run(fs->st);
	x->io.result = r ? r : datapath_write_wait(&x->w);
	if (held)
		inode_table_unlock(fs->itab, &h);
	write_committed(x);
}

void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
	      off_t off, struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct fault_hit hit;
	fault_gate_io(fs, FOP_WRITE, ino, off, size, &hit);
	if (hit.err)
		return ops_reply_err(req, STATS_OP_WRITE, t0, hit.err);
	struct fs_io *x = new_io(req, ARRAY_IO_WRITE, ino, off, size, t0);
	if (!x)
		return ops_reply_err(req, STATS_OP_WRITE, t0, -ENOMEM);
	x->fs = fs;
	x->drop_setid = ops_kill_suidgid(req, false);
	x->io.delay_ns = hit.delay_ns;
	/* hit.keep: a torn write stores a prefix, yet reports all of it. */
	x->io.result = datapath_write_prep(&x->w, off, buf, hit.keep);
	want_blocks(fs, x, off, size);
	x->w.pblks = x->pblks;
	if (x->pblks && array_wants_kept(fs->array)) {
		/* Zeros (no data to destage) for blocks a torn write did
		 * not store. */
		x->kept = calloc((off % BLOCK_BYTES + size + BLOCK_BYTES - 1) /
				     BLOCK_BYTES,
				 sizeof(*x->kept));
		x->io.kept = x->kept;
		x->w.kept = x->kept;
	}
	if (x->io.result)
		return write_committed(x);
	/* Whole blocks from a FUSE ring: their bytes stay in the ring's entry
	 * until the reply, so this thread need not wait for the commit. */
	if (x->w.n && uring_serving() && !datapath_write_read_file(&x->w))
		x->w.done = write_done;
	write_queued(fs, x, ino, off, size);
}

void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
	      struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	int r = fault_gate_meta(fs, FOP_FSYNC, ino, 0, NULL);
	if (!r)
		r = store_sync(fs->st);
	/* Sync replication: on the replica too before the reply. */
	if (!r)
		r = repl_sync_wait(fs->repl);
	ops_reply_err(req, STATS_OP_FSYNC, t0, r);
}

void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
		  off_t len, struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	if (off < 0 || len <= 0)
		return ops_reply_err(req, STATS_OP_FALLOCATE, t0, -EINVAL);
	int gate = fault_gate_meta(fs, 0, ino, 0, NULL); /* power loss only */
	if (gate)
		return ops_reply_err(req, STATS_OP_FALLOCATE, t0, gate);
	struct range_hold h;
	inode_table_lock(fs->itab, &h, ino, 0, RANGE_WHOLE_FILE);
	bool more;
	int r;
	do {
		struct store_txn t;
		r = store_txn_begin(fs->st, &t);
		if (r)
			break;
		r = ops_txn_end(
		    &t, attrs_fallocate_step(&t, ino, mode, off, len, &more));
	} while (!r && more);
	inode_table_unlock(fs->itab, &h);
	ops_reply_err(req, STATS_OP_FALLOCATE, t0, r);
}
