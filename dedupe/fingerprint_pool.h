/* Fingerprinting a long run of 4 KiB blocks on more than one thread.
 *
 * SHA-1 is most of the CPU of a large write (about 65% of a 1 MiB write's
 * instructions, bench/callgrind_write.sh), and a FUSE request is served on
 * one thread. A small fixed pool of hashing threads takes chunks of a run
 * while the caller hashes chunks of it too; the caller returns when every
 * block is done. Each block's fingerprint goes to its own slot, so the
 * order is the caller's whatever thread hashed it. A run shorter than the
 * pool's threshold is hashed on the caller's thread alone, touching no
 * lock: small writes cost what they did.
 */
#ifndef ARRAYSIM_DEDUPE_FINGERPRINT_POOL_H
#define ARRAYSIM_DEDUPE_FINGERPRINT_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dedupe/fingerprint.h"

/* Runs shorter than this many blocks (128 KiB) stay on the caller's
 * thread: below it, waking a thread costs about what it would save. */
#define FP_POOL_MIN_BLOCKS 32

struct fp_pool_cfg {
	unsigned threads;  /* hashing threads besides the callers */
	size_t min_blocks; /* shorter runs bypass the pool (0: the default) */
	/* false only in tests: the caller waits while the threads hash,
	 * so that their path is taken every time. */
	bool caller_hashes;
};

struct fp_pool_stats {
	uint64_t jobs;		/* runs handed to the pool */
	uint64_t worker_blocks; /* blocks its threads hashed */
};

struct fp_pool;

/* NULL (errno set) if a thread cannot be started. */
struct fp_pool *fp_pool_new(const struct fp_pool_cfg *cfg);
/* Stops and joins the threads; no run may be in progress. */
void fp_pool_free(struct fp_pool *p);
/* The process's pool, started at first call: one thread fewer than the
 * CPUs online, at most 7. NULL on one CPU (or if it could not start):
 * fp_pool_blocks then hashes on the caller's thread. */
struct fp_pool *fp_pool_shared(void);
/* Fingerprint @n consecutive 4096-byte blocks at @buf into @out[0..n-1]
 * (fingerprint_block of each). @p may be NULL. 0, or the first error. */
int fp_pool_blocks(struct fp_pool *p, const void *buf, size_t n,
		   struct fingerprint *out);
void fp_pool_get_stats(struct fp_pool *p, struct fp_pool_stats *s);

#endif
