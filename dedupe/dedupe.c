/* The inline dedupe decision (dedupe/dedupe.h): zero detection, the walk
 * over the blocks indexed under a SHA-1, verify-on-match through the
 * caller's read-back, collision accounting, then a reference or a new
 * block (dedupe/blocks.h).
 *
 * A candidate whose bytes differ is a SHA-1 collision (or a corrupted
 * store): it is kept apart, and if no candidate matches, the data gets a
 * block of its own, indexed under the same SHA-1 beside it.
 */
#include "dedupe/dedupe.h"

#include <errno.h>
#include <string.h>

#include "common/block.h"
#include "common/log.h"
#include "dedupe/blocks.h"
#include "dedupe/csize.h"
#include "dedupe/index.h"

struct match {
	const struct dedupe_env *env;
	const void *data;
	uint64_t pblk; /* the match; 0: none yet */
};

/* Are the bytes of block @pblk exactly @data? 1, 0 or -errno. */
static int same_bytes(const struct dedupe_env *env, uint64_t pblk,
		      const void *data)
{
	uint8_t tmp[BLOCK_BYTES] __attribute__((aligned(64)));
	int r = env->read(env->ctx, pblk, tmp);
	if (r < 0)
		return r;
	if (r > 0)
		env->tally->verify_reads++;
	return memcmp(tmp, data, BLOCK_BYTES) == 0;
}

/* One block indexed under the SHA-1 of the data: is it the same bytes? */
static int try_candidate(void *ctx, uint64_t cand)
{
	struct match *m = ctx;
	const struct dedupe_env *env = m->env;
	if (!env->verify) {
		m->pblk = cand; /* trusting the fingerprint */
		return 1;
	}
	int same = same_bytes(env, cand, m->data);
	if (same < 0)
		return same;
	if (same) {
		m->pblk = cand;
		return 1;
	}
	env->tally->verify_mismatches++;
	log_warn("dedupe",
		 "block %llu has the SHA-1 of other bytes "
		 "(a collision): kept apart",
		 (unsigned long long)cand);
	return 0;
}

/* A compressing array compresses each unique block once, as it stores it:
 * its size is recorded with the block; its bytes are stored whole, so
 * every read is still checked against the block's XXH3 and every match
 * compared byte for byte. */
static int note_compressed(const struct dedupe_env *env, const void *data,
			   uint64_t pblk)
{
	if (env->kept)
		*env->kept = BLOCK_BYTES;
	if (!env->compress || env->compress->kind == DEDUPE_COMPRESS_NONE)
		return 0;
	uint8_t out[BLOCK_BYTES + BLOCK_BYTES / 8];
	if (dedupe_compress_bound(BLOCK_BYTES) > sizeof(out))
		return -EOVERFLOW;
	uint32_t size =
	    dedupe_compressed_size(env->compress, data, BLOCK_BYTES, out, NULL);
	if (env->kept)
		*env->kept = size;
	return dedupe_csize_set(env->ms, env->txn, pblk, size);
}

int dedupe_resolve(const struct dedupe_env *env, const void *data,
		   const struct fingerprint *fp, uint64_t *pblk)
{
	if (fp->zero) {
		env->tally->zero_blocks++;
		*pblk = 0;
		return DEDUPE_HOLE;
	}
	struct match m = {env, data, 0};
	int r =
	    dedupe_index_walk(env->ms, env->txn, fp->sha1, try_candidate, &m);
	if (r < 0)
		return r;
	if (m.pblk) {
		r = dedupe_block_ref(env->ms, env->txn, m.pblk);
		if (r)
			return r;
		env->tally->duplicate_hits++;
		*pblk = m.pblk;
		return DEDUPE_SHARED;
	}
	/* A store that may not grow (a thin-provisioned array out of
	 * physical space) still takes writes that dedupe, as above. */
	if (env->may_alloc && !env->may_alloc(env->ctx, env->c->unique_blocks))
		return -ENOSPC;
	r = dedupe_block_new(env->ms, env->txn, env->c, fp, pblk);
	if (!r)
		r = note_compressed(env, data, *pblk);
	if (r)
		return r;
	env->tally->unique_writes++;
	return DEDUPE_NEW;
}
