/* One block's stored size under compression (dedupe/compress.h). */
#include "dedupe/compress.h"

#include <lz4.h>
#include <pthread.h>
#include <zstd.h>

#include "tiers/profile_types.h"

_Static_assert((int)DEDUPE_COMPRESS_LZ4 == (int)PROFILE_COMPRESS_LZ4 &&
		   (int)DEDUPE_COMPRESS_ZSTD == (int)PROFILE_COMPRESS_ZSTD &&
		   (int)DEDUPE_COMPRESS_NONE == (int)PROFILE_COMPRESS_NONE,
	       "the profile's compression values are dedupe's");
_Static_assert((int)DEDUPE_KEEP_HALF == (int)PROFILE_KEEP_HALF &&
		   (int)DEDUPE_KEEP_ANY == (int)PROFILE_KEEP_ANY,
	       "the profile's compression_keep values are dedupe's");

#define ZSTD_LEVEL 1 /* arrays compress inline: the fast end */

size_t dedupe_compress_bound(uint32_t len)
{
	size_t l = (size_t)LZ4_compressBound((int)len),
	       z = ZSTD_compressBound(len);
	return l > z ? l : z;
}

/* One ZSTD_CCtx per thread, made at its first zstd block and freed when
 * the thread exits: a context made per call (ZSTD_compress) cost the
 * mount's writes more than the compression itself. */
static pthread_key_t ctx_key;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;
static int ctx_key_rc = -1;

static void ctx_free(void *ctx)
{
	ZSTD_freeCCtx(ctx);
}

static void ctx_key_init(void)
{
	ctx_key_rc = pthread_key_create(&ctx_key, ctx_free);
}

static ZSTD_CCtx *thread_ctx(void)
{
	pthread_once(&ctx_once, ctx_key_init);
	if (ctx_key_rc)
		return NULL;
	ZSTD_CCtx *c = pthread_getspecific(ctx_key);
	if (!c && (c = ZSTD_createCCtx()) && pthread_setspecific(ctx_key, c)) {
		ZSTD_freeCCtx(c);
		c = NULL;
	}
	return c;
}

static long zstd_size(const void *p, uint32_t len, void *out, void *zctx)
{
	size_t bound = ZSTD_compressBound(len), z;
	if (!zctx)
		zctx = thread_ctx();
	if (zctx)
		z = ZSTD_compressCCtx(zctx, out, bound, p, len, ZSTD_LEVEL);
	else
		z = ZSTD_compress(out, bound, p, len, ZSTD_LEVEL);
	return ZSTD_isError(z) ? 0 : (long)z;
}

uint32_t dedupe_compressed_size(const struct dedupe_compression *c,
				const void *p, uint32_t len, void *out,
				void *zctx)
{
	long n = 0;
	if (c->kind == DEDUPE_COMPRESS_LZ4)
		n = LZ4_compress_default(p, out, (int)len,
					 LZ4_compressBound((int)len));
	else if (c->kind == DEDUPE_COMPRESS_ZSTD)
		n = zstd_size(p, len, out, zctx);
	/* An array stores a block that does not shrink (enough) as it is. */
	if (n <= 0 || n >= (long)len)
		return len;
	if (c->keep == DEDUPE_KEEP_HALF && (uint64_t)n * 2 > len)
		return len;
	return (uint32_t)n;
}
