/* The backing store: where the bytes of every unique 4 KiB block live.
 *
 * Physical block n (pblk, n >= 1) sits in STORE/data/chunk-NNNNNN at offset
 * (n % BACKING_CHUNK_BLOCKS) * BLOCK_BYTES, chunk file n /
 * BACKING_CHUNK_BLOCKS. Chunk files are created on first use and grow sparse; a
 * block never written reads as zeros. I/O goes through io_uring, one ring per
 * calling thread, with physically adjacent blocks of one call coalesced into
 * one readv/writev.
 *
 * All I/O reaches the store through struct backing_ops: the data path
 * and fsck call only dev.ops. tests/tiers/t_backing.c substitutes it (an
 * in-memory store, and a wrapper failing the Nth call, over either), and
 * test_backing_ops checks both against the same contract; faults/ does
 * not wrap it (its kinds act above, in the data path).
 */
#ifndef ARRAYSIM_TIERS_BACKING_H
#define ARRAYSIM_TIERS_BACKING_H

#include <stdint.h>
#include <stddef.h>

#include "common/block.h"

#define BACKING_CHUNK_BLOCKS (256u * 1024u) /* 1 GiB chunk files */

/* One 4 KiB block transfer. */
struct backing_io {
	uint64_t pblk; /* physical block number, >= 1 */
	void *buf;     /* BLOCK_BYTES bytes */
};

struct backing_ops {
	/* Transfer @n blocks; all or nothing as far as the caller is
	 * concerned: 0 when every block moved, else -errno of the first
	 * failure (-EIO, -ENOSPC, ...). */
	int (*read)(void *ctx, const struct backing_io *ios, unsigned n);
	int (*write)(void *ctx, const struct backing_io *ios, unsigned n);
	/* Make every completed write durable (fdatasync of chunk files
	 * written since the last sync). 0 or -errno. */
	int (*sync)(void *ctx);
};

struct backing_dev {
	const struct backing_ops *ops;
	void *ctx;
};

struct backing;

/* Open STORE/data (created if missing). 0 or -errno with a one-line
 * reason in @err. */
int backing_open(const char *store_dir, struct backing **out, char *err,
		 size_t errlen);
/* Closes every chunk file; NULL is a no-op. Rings of other threads are
 * released as those threads exit. */
void backing_close(struct backing *b);
/* The device view of @b: ops + ctx for the data path. */
struct backing_dev backing_dev(struct backing *b);
/* Bytes the chunk files occupy on the host (st_blocks * 512). */
uint64_t backing_bytes_on_disk(struct backing *b);

#endif
