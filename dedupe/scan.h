/* dedupe-scan: what inline dedupe (and compression) would save on a tree
 * of files, measured with the chunking and SHA-1 code the filesystem uses.
 *
 * One walker thread lists the paths (no symlinks followed, hard links
 * counted once, special files skipped, one file system unless asked) and
 * queues files, cut into units of at most 64 MiB; worker threads read the
 * units in aligned 128 KiB chunks through io_uring, several reads in
 * flight each (read-ahead), and cut every chunk into aligned blocks at every
 * requested block size in that one pass.
 *
 * Definitions are the filesystem's (arraysim stats), at each block size:
 *   blocks       ceil(size / block size), summed over files
 *   zero blocks  all-zero blocks, holes included; never hashed
 *   data blocks  blocks - zero blocks (the fs's live blocks at 4 KiB)
 *   unique       distinct SHA-1 among data blocks
 *   dedupe ratio data blocks / unique
 * A file's short tail is a whole block whose end is zeros, as the fs stores
 * it; so a tail's SHA-1 is of the zero-padded block.
 */
#ifndef ARRAYSIM_DEDUPE_SCAN_H
#define ARRAYSIM_DEDUPE_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dedupe/compress.h"
#include "dedupe/scan_index.h"

#define SCAN_MAX_SIZES 8
#define SCAN_MIN_BLOCK 512u
#define SCAN_MAX_BLOCK (1u << 20)
#define SCAN_UNREADABLE_LISTED 1000 /* paths kept; the count is exact */

/* The values of enum dedupe_compress (dedupe/compress.h). */
enum scan_compress {
	SCAN_COMPRESS_NONE = DEDUPE_COMPRESS_NONE,
	SCAN_COMPRESS_LZ4 = DEDUPE_COMPRESS_LZ4,
	SCAN_COMPRESS_ZSTD = DEDUPE_COMPRESS_ZSTD,
};

struct scan_progress {
	uint64_t bytes_done;  /* read and fingerprinted */
	uint64_t bytes_found; /* file sizes the walk found so far */
	uint64_t files_found;
	bool walk_done;
	bool finished; /* the last call */
	double seconds;
};

struct scan_config {
	const char *const *paths;
	int npaths;
	uint32_t block_size[SCAN_MAX_SIZES]; /* powers of two, ascending */
	int nsizes;
	int threads;	     /* workers; 0: online cores */
	uint64_t max_memory; /* bound of the indexes, shared evenly by the
			      * block sizes; 0: none */
	enum scan_compress compress;
	enum dedupe_keep keep; /* which compressed blocks count compressed */
	bool cross_mounts;     /* descend into other file systems */
	uint64_t unit_bytes;   /* 0: 64 MiB; tests make it small */
	bool no_uring; /* read with pread, as when io_uring is refused */
	/* Called about twice a second from its own thread, and once at the
	 * end with walk_done and every byte done. */
	void (*progress)(const struct scan_progress *p, void *ctx);
	void *progress_ctx;
};

/* A directory holding files, or a file name extension. */
struct scan_group {
	char *name;
	uint64_t blocks[SCAN_MAX_SIZES]; /* data blocks in its files */
	uint64_t dup[SCAN_MAX_SIZES];	 /* of those, found already indexed */
};

struct scan_size_result {
	uint32_t block_size;
	uint64_t blocks, zero_blocks, data_blocks;
	uint64_t unique_blocks;	   /* exact, or kept << shift if sampled */
	unsigned sample_shift;	   /* 0: every fingerprint kept */
	uint64_t sampled_unique;   /* fingerprints kept */
	double unique_err95;	   /* relative 95% bound of unique; 0 exact */
	uint64_t compressed_bytes; /* of the unique blocks (scaled) */
	uint64_t index_peak_bytes; /* this scan's index, at its largest */
	struct scan_hist_row hist[SCAN_HIST_ROWS]; /* scaled by 2^shift */
};

struct scan_result {
	uint64_t files, dirs, logical_bytes;
	uint64_t hard_links, symlinks, special, other_fs, changed;
	uint64_t unreadable; /* files and directories that could not be read */
	char **unreadable_paths;
	size_t n_unreadable_paths;
	int threads;
	double seconds;
	int nsizes;
	struct scan_size_result size[SCAN_MAX_SIZES];
	struct scan_group *dirs_g, *exts;
	size_t n_dirs_g, n_exts;
};

/* Parse "4K,8K,16K" into ascending distinct powers of two within
 * [SCAN_MIN_BLOCK, SCAN_MAX_BLOCK]. 0, or -EINVAL. */
int scan_parse_block_sizes(const char *s, uint32_t out[SCAN_MAX_SIZES], int *n);

/* Scan; 0, or a negative errno when it could not run at all (a path that
 * does not exist, no memory, io_uring refused). Unreadable files do not
 * fail the scan: they are counted and listed in @res. */
int scan_run(const struct scan_config *cfg, struct scan_result *res);
void scan_result_free(struct scan_result *res);

#endif
