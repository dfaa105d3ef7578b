/* File data: block maps, inline dedupe and the backing store.
 *
 * A write, block by block (4 KiB, aligned; partial blocks are first
 * completed with the bytes they hold, read-modify-write):
 *
 *   bytes --fingerprint--> zero?  ------------------------> hole
 *                          known SHA-1? --verify bytes--+-> take a ref
 *                                 |           mismatch  |
 *                                 v                     v
 *                          new block: bytes to backing store, refs 1
 *   then the block map points at the result and the old block loses a ref.
 *
 * Fingerprints are computed before the metadata transaction starts, so
 * SHA-1 runs on every core while the (single-writer) transaction only
 * does lookups and map updates. New blocks' bytes reach the backing store
 * before the transaction that points at them commits, so a crash at any
 * point leaves either the old state or the new one.
 *
 * The decision for each block is dedupe's (dedupe/dedupe.h); the files
 * of the data path are listed in store/datapath_i.h.
 */
#ifndef ARRAYSIM_STORE_DATAPATH_H
#define ARRAYSIM_STORE_DATAPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dedupe/fingerprint.h"
#include "store/blockmap.h"
#include "store/group_commit.h"
#include "store/store.h"
#include "store/txn.h"

struct array_io;

/* Read up to @len bytes at @off of regular file @ino into @buf; *got is
 * what was read (short at EOF). -EIO when a stored block fails its
 * checksum (counted), never wrong bytes. */
int datapath_read(struct store *st, uint64_t ino, uint64_t off, size_t len,
		  void *buf, size_t *got);
/* A write in two steps, so that hashing, most of its cost, runs outside
 * the inode's data lock and concurrent writes to one file hash in
 * parallel: datapath_write_prep() fingerprints the whole blocks of the
 * request (they depend on the caller's bytes alone; no lock needed), then
 * datapath_write_commit(), under the lock, completes partial edge blocks
 * with the bytes they hold, fingerprints those, and commits. @buf must
 * stay valid until datapath_write_free(). */
struct dp_write {
	uint64_t off;
	size_t len;
	const uint8_t *buf;	/* the caller's bytes */
	unsigned n;		/* blocks the write touches */
	struct fingerprint *fp; /* one per block */
	bool *known;		/* dedupe_probe's, per block; NULL: n 1 */
	uint8_t *bounce;	/* the partial edge blocks, built whole */
	/* When the caller sets it (n entries): the physical block each
	 * logical block now maps to (0: a hole), for the array model. */
	uint64_t *pblks;
	/* Likewise (n entries): what data reduction keeps of each block (0:
	 * dedupe found it; else its compressed size, or 4096). */
	uint16_t *kept;
	/* Set by the caller before datapath_write_queue, or NULL: the write
	 * completes by callback, called with its result once its commit is
	 * done, on the thread that led it (datapath_write_run, not
	 * datapath_write_wait). Only for a write of whole blocks
	 * (!datapath_write_read_file), and its bytes must stay as they are
	 * until then. */
	void (*done)(struct dp_write *w, int result);
	/* set by datapath_write_queue, for the group commit */
	struct store *st;
	uint64_t ino;
	bool drop_in, *drop_setid;
	struct array_io *io;
	struct gc_entry gc;
};
int datapath_write_prep(struct dp_write *w, uint64_t off, const void *buf,
			size_t len);
/* The caller holds the inode's data lock; arguments as datapath_write.
 * datapath_write_queue then datapath_write_wait. */
int datapath_write_commit(struct store *st, struct dp_write *w, uint64_t ino,
			  bool *drop_setid, struct array_io *io);
/* The commit in two steps, for the group commit (store/group_commit.h).
 * Under the inode's data lock: complete the partial edge blocks (after
 * every write queued before is committed, so they read its bytes) and
 * queue the write. Nonzero: an error, nothing queued. */
int datapath_write_queue(struct store *st, struct dp_write *w, uint64_t ino,
			 bool *drop_setid, struct array_io *io);
/* Whether @w (queued) read blocks of its file: the data lock must then be
 * held until datapath_write_wait returns, so that nothing changes them
 * between the read and the commit. A write of whole blocks only reads
 * nothing and may drop the lock once queued: the queue keeps the order. */
bool datapath_write_read_file(const struct dp_write *w);
/* Until the commit covering @w is done (*drop_setid and @io set then);
 * 0 or -errno. */
int datapath_write_wait(struct dp_write *w);
/* After queueing writes with done set: commit the queued writes if no
 * other thread is (their callbacks then run here), else return at once. */
void datapath_write_run(struct store *st);
/* Free what prep and commit allocated; @w may be reused after prep. */
void datapath_write_free(struct dp_write *w);
/* datapath_read into a buffer of whole blocks: @buf has room for the
 * chunker_count(@off, @len) blocks the range touches, so no block goes
 * through a bounce buffer (the kernel splits a 1 MiB read from a buffer
 * off a page boundary into 1 MiB - 16 bytes and 16); the bytes read start
 * at @buf. Also tells the physical block of each logical block read into
 * @pblks (one per block the range touches; 0: a hole). */
int datapath_read_map(struct store *st, uint64_t ino, uint64_t off, size_t len,
		      void *buf, size_t *got, uint64_t *pblks);
/* Write @len bytes at @off (the caller holds the inode's data lock).
 * *drop_setid in: the writer lacks CAP_FSETID, so set-user-ID (and
 * set-group-ID with group exec) are cleared, as a local fs does; out:
 * whether a bit was actually cleared (the kernel's cached mode is stale).
 * Fills io->blocks_stored / blocks_deduped. 0 or -errno. */
int datapath_write(struct store *st, uint64_t ino, uint64_t off,
		   const void *buf, size_t len, bool *drop_setid,
		   struct array_io *io);
/* Set the size of @in (inode @ino) inside @t: blocks past the end lose
 * their refs and the bytes past the end of a partial last block become
 * zeros. Updates in->size and in->nblocks; the caller stores @in. A
 * transaction drops a bounded number of blocks; the rest are dropped by
 * further transactions after store_txn_commit. */
int datapath_truncate(struct store_txn *t, uint64_t ino, struct ms_inode *in,
		      uint64_t size);
/* One bounded step of dropping the blocks of @ino from @from_lblk on;
 * *more: some are left. */
int datapath_trim_step(struct store_txn *t, uint64_t ino, struct ms_inode *in,
		       uint64_t from_lblk, bool *more);
/* Zero [off, off+len) of @in without changing its size: whole blocks
 * become holes (their refs dropped), partial ones are rewritten. Bounded
 * like truncate: *more says the caller must punch again (in a new
 * transaction) to finish. */
int datapath_punch(struct store_txn *t, uint64_t ino, struct ms_inode *in,
		   uint64_t off, uint64_t len, bool *more);

#endif
