/* Per-second samples of a mounted array, one JSON object a line in
 * STORE/samples.jsonl, so that a run can be lined up against the
 * workload's own log and the event log (faults/events.h), and charted.
 *
 *   {"ts":"2026-11-30T07:15:01.000123Z","t":1.000,"interval_s":1.000,
 *    "read_iops":..,"write_iops":..,"read_mbps":..,"write_mbps":..,
 *    "read_p50_us":..,"read_p99_us":..,"write_p50_us":..,"write_p99_us":..,
 *    "other_ops":..,"errors":..,"checksum_errors":..,"dedupe_ratio":..,
 *    "unique_blocks":..,"logical_bytes_held":..,"faults_active":..,
 *    "power":"on"|"lost", ...the array model's, tiers/array_samples.h,
 *    ...replication's repl_* when replicating, replication/repl.h}
 *
 * Rates and percentiles are of the interval since the previous sample
 * (histograms are differenced bucket by bucket); gauges are as of the
 * sample. t is seconds since the sampler started, on the monotonic clock.
 */
#ifndef ARRAYSIM_COMMON_SAMPLES_H
#define ARRAYSIM_COMMON_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/stats.h"

/* What a sample reads besides the counters; filled by the caller. */
struct sample_state {
	struct stats_gauges g;
	unsigned faults_active;
	bool power_lost;
	/* More members for the line (",\"key\":value..."), or NULL: the
	 * array model's (tiers/array_samples.h). Called on the sampler's
	 * thread with the interval's length in seconds. */
	void (*extra)(void *ctx, FILE *out, double interval_s);
	void *extra_ctx;
};

/* Fills @out; the sample's time is read when it returns, so whatever
 * state it gathers (a snapshot behind a lock) belongs here, not in extra. */
typedef void (*sample_state_fn)(void *ctx, struct sample_state *out);

struct sampler;

/* Append to @path every @period_ns (a thread of its own), reading @s and
 * asking @fn for the rest. 0 or -errno. */
int sampler_start(const char *path, uint64_t period_ns, const struct stats *s,
		  sample_state_fn fn, void *ctx, struct sampler **out);
/* Take a last sample, stop, close. NULL is a no-op. */
void sampler_stop(struct sampler *sp);

/* One sample line from the counters now and the previous snapshot
 * (@prev is updated); exposed for tests. @now_ns: monotonic time. */
struct sample_prev {
	uint64_t t_ns;
	uint64_t count[2], bytes[2], errors, other;
	uint64_t dedupe[DEDUPE_COUNTER_COUNT]; /* the sampled counters */
	struct latency_hist hist[2];	       /* read, write */
};
/* The interval's histogram: @now minus @prev, bucket by bucket, into
 * @out; @prev becomes @now. */
void sample_interval_hist(const struct latency_hist *now,
			  struct latency_hist *prev, struct latency_hist *out);
void sample_write(FILE *out, const struct stats *s,
		  const struct sample_state *st, struct sample_prev *prev,
		  uint64_t start_ns, uint64_t now_ns);

#endif
