/* The fingerprint index of dedupe-scan: SHA-1 -> reference count, in
 * memory, shared by the scan threads.
 *
 * 256 shards (by sha1[0]), each an open-addressing table of 28-byte
 * entries behind its own mutex: with a few threads the lock is uncontended
 * and costs far less than the SHA-1 of the block that precedes it.
 *
 * Memory bound (--max-memory): when a shard would grow past its share of
 * the bound, the index turns to hash sampling. A fingerprint is kept when
 * the top `shift` bits of sha1[12..20) are zero; the shift only goes up,
 * and each shard drops the entries the new shift no longer keeps. As the
 * thresholds nest, every kept fingerprint was kept from its first
 * occurrence, so its reference count is exact, and the kept set is a
 * Bernoulli(2^-shift) sample of the distinct fingerprints whatever the
 * scan order: unique blocks are estimated as kept << shift.
 */
#ifndef ARRAYSIM_DEDUPE_SCAN_INDEX_H
#define ARRAYSIM_DEDUPE_SCAN_INDEX_H

#include <stdint.h>

#include "dedupe/fingerprint.h"

#define SCAN_HIST_ROWS 33 /* refcount buckets 1, 2-3, 4-7, ... 2^32 */

struct scan_entry {
	uint8_t sha1[FINGERPRINT_SHA1_LEN];
	uint32_t refs;	/* 0: empty slot */
	uint32_t csize; /* compressed size of the block, 0 if not measured */
};

/* Bytes of one slot; the table is kept between 3/8 and 3/4 full. */
#define SCAN_ENTRY_BYTES ((uint64_t)sizeof(struct scan_entry))

enum scan_add {
	SCAN_ADD_NEW = 1,	/* first occurrence (kept in the sample) */
	SCAN_ADD_DUP = 2,	/* seen before */
	SCAN_ADD_UNSAMPLED = 3, /* not in the sample: counted nowhere */
};

struct scan_index;

/* @max_bytes bounds the tables (0: no bound). NULL on ENOMEM, or when the
 * bound is below scan_index_min_bytes(). */
struct scan_index *scan_index_new(uint64_t max_bytes);
uint64_t scan_index_min_bytes(void);
void scan_index_free(struct scan_index *ix);
/* Count one occurrence of @sha1: enum scan_add, or -ENOMEM. */
int scan_index_add(struct scan_index *ix, const uint8_t *sha1);
/* Record the compressed size of a block scan_index_add called new. */
void scan_index_set_csize(struct scan_index *ix, const uint8_t *sha1,
			  uint32_t csize);

/* One refcount bucket: refs in [2^i, 2^(i+1)). */
struct scan_hist_row {
	uint64_t blocks;    /* distinct blocks (allocated) */
	uint64_t refs;	    /* references to them (referenced blocks) */
	uint64_t csize;	    /* compressed bytes allocated */
	uint64_t ref_csize; /* compressed bytes referenced */
};

struct scan_index_summary {
	unsigned shift;	     /* 1 in 2^shift fingerprints kept */
	uint64_t kept;	     /* distinct fingerprints in the index */
	uint64_t csize;	     /* their compressed bytes */
	uint64_t peak_bytes; /* largest the tables were together */
	struct scan_hist_row hist[SCAN_HIST_ROWS]; /* unscaled: the sample */
};

/* Apply the final shift everywhere and sum up. Call when no thread adds. */
void scan_index_summarize(struct scan_index *ix, struct scan_index_summary *s);

#endif
