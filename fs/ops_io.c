/* FUSE ops of file data: open, read, write, flush, release, fsync,
 * fallocate. Reads and writes are handed to the array model once their
 * bytes have moved (tiers/array.h): the model replies at the request's
 * emulated completion time, possibly from another thread, and the FUSE
 * worker returns at once.
 *
 * The .c files one FUSE write passes through, entry to reply, in order:
 *
 *   fs/ops_io.c             op_write
 *   fs/fault_gate.c         fault_gate_io (and, torn, fault_gate_torn_prefix)
 *   faults/faults.c           faults_check: the rules that fire
 *   store/datapath_write.c  datapath_write_prep: whole blocks fingerprinted
 *   dedupe/chunker.c          chunker_count
 *   dedupe/fingerprint.c      fingerprint_block (SHA-1 and XXH3)
 *   fs/inode_table.c        inode_table_lock: the file's data lock
 *   store/datapath_write.c  datapath_write_commit: partial edge blocks
 *   store/datapath_read.c     read back (dp_load_blocks_retry), then
 *   store/datapath_write.c  write_txn:
 *   store/txn.c               store_txn_begin
 *   meta/metastore.c         its LMDB transaction and counters
 *   store/namespace.c         ns_inode_get, ns_inode_put
 *   store/blockmap.c          blockmap_seek: the block map's extent
 *   dedupe/dedupe.c           dedupe_resolve: zero, a match, or new
 *   dedupe/index.c              dedupe_index_walk
 *   tiers/backing.c             verify-on-match reads of a candidate
 *   fs/fs_open.c                hook_thin_full before a new block,
 *   fs/fault_gate.c             fault_gate_thin_full,
 *   faults/faults.c             faults_thin_limit
 *   dedupe/blocks.c             dedupe_block_ref/new/unref
 *   store/loss.c              loss_any
 *   store/txn.c               store_txn_commit_one: blockmap_store, the new
 *   tiers/backing.c             blocks' bytes first,
 *   meta/metastore.c           then the commit;
 *   store/loss.c                loss_forget of the blocks it freed;
 *   store/meta_cache.c          store_trim_meta_cache every 256 commits
 *   fs/ops_io.c             submit_io
 *   tiers/completer.c         an injected latency first (fs->fault_delay)
 *   tiers/array.c           array_submit
 *   tiers/cache.c             the residency of a cache tier
 *   tiers/model.c           model_submit
 *   tiers/model_faults.c      faults_arrive, faults_pick_link
 *   tiers/raid.c              raid_plan
 *   tiers/engine.c            engine_submit: every stage's completion time
 *   tiers/completer.c       completer_submit; its thread at the deadline:
 *   fs/ops_io.c             complete_write: fuse_reply_write
 *
 * A read whose stored block fails its checksum, repaired from redundancy:
 *
 *   fs/ops_io.c             op_read
 *   fs/fault_gate.c         fault_gate_io
 *   faults/faults.c           faults_check
 *   store/datapath_read.c   datapath_read_map, dp_load_blocks_retry,
 *                           dp_load_blocks
 *   meta/metastore.c         a read transaction
 *   store/namespace.c         ns_inode_get
 *   dedupe/chunker.c          chunker_count
 *   store/blockmap.c          the block map's extents
 *   dedupe/blocks.c           dedupe_block_get: the block's XXH3
 *   store/loss.c              loss_has: not a block the array lost
 *   tiers/backing.c           the bytes
 *   dedupe/fingerprint.c      fingerprint_xxh3: a mismatch, so
 *   store/bitrot.c            bitrot_undo_injected
 *   tiers/array.c               array_block_repairable
 *   tiers/model_faults.c        model_block_repairable
 *   tiers/placement.c           placement_lost: another copy or parity holds
 *   dedupe/fingerprint.c      fingerprint_xxh3 of the rebuilt bytes matches
 *   fs/ops_io.c             submit_io
 *   tiers/array.c           array_submit (then tiers/cache.c, tiers/model.c,
 *                           tiers/model_faults.c, tiers/raid.c,
 *                           tiers/engine.c as for a write)
 *   tiers/completer.c       completer_submit; its thread at the deadline:
 *   fs/ops_io.c             complete_read: fuse_reply_buf
 */
#include "fs/ops_i.h"

#include <errno.h>
#include <fcntl.h> /* O_TRUNC, FALLOC_FL_* */
#include <stdlib.h>

#include "common/block.h"
#include "store/attrs.h"
#include "store/datapath.h"
#include "fs/fault_gate.h"
#include "fs/inode_table.h"
#include "store/namespace.h"
#include "tiers/array.h"
#include "tiers/completer.h"

/* libfuse asks for atomic O_TRUNC, so the kernel leaves the truncation of
 * an O_TRUNC open to us. */
static int truncate_on_open(struct fs *fs, uint64_t ino)
{
	struct stat a = {.st_size = 0};
	struct ms_inode in;
	return ops_setattr_txn(fs, ino, &a, FUSE_SET_ATTR_SIZE, &in);
}

void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	int r = fault_gate_meta(fs_of(req), FOP_OPEN, ino, 0, NULL);
	if (!r && (fi->flags & O_TRUNC))
		r = truncate_on_open(fs_of(req), ino);
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
	size_t got;	 /* reads: bytes to return */
	uint64_t *pblks; /* io.pblks, when the model wants them */
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

/* A request given injected latency goes to the array model that much
 * later: the completer thread holds it, no worker does. */
static void resume_after_delay(struct array_io *aio)
{
	struct fs_io *x = (struct fs_io *)aio;
	aio->complete =
	    aio->kind == ARRAY_IO_READ ? complete_read : complete_write;
	array_submit(fs_of(x->req)->array, aio);
}

static void submit_io(struct fs *fs, struct fs_io *x, uint64_t delay_ns)
{
	if (delay_ns) {
		void (*complete)(struct array_io *) = x->io.complete;
		x->io.complete = resume_after_delay;
		if (completer_submit(fs->fault_delay, stats_now_ns() + delay_ns,
				     &x->io) == 0)
			return;
		x->io.complete = complete; /* no memory to queue: no delay */
	}
	array_submit(fs->array, &x->io);
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
	void *buf = x ? aligned_alloc(BLOCK_BYTES, (size + BLOCK_BYTES - 1) &
						      ~(size_t)(BLOCK_BYTES - 1))
		      : NULL;
	if (!buf) {
		free(x);
		return ops_reply_err(req, STATS_OP_READ, t0, -ENOMEM);
	}
	x->buf = buf;
	want_blocks(fs, x, off, size);
	x->io.result =
	    datapath_read_map(fs->st, ino, off, size, buf, &x->got, x->pblks);
	submit_io(fs, x, hit.delay_ns);
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
	/* A torn write stores a prefix and reports all of it written, as a
	 * device that loses power mid-write told its host. */
	size_t keep = hit.torn ? fault_gate_torn_prefix(size) : size;
	if (hit.torn)
		fault_gate_torn_event(fs, ino, off, size, keep, hit.rule_id);
	bool drop_setid = fuse_req_ctx(req)->uid != 0;
	struct dp_write w;
	x->io.result = datapath_write_prep(&w, off, buf, keep);
	want_blocks(fs, x, off, size);
	w.pblks = x->pblks;
	if (!x->io.result) {
		inode_table_lock(fs->itab, ino);
		x->io.result =
		    datapath_write_commit(fs->st, &w, ino, &drop_setid, &x->io);
		inode_table_unlock(fs->itab, ino);
	}
	datapath_write_free(&w);
	if (!x->io.result && drop_setid && fs->session)
		fuse_lowlevel_notify_inval_inode(fs->session, ino, -1, 0);
	submit_io(fs, x, hit.delay_ns);
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
	int r = fault_gate_meta(fs_of(req), FOP_FSYNC, ino, 0, NULL);
	ops_reply_err(req, STATS_OP_FSYNC, t0,
		      r ? r : store_sync(fs_of(req)->st));
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
	inode_table_lock(fs->itab, ino);
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
	inode_table_unlock(fs->itab, ino);
	ops_reply_err(req, STATS_OP_FALLOCATE, t0, r);
}
