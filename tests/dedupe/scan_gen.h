/* A tree of files with known duplication, and its expected dedupe-scan
 * figures, worked out without hashing.
 *
 * Files are made of 4 KiB "atoms": atom id 0 is zeros (written, or a
 * hole), any other id is 4096 bytes that depend on the id only and are
 * never 0; a file's last atom may be short (its first len bytes). A block
 * of B bytes is then the tuple of the B/4096 atoms it covers, short atoms
 * and the zeros past the end of the file included, so two blocks have the
 * same bytes exactly when they have the same tuple. The expected counts
 * come from sorting tuples, not from SHA-1, so they check the scan rather
 * than repeat it.
 */
#ifndef ARRAYSIM_TESTS_SCAN_GEN_H
#define ARRAYSIM_TESTS_SCAN_GEN_H

#include <stdbool.h>
#include <stdint.h>

#include "dedupe/scan.h"

#define GEN_ATOM 4096u

struct gen_expect {
	uint32_t block_size;
	uint64_t files, logical_bytes;
	uint64_t blocks, zero_blocks, data_blocks, unique_blocks;
	uint64_t hist_blocks[SCAN_HIST_ROWS], hist_refs[SCAN_HIST_ROWS];
};

struct gen_opts {
	bool unreadable; /* add a mode-000 file (scan it as a non-root uid) */
	bool special;	 /* add a FIFO */
};

/* Write the tree under @root (an existing empty directory) and fill
 * @exp[i] for the block sizes @bs[i] (multiples of 4096). 0 or -errno. */
int gen_tree(const char *root, const struct gen_opts *o, const uint32_t *bs,
	     int nbs, struct gen_expect *exp);

/* Names gen_tree gives its skipped entries, relative to the root. */
#define GEN_UNREADABLE "secret.bin"

#endif
