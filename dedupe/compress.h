/* What a compressing array stores for one block: the one compression
 * function both the mount (dedupe.c, each unique block as it is stored)
 * and dedupe-scan (scan.c) use, so that their figures agree byte for
 * byte on the same data.
 *
 * The kept size is the compressed size when the block is kept compressed,
 * else the block's own size: LZ4 at its default (acceleration 1), zstd at
 * level 1 (arrays compress inline: the fast end); a block is kept
 * compressed when it shrinks at all (DEDUPE_KEEP_ANY) or, vSAN's rule,
 * only when it shrinks to half or less (DEDUPE_KEEP_HALF).
 */
#ifndef ARRAYSIM_DEDUPE_COMPRESS_H
#define ARRAYSIM_DEDUPE_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

/* Values as the profile's enum profile_compress and _keep (checked in
 * compress.c), and dedupe-scan's enum scan_compress. */
enum dedupe_compress {
	DEDUPE_COMPRESS_NONE,
	DEDUPE_COMPRESS_LZ4,
	DEDUPE_COMPRESS_ZSTD,
};
enum dedupe_keep { DEDUPE_KEEP_ANY, DEDUPE_KEEP_HALF };

struct dedupe_compression {
	enum dedupe_compress kind;
	enum dedupe_keep keep;
};

/* Room for the compressed form of @len bytes, for either compressor. */
size_t dedupe_compress_bound(uint32_t len);

/* The bytes a compressing array stores for @len bytes at @p (@len at most
 * INT32_MAX): in 1..@len, @len when @c's kind is none or the block is not
 * kept compressed. @out: dedupe_compress_bound(@len) bytes of scratch;
 * @zctx: a ZSTD_CCtx to reuse, or NULL (the calling thread's own). */
uint32_t dedupe_compressed_size(const struct dedupe_compression *c,
				const void *p, uint32_t len, void *out,
				void *zctx);

#endif
