/* The inline dedupe decision for one block about to be stored, inside a
 * caller's write transaction of the metadata store:
 *
 *   fingerprint --zero?--------------------------------------> hole (0)
 *        |
 *        +--> each block indexed under its SHA-1, lowest first:
 *               verify off: take it (trust the SHA-1)
 *               verify on:  read its bytes back and compare
 *                             same  --> take it: refs + 1 ----> shared
 *                             other --> a collision: counted,
 *                                       logged, try the next
 *        +--> none taken: may the store grow? (may_alloc)
 *               yes --> a new block, refs 1, indexed, and (compression
 *                       on) its compressed size recorded ----> new
 *               no  --> -ENOSPC
 *
 * The caller supplies the store (metadata transaction and counters) and a
 * read-back callback, "the bytes of physical block N", so this file knows
 * nothing of where bytes live; the caller writes a new block's bytes
 * before its transaction commits.
 */
#ifndef ARRAYSIM_DEDUPE_DEDUPE_H
#define ARRAYSIM_DEDUPE_DEDUPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/metastore.h"
#include "common/stats.h"
#include "dedupe/compress.h"
#include "dedupe/fingerprint.h"

struct dedupe_index_batch; /* dedupe/index.h */

/* Fill @buf (BLOCK_BYTES bytes, 64-byte aligned) with the bytes physical
 * block @pblk holds: 1 when they were read back from the store (counted
 * in verify_reads), 0 when the caller still had them in memory, -errno. */
typedef int (*dedupe_read_fn)(void *ctx, uint64_t pblk, void *buf);
/* May a new unique block be allocated, the store holding @unique_blocks?
 * false: the write fails with -ENOSPC (blocks that dedupe still go). */
typedef bool (*dedupe_may_alloc_fn)(void *ctx, uint64_t unique_blocks);

/* What one transaction's dedupe decisions run against. */
struct dedupe_env {
	const struct metastore *ms;
	MDB_txn *txn;		       /* the caller's write transaction */
	struct ms_counters *c;	       /* unique_blocks, next_pblk: changed */
	bool verify;		       /* verify-on-match */
	dedupe_read_fn read;	       /* needed when verify is on */
	dedupe_may_alloc_fn may_alloc; /* NULL: always */
	void *ctx;		       /* for read and may_alloc */
	struct dedupe_stats *tally;    /* zero_blocks, duplicate_hits,
					* unique_writes, verify_*: counted */
	/* NULL or kind none: no compression; else each new block's
	 * compressed size is recorded (dedupe/csize.h), its bytes stored
	 * whole. */
	const struct dedupe_compression *compress;
	/* NULL, or where a new block's kept size goes (its compressed
	 * size, else 4096): what the array model's destager writes of it
	 * when reduction runs at destage (tiers/array_io.h). */
	uint32_t *kept;
	/* NULL: a new block is indexed at once. Else its item waits here
	 * and is indexed before the next walk and by dedupe_flush, so every
	 * walk still sees every earlier block (a request's, probed). Until
	 * then such a block must not be unref'd (its item is not there to
	 * drop: -EIO); a write never unrefs a block it made. */
	struct dedupe_index_batch *batch;
};

/* How a block was resolved (dedupe_resolve's non-negative returns). */
enum dedupe_outcome {
	DEDUPE_HOLE,   /* all zeros: *pblk is 0, nothing stored */
	DEDUPE_SHARED, /* a known block with these bytes took a ref */
	DEDUPE_NEW,    /* a new block: the caller must store @data there */
};

/* The physical block that holds @data (fingerprinted as @fp) into *pblk:
 * a DEDUPE_* outcome, or -ENOSPC (may_alloc said no, or the allocator is
 * out of block numbers), -EIO (tables disagree) or -errno. */
int dedupe_resolve(const struct dedupe_env *env, const void *data,
		   const struct fingerprint *fp, uint64_t *pblk);

/* A request's blocks looked up in one sorted pass (one cursor walking the
 * index forward) before any is resolved, then resolved in file order, so
 * new blocks get consecutive numbers in the file's order:
 *
 *   dedupe_probe(env, fp, n, known);
 *   for each block i, in order: dedupe_resolve_probed(..., known[i], ...)
 *
 * known[i] false: no block had fp[i]'s SHA-1 before the request and no
 * earlier block of it has, so the walk is skipped (it would find
 * nothing). Between the probe and the request's last block, no other
 * block may be resolved in @env's transaction (its new items would be
 * unknown to the probe). 0, -ENOMEM or -errno. */
int dedupe_probe(const struct dedupe_env *env, const struct fingerprint *fp,
		 size_t n, bool *known);
/* dedupe_resolve after dedupe_probe: the same outcomes and errors; @known
 * is what the probe said of this block. */
int dedupe_resolve_probed(const struct dedupe_env *env, const void *data,
			  const struct fingerprint *fp, bool known,
			  uint64_t *pblk);
/* Index the new blocks waiting in env->batch (none: nothing to do), before
 * the transaction commits. 0 or -errno. */
int dedupe_flush(const struct dedupe_env *env);

#endif
