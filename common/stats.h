/* Live counters of a mounted array: per-op counts and latency histograms,
 * and the dedupe counters of the data path.
 *
 * Everything here is updated with relaxed atomics from any FUSE worker and
 * read without locks by the control socket, so a snapshot is not one
 * instant but every counter in it is exact for some instant.
 *
 * Latency histogram: log-linear buckets (8 sub-buckets per power of two of
 * nanoseconds), so a percentile is exact to within 12.5%: good enough for
 * p50/p99/p99.9, and a fixed 512 bytes a histogram whatever the run length.
 */
#ifndef ARRAYSIM_COMMON_STATS_H
#define ARRAYSIM_COMMON_STATS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/counters.h"

enum stats_op {
	STATS_OP_LOOKUP,
	STATS_OP_GETATTR,
	STATS_OP_SETATTR,
	STATS_OP_CREATE,
	STATS_OP_MKDIR,
	STATS_OP_UNLINK,
	STATS_OP_RMDIR,
	STATS_OP_RENAME,
	STATS_OP_LINK,
	STATS_OP_SYMLINK,
	STATS_OP_OPEN,
	STATS_OP_READ,
	STATS_OP_WRITE,
	STATS_OP_FSYNC,
	STATS_OP_FALLOCATE,
	STATS_OP_READDIR,
	STATS_OP_XATTR,
	STATS_OP_STATFS,
	STATS_OP_OTHER,
	STATS_OP_COUNT
};

#define LATENCY_HIST_SUB 8
#define LATENCY_HIST_BUCKETS (64 * LATENCY_HIST_SUB)

struct latency_hist {
	_Atomic uint64_t bucket[LATENCY_HIST_BUCKETS]; /* counts by latency */
	/* Exact: a mean from bucket midpoints is off by up to a bucket's
	 * width (9%), too coarse to tell a model's latency from the host's. */
	_Atomic uint64_t sum_ns;
};

struct op_stats {
	_Atomic uint64_t count;	 /* completed requests */
	_Atomic uint64_t errors; /* of those, replied with an error */
	_Atomic uint64_t bytes;	 /* payload bytes (read/write only) */
	struct latency_hist latency;
};

/* Data-path counters, one member a row of common/counters.h; gauges (held,
 * unique) come from the metadata store. */
struct dedupe_stats {
#define STATS_MEMBER_(field, ...) _Atomic uint64_t field;
	DEDUPE_COUNTERS(STATS_MEMBER_)
#undef STATS_MEMBER_
};

/* A row of common/counters.h, with where its member lies. */
struct counter_def {
	const char *name;	  /* member and output key */
	size_t offset;		  /* of the member in struct dedupe_stats */
	enum counter_group group; /* section of `stats` output */
	unsigned prom_rank;	  /* place in Prometheus output, 0 = none */
	const char *prom_name;	  /* series name, without prefix/suffix */
	bool sampled;		  /* in the per-second samples */
	const char *help;	  /* what it counts */
};

/* Every dedupe counter, in common/counters.h order. */
extern const struct counter_def dedupe_counter_defs[DEDUPE_COUNTER_COUNT];

/* The counter of row @i of dedupe_counter_defs, a relaxed load. */
uint64_t dedupe_stats_get(const struct dedupe_stats *d, unsigned i);
/* Add every counter of @delta (a transaction's private tally) to @into,
 * each with a relaxed atomic add. */
void dedupe_stats_add(struct dedupe_stats *into,
		      const struct dedupe_stats *delta);

struct stats {
	struct op_stats op[STATS_OP_COUNT];
	struct dedupe_stats dedupe;
};

/* Name of an op as it appears in stats output ("read", "write", ...). */
const char *stats_op_name(enum stats_op op);
/* Record one completed request of @op that took @ns and returned @err
 * (0 or a positive errno), moving @bytes of payload. */
void stats_op_record(struct stats *s, enum stats_op op, uint64_t ns, int err,
		     uint64_t bytes);
void latency_hist_add(struct latency_hist *h, uint64_t ns);
/* The @p-th percentile (0 < p <= 100) in ns; 0 if the histogram is empty. */
uint64_t latency_hist_percentile(const struct latency_hist *h, double p);
uint64_t latency_hist_count(const struct latency_hist *h);
/* Mean latency (ns) of what @h recorded; 0 when empty. */
uint64_t latency_hist_mean(const struct latency_hist *h);
/* Bucket @idx holds latencies in [previous end, end): its end (ns) and the
 * value it stands for (its midpoint), for exporting the histogram. */
uint64_t latency_hist_bucket_end(unsigned idx);
uint64_t latency_hist_bucket_mid(unsigned idx);
/* Zero every counter (the `stats reset` control command). */
void stats_reset(struct stats *s);
/* Monotonic clock in ns: clock_mono_ns() (common/clock.h), kept for the
 * callers in fs/, tiers/ and their tests. */
uint64_t stats_now_ns(void);

/* Figures that come from the metadata store and the host, not counters. */
struct stats_gauges {
	uint64_t logical_bytes_held;  /* sum of regular file sizes */
	uint64_t live_blocks;	      /* non-hole logical blocks, all files */
	uint64_t unique_blocks;	      /* physical blocks stored (refs > 0) */
	uint64_t physical_bytes_used; /* unique_blocks * BLOCK_BYTES */
	uint64_t store_bytes_on_disk; /* chunk files, as the host counts */
	uint64_t meta_bytes_on_disk;  /* the metadata store, likewise */
	uint64_t seed;		      /* the --seed of this mount */
	int dedupe_verify;	      /* 1: verify-on-match, 0: trust SHA-1 */
	/* What a compressing array would store: the unique blocks at their
	 * compressed sizes (whole when not measured); the profile's
	 * [dedupe] compression and compression_keep (NULL: none, any). */
	uint64_t compressed_bytes;
	const char *compression, *compression_keep;
	/* What is emulated: the profile (name or file), its rate and fault
	 * time scales; the version is this build's. */
	const char *profile;
	double scale, time_scale;
};

/* Data reduction as an array reports it: logical (non-zero) blocks,
 * after dedupe (unique blocks), after compression, and the ratios of each
 * step and of both (1.0 when nothing is stored). */
struct stats_reduction {
	uint64_t logical_bytes, after_dedupe_bytes, after_compression_bytes;
	double dedupe_ratio, compression_ratio, data_reduction_ratio;
};
void stats_reduction_of(const struct stats_gauges *g,
			struct stats_reduction *out);

/* Print everything `arraysim stats` shows: human-readable text, or one
 * JSON object when @json. Dedupe ratio = live_blocks / unique_blocks
 * (1.0 when nothing is stored); zero blocks are reported apart. */
void stats_print(FILE *out, const struct stats *s, const struct stats_gauges *g,
		 bool json);

#endif
