/* The store transaction: one LMDB write transaction, the counters it will
 * store, the extent it is working on (store/blockmap.h) and the bytes of
 * the new blocks it must write first (store/txn.c). Every change to
 * metadata is one: a write, a truncate, a rename, an xattr.
 */
#ifndef ARRAYSIM_STORE_TXN_H
#define ARRAYSIM_STORE_TXN_H

#include <stddef.h>
#include <stdint.h>

#include "common/stats.h"
#include "meta/metastore.h"
#include "tiers/backing.h"

struct store;
struct store_wbatch;
struct blockmap_extent;

/* A write transaction of the datastore: the LMDB transaction, the
 * counters it will store, and the block bytes it must write first. */
struct store_txn {
	struct store *st;
	MDB_txn *txn;
	struct ms_counters c;
	struct ms_counters c0; /* as read, to publish deltas */
	struct store_wbatch *wb;
	struct blockmap_extent *ext; /* the one being worked on */
	struct dedupe_stats delta;   /* published to st->stats on commit */
	/* NULL, or a probed write's new index items, waiting (dedupe.h) */
	struct dedupe_index_batch *fp_batch;
	uint64_t trim_ino; /* blocks left to drop after commit */
	/* Blocks freed here while the array has lost some: the loss set
	 * forgets them once this commits (store/loss.h). */
	uint64_t *freed;
	size_t nfreed, capfreed;
};

int store_txn_begin(struct store *st, struct store_txn *t);
/* Write queued block bytes, then commit; then finish a truncation that
 * was too big for one transaction (store_trim), in further transactions
 * (store/store_open.c, above the data path and the orphans both). On error,
 * aborts. */
int store_txn_commit(struct store_txn *t);
/* The commit alone: *trim_ino is the inode whose blocks a truncation left
 * to drop (0: none), for the caller to finish with store_trim. For the
 * store's own transactions that never truncate (a write, an orphan's
 * trim step). */
int store_txn_commit_one(struct store_txn *t, uint64_t *trim_ino);
void store_txn_abort(struct store_txn *t);

/* ---- for the store's files: the write batch, bytes of new blocks
 * written before commit, and the blocks a transaction freed ----------- */

struct store_wbatch {
	struct backing_io *io;
	unsigned n, cap;
	void **scratch; /* blocks the transaction built itself */
	unsigned nscratch;
};

/* A block buffer that lives until the transaction ends. NULL: no memory. */
uint8_t *store_wb_scratch(struct store_wbatch *wb);
/* Queue @data (borrowed until commit) to be written to @pblk. */
int store_wb_add(struct store_wbatch *wb, uint64_t pblk, const void *data);
/* Bytes of @pblk if this transaction is about to write them, else NULL. */
const void *store_wb_find(const struct store_wbatch *wb, uint64_t pblk);
/* Remember that @pblk was freed, for the loss set (store/loss.h). */
int store_txn_note_freed(struct store_txn *t, uint64_t pblk);

#endif
