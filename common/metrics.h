/* The Prometheus text exposition of a mounted array's counters (version
 * 0.0.4 of the format, what every Prometheus scrapes).
 *
 *   arraysim_ops_total{op}             counter  requests completed
 *   arraysim_op_errors_total{op}       counter  of those, failed
 *   arraysim_bytes_total{op}           counter  payload of reads and writes
 *   arraysim_op_latency_seconds{op}    histogram (read, write, fsync)
 *   the dedupe counters of common/counters.h, in its prom_rank order:
 *   arraysim_logical_written_bytes_total, arraysim_duplicate_blocks_total,
 *   arraysim_unique_block_writes_total, arraysim_zero_blocks_total,
 *   arraysim_verify_mismatches_total, arraysim_checksum_errors_total,
 *   arraysim_blocks_freed_total, arraysim_lost_reads_total,
 *   arraysim_repaired_reads_total, arraysim_meta_checksum_errors_total
 *                                      counters of the data path
 *   arraysim_dedupe_ratio, arraysim_unique_blocks, arraysim_live_blocks,
 *   arraysim_logical_bytes, arraysim_physical_bytes,
 *   arraysim_faults_active, arraysim_power_lost,
 *   arraysim_cache_*                   gauges (cache: hybrid profiles)
 *
 * The array model's series (per tier, controller, path, drive; timed
 * profiles only) are tiers/array_metrics.c's; replication's
 * (arraysim_replication_*, with --replicate-to) replication/figures.c's.
 *
 * Histogram buckets are the boundaries in metrics.c, filled from the
 * daemon's log-linear histograms: a bucket of those counts under the first
 * boundary at or above its end, so counts are exact at the boundaries'
 * resolution of 12.5%, and _sum adds each bucket's midpoint (within 6.25%).
 */
#ifndef ARRAYSIM_COMMON_METRICS_H
#define ARRAYSIM_COMMON_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/stats.h"

/* What the exposition reads besides the counters; filled by the caller. */
struct metrics_state {
	struct stats_gauges g;
	unsigned faults_active;
	bool power_lost;
	bool has_cache; /* a hybrid profile: the cache_* gauges apply */
	uint64_t cache_blocks, cache_dirty_blocks;
	uint64_t cache_hits, cache_misses, cache_destaged;
};

void metrics_write(FILE *out, const struct stats *s,
		   const struct metrics_state *st);
/* # HELP and # TYPE lines of metric @name. */
void metrics_header(FILE *out, const char *name, const char *type,
		    const char *help);
/* Histogram @name (seconds) of @h: _bucket series at the boundaries of
 * metrics.c, _sum and _count, each with @labels ("tier=\"cache\"", or
 * "") before le. The # TYPE line is the caller's. */
void metrics_histogram(FILE *out, const char *name, const char *labels,
		       const struct latency_hist *h);

#endif
