/* Prometheus text exposition; see common/metrics.h. */
#include "common/metrics.h"

#include <stddef.h>

#include "common/block.h"

/* Histogram boundaries in seconds: 1-2.5-5 per decade, 10 us to 10 s. */
static const double bounds[] = {
    10e-6, 25e-6, 50e-6,  100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3,
    25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1,	  2.5,	5,	10,
};
#define NBOUNDS (sizeof(bounds) / sizeof(bounds[0]))

static uint64_t load(const _Atomic uint64_t *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

void metrics_header(FILE *out, const char *name, const char *type,
		    const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Counter @name by op: the member at @field of each struct op_stats. */
static void by_op(FILE *out, const struct stats *s, const char *name,
		  const char *help, size_t field)
{
	metrics_header(out, name, "counter", help);
	for (int op = 0; op < STATS_OP_COUNT; op++) {
		const _Atomic uint64_t *v =
		    (const void *)((const char *)&s->op[op] + field);
		fprintf(out, "%s{op=\"%s\"} %llu\n", name, stats_op_name(op),
			(unsigned long long)load(v));
	}
}

static void per_op_counters(FILE *out, const struct stats *s)
{
	by_op(out, s, "arraysim_ops_total", "Requests completed, by operation.",
	      offsetof(struct op_stats, count));
	by_op(out, s, "arraysim_op_errors_total",
	      "Requests answered with an error, by operation.",
	      offsetof(struct op_stats, errors));
	metrics_header(out, "arraysim_bytes_total", "counter",
		       "Payload bytes of reads and writes.");
	static const enum stats_op rw[] = {STATS_OP_READ, STATS_OP_WRITE};
	for (int i = 0; i < 2; i++)
		fprintf(out, "arraysim_bytes_total{op=\"%s\"} %llu\n",
			stats_op_name(rw[i]),
			(unsigned long long)load(&s->op[rw[i]].bytes));
}

/* One series of boundaries: @name_bucket{@labels,le="@le"} @n. */
static void bucket(FILE *out, const char *name, const char *labels,
		   const char *le, uint64_t n)
{
	fprintf(out, "%s_bucket{%s%sle=\"%s\"} %llu\n", name, labels,
		*labels ? "," : "", le, (unsigned long long)n);
}

void metrics_histogram(FILE *out, const char *name, const char *labels,
		       const struct latency_hist *h)
{
	uint64_t cum = 0;
	unsigned b = 0;
	char le[32];
	for (unsigned i = 0; i < LATENCY_HIST_BUCKETS; i++) {
		uint64_t n = load(&h->bucket[i]);
		if (!n)
			continue;
		double end_s = (double)latency_hist_bucket_end(i) / 1e9;
		/* Close the boundaries this bucket lies beyond first. */
		for (; b < NBOUNDS && bounds[b] < end_s; b++) {
			snprintf(le, sizeof(le), "%g", bounds[b]);
			bucket(out, name, labels, le, cum);
		}
		cum += n;
	}
	for (; b < NBOUNDS; b++) {
		snprintf(le, sizeof(le), "%g", bounds[b]);
		bucket(out, name, labels, le, cum);
	}
	bucket(out, name, labels, "+Inf", cum);
	fprintf(out, "%s_sum{%s} %.9f\n%s_count{%s} %llu\n", name, labels,
		(double)load(&h->sum_ns) / 1e9, name, labels,
		(unsigned long long)cum);
}

static void counter_u64(FILE *out, const char *name, const char *help,
			uint64_t v)
{
	metrics_header(out, name, "counter", help);
	fprintf(out, "%s %llu\n", name, (unsigned long long)v);
}

static void gauge(FILE *out, const char *name, const char *help, double v)
{
	metrics_header(out, name, "gauge", help);
	fprintf(out, "%s %.17g\n", name, v);
}

/* The exported dedupe counters, in their prom_rank order (see
 * common/counters.h). */
static void dedupe_counters(FILE *out, const struct dedupe_stats *d)
{
	char name[96];

	for (unsigned rank = 1; rank <= DEDUPE_COUNTER_COUNT; rank++)
		for (unsigned i = 0; i < DEDUPE_COUNTER_COUNT; i++) {
			const struct counter_def *c = &dedupe_counter_defs[i];

			if (c->prom_rank != rank)
				continue;
			snprintf(name, sizeof(name), "arraysim_%s_total",
				 c->prom_name);
			counter_u64(out, name, c->help, dedupe_stats_get(d, i));
		}
}

/* Data reduction: what a compressing array would store. */
static void reduction_gauges(FILE *out, const struct stats_gauges *g)
{
	struct stats_reduction r;
	stats_reduction_of(g, &r);
	gauge(out, "arraysim_logical_data_bytes",
	      "Bytes of the non-zero logical blocks over all files.",
	      (double)r.logical_bytes);
	gauge(out, "arraysim_after_dedupe_bytes",
	      "Bytes a deduplicating array stores: the unique blocks.",
	      (double)r.after_dedupe_bytes);
	gauge(out, "arraysim_after_compression_bytes",
	      "Bytes a compressing array would store: the unique blocks at "
	      "their compressed sizes.",
	      (double)r.after_compression_bytes);
	gauge(out, "arraysim_compression_ratio",
	      "Unique block bytes per byte after compression.",
	      r.compression_ratio);
	gauge(out, "arraysim_data_reduction_ratio",
	      "Logical data bytes per byte after dedupe and compression.",
	      r.data_reduction_ratio);
}

static void gauges(FILE *out, const struct metrics_state *st)
{
	const struct stats_gauges *g = &st->g;
	reduction_gauges(out, g);
	gauge(out, "arraysim_dedupe_ratio",
	      "Live non-zero logical blocks per unique stored block.",
	      g->unique_blocks
		  ? (double)g->live_blocks / (double)g->unique_blocks
		  : 1.0);
	gauge(out, "arraysim_unique_blocks", "Unique 4 KiB blocks stored.",
	      (double)g->unique_blocks);
	gauge(out, "arraysim_live_blocks",
	      "Non-hole 4 KiB logical blocks over all files.",
	      (double)g->live_blocks);
	gauge(out, "arraysim_logical_bytes", "Sum of the file sizes.",
	      (double)g->logical_bytes_held);
	gauge(out, "arraysim_physical_bytes", "Bytes of unique blocks stored.",
	      (double)g->physical_bytes_used);
	gauge(out, "arraysim_faults_active", "Fault rules active now.",
	      (double)st->faults_active);
	gauge(out, "arraysim_power_lost",
	      "1 after an injected power loss, until the unmount.",
	      st->power_lost ? 1 : 0);
}

static void cache_gauges(FILE *out, const struct metrics_state *st)
{
	gauge(out, "arraysim_cache_resident_blocks",
	      "Blocks resident in the flash cache tier.",
	      (double)st->cache_blocks);
	gauge(out, "arraysim_cache_dirty_blocks",
	      "Cache blocks not destaged to the backing tier yet.",
	      (double)st->cache_dirty_blocks);
	metrics_header(out, "arraysim_cache_lookups_total", "counter",
		       "Flash cache lookups of reads, by result.");
	fprintf(out, "arraysim_cache_lookups_total{result=\"hit\"} %llu\n",
		(unsigned long long)st->cache_hits);
	fprintf(out, "arraysim_cache_lookups_total{result=\"miss\"} %llu\n",
		(unsigned long long)st->cache_misses);
	gauge(out, "arraysim_cache_resident_bytes",
	      "Bytes resident in the flash cache tier (4 KiB blocks).",
	      (double)st->cache_blocks * BLOCK_BYTES);
	gauge(out, "arraysim_cache_dirty_bytes",
	      "Cache bytes not destaged to the backing tier yet.",
	      (double)st->cache_dirty_blocks * BLOCK_BYTES);
	counter_u64(out, "arraysim_cache_destaged_blocks_total",
		    "Dirty cache blocks written to the backing tier.",
		    st->cache_destaged);
}

void metrics_write(FILE *out, const struct stats *s,
		   const struct metrics_state *st)
{
	per_op_counters(out, s);
	metrics_header(
	    out, "arraysim_op_latency_seconds", "histogram",
	    "Latency of requests as the host saw them, by operation.");
	static const enum stats_op timed[] = {STATS_OP_READ, STATS_OP_WRITE,
					      STATS_OP_FSYNC};
	for (int i = 0; i < 3; i++) {
		char labels[32];
		snprintf(labels, sizeof(labels), "op=\"%s\"",
			 stats_op_name(timed[i]));
		metrics_histogram(out, "arraysim_op_latency_seconds", labels,
				  &s->op[timed[i]].latency);
	}
	dedupe_counters(out, &s->dedupe);
	gauges(out, st);
	if (st->has_cache)
		cache_gauges(out, st);
}
