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

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
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

int dedupe_resolve_probed(const struct dedupe_env *env, const void *data,
			  const struct fingerprint *fp, bool known,
			  uint64_t *pblk)
{
	if (fp->zero) {
		env->tally->zero_blocks++;
		*pblk = 0;
		return DEDUPE_HOLE;
	}
	struct match m = {env, data, 0};
	/* The walk sees every earlier new block, as when each was indexed
	 * at once: same candidates, same order. */
	int r = 0;
	if (known && !(r = dedupe_flush(env)))
		r = dedupe_index_walk(env->ms, env->txn, fp->sha1,
				      try_candidate, &m);
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
	r = dedupe_block_new_batched(env->ms, env->txn, env->c, fp, env->batch,
				     pblk);
	if (!r)
		r = note_compressed(env, data, *pblk);
	if (r)
		return r;
	env->tally->unique_writes++;
	return DEDUPE_NEW;
}

int dedupe_flush(const struct dedupe_env *env)
{
	return env->batch ? dedupe_index_flush(env->ms, env->txn, env->batch)
			  : 0;
}

int dedupe_resolve(const struct dedupe_env *env, const void *data,
		   const struct fingerprint *fp, uint64_t *pblk)
{
	return dedupe_resolve_probed(env, data, fp, true, pblk);
}

/* A block of the request, keyed by the 16 bytes of its SHA-1 the index
 * keeps as two big-endian words: the sort compares integers (in the
 * index's order), not bytes through a callback. */
struct probe_ent {
	uint64_t hi, lo;
	size_t i; /* its place in the request */
};

_Static_assert(MS_FP_SHA1_LEN == 16, "a key of two 64-bit words");

static uint64_t be64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v)); /* one load, not eight (ms_get_be64) */
	return be64toh(v);
}

static bool ent_le(const struct probe_ent *a, const struct probe_ent *b)
{
	return a->hi != b->hi ? a->hi < b->hi : a->lo <= b->lo;
}

static size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* Sort @n entries of @a through @tmp (bottom-up merge), returning which
 * of the two holds them. Stable: blocks with one SHA-1 stay in file
 * order, so the first of them is the request's first. */
static struct probe_ent *ent_sort(struct probe_ent *a, struct probe_ent *tmp,
				  size_t n)
{
	for (size_t w = 1; w < n; w *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = min_sz(lo + w, n),
			       hi = min_sz(lo + 2 * w, n);
			size_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] =
				    ent_le(&a[i], &a[j]) ? a[i++] : a[j++];
			while (i < mid)
				tmp[k++] = a[i++];
			while (j < hi)
				tmp[k++] = a[j++];
		}
		struct probe_ent *t = a;
		a = tmp;
		tmp = t;
	}
	return a;
}

/* Only a block of the request can add an item while it is resolved
 * (dedupe_block_new); unrefs only remove them. So a block is unknown, and
 * dedupe_resolve_probed's walk would find nothing, when no item had its
 * SHA-1 before the request and no earlier block of it has the SHA-1. */
int dedupe_probe(const struct dedupe_env *env, const struct fingerprint *fp,
		 size_t n, bool *known)
{
	if (!n)
		return 0;
	struct probe_ent *buf =
	    malloc(n * (2 * sizeof(*buf) + sizeof(void *) + 1));
	if (!buf)
		return -ENOMEM;
	const uint8_t **sha1s = (const uint8_t **)(buf + 2 * n);
	bool *found = (bool *)(sha1s + n);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		known[i] = false;
		if (!fp[i].zero) /* a hole: no lookup */
			buf[m++] = (struct probe_ent){be64(fp[i].sha1),
						      be64(fp[i].sha1 + 8), i};
	}
	const struct probe_ent *e = ent_sort(buf, buf + n, m);
	for (size_t j = 0; j < m; j++)
		sha1s[j] = fp[e[j].i].sha1;
	int r = dedupe_index_probe(env->ms, env->txn, sha1s, m, found);
	for (size_t j = 0; j < m && !r; j++)
		known[e[j].i] = found[j] || (j && e[j - 1].hi == e[j].hi &&
					     e[j - 1].lo == e[j].lo);
	free(buf);
	return r;
}
