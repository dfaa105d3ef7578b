/* Live counters and latency histograms.
 *
 * Latency histogram buckets (log-linear, 8 sub-buckets per power of two):
 *
 *   value v (ns)          index                         bucket holds
 *   --------------------  ----------------------------  ------------------
 *   0 <= v < 8            v                             exactly v
 *   v >= 8, msb=log2(v)   (msb-2)*8 + (v>>(msb-3) & 7)  [lo, lo + 2^(msb-3))
 *                                                       lo = (8+sub) << (msb-3)
 *
 * For msb = 3 the formula gives index v again, so indices 0..15 are the
 * values 0..15, and from there each bucket is 1/8 of its power of two wide
 * (12.5% of its lower bound at most). Index is monotonic in v and the
 * largest, for v = 2^64-1, is 61*8+7 = 495 < LATENCY_HIST_BUCKETS.
 *
 * A percentile is reported as the midpoint of the bucket it falls in
 * (lo + width/2), so it is within 6.25% of any value in that bucket.
 *
 * Every update is a relaxed atomic add: the counters are independent and a
 * reader needs each one exact, not a consistent cut across them.
 */
#include "common/stats.h"

#include <inttypes.h>
#include <string.h>

#include "common/block.h"
#include "common/clock.h"
#include "common/jsonl.h"
#include "common/units.h"

static const char *const stats_op_names[STATS_OP_COUNT] = {
    [STATS_OP_LOOKUP] = "lookup",	[STATS_OP_GETATTR] = "getattr",
    [STATS_OP_SETATTR] = "setattr",	[STATS_OP_CREATE] = "create",
    [STATS_OP_MKDIR] = "mkdir",		[STATS_OP_UNLINK] = "unlink",
    [STATS_OP_RMDIR] = "rmdir",		[STATS_OP_RENAME] = "rename",
    [STATS_OP_LINK] = "link",		[STATS_OP_SYMLINK] = "symlink",
    [STATS_OP_OPEN] = "open",		[STATS_OP_READ] = "read",
    [STATS_OP_WRITE] = "write",		[STATS_OP_FSYNC] = "fsync",
    [STATS_OP_FALLOCATE] = "fallocate", [STATS_OP_READDIR] = "readdir",
    [STATS_OP_XATTR] = "xattr",		[STATS_OP_STATFS] = "statfs",
    [STATS_OP_OTHER] = "other",
};

const char *stats_op_name(enum stats_op op)
{
	if ((unsigned)op >= STATS_OP_COUNT)
		return "unknown";
	return stats_op_names[op];
}

#define RELAXED memory_order_relaxed

static inline uint64_t stats_load(const _Atomic uint64_t *c)
{
	return atomic_load_explicit(c, RELAXED);
}

static inline void stats_add(_Atomic uint64_t *c, uint64_t v)
{
	atomic_fetch_add_explicit(c, v, RELAXED);
}

#define STATS_DEF_(f, grp, rank, prom, smp, hlp)                               \
	{.name = #f,                                                           \
	 .offset = offsetof(struct dedupe_stats, f),                           \
	 .group = grp,                                                         \
	 .prom_rank = rank,                                                    \
	 .prom_name = prom,                                                    \
	 .sampled = smp,                                                       \
	 .help = hlp},
const struct counter_def dedupe_counter_defs[DEDUPE_COUNTER_COUNT] = {
    DEDUPE_COUNTERS(STATS_DEF_)};
#undef STATS_DEF_

static _Atomic uint64_t *dedupe_counter(struct dedupe_stats *d, unsigned i)
{
	return (_Atomic uint64_t *)((char *)d + dedupe_counter_defs[i].offset);
}

uint64_t dedupe_stats_get(const struct dedupe_stats *d, unsigned i)
{
	return stats_load(dedupe_counter((struct dedupe_stats *)d, i));
}

void dedupe_stats_add(struct dedupe_stats *into,
		      const struct dedupe_stats *delta)
{
	for (unsigned i = 0; i < DEDUPE_COUNTER_COUNT; i++)
		stats_add(dedupe_counter(into, i), dedupe_stats_get(delta, i));
}

static unsigned latency_hist_index(uint64_t ns)
{
	unsigned msb, sub;

	if (ns < LATENCY_HIST_SUB)
		return (unsigned)ns;
	msb = 63u - (unsigned)__builtin_clzll(ns);
	sub = (unsigned)(ns >> (msb - 3)) & (LATENCY_HIST_SUB - 1);
	return (msb - 2) * LATENCY_HIST_SUB + sub;
}

/* The value a bucket stands for: its midpoint (see the note on top). */
uint64_t latency_hist_bucket_mid(unsigned idx)
{
	unsigned msb, sub;
	uint64_t width, lo;

	if (idx < 2 * LATENCY_HIST_SUB)
		return idx; /* buckets 0..15 hold one value each */
	msb = idx / LATENCY_HIST_SUB + 2;
	sub = idx % LATENCY_HIST_SUB;
	width = 1ULL << (msb - 3);
	lo = (uint64_t)(LATENCY_HIST_SUB + sub) << (msb - 3);
	return lo + width / 2;
}

uint64_t latency_hist_bucket_end(unsigned idx)
{
	if (idx < 2 * LATENCY_HIST_SUB)
		return idx + 1;
	unsigned msb = idx / LATENCY_HIST_SUB + 2, sub = idx % LATENCY_HIST_SUB;
	if (msb > 63 || (msb == 63 && sub == LATENCY_HIST_SUB - 1))
		return UINT64_MAX; /* past 2^64 ns: unreachable, or the last */
	return (uint64_t)(LATENCY_HIST_SUB + sub + 1) << (msb - 3);
}

void latency_hist_add(struct latency_hist *h, uint64_t ns)
{
	stats_add(&h->bucket[latency_hist_index(ns)], 1);
	stats_add(&h->sum_ns, ns);
}

uint64_t latency_hist_mean(const struct latency_hist *h)
{
	uint64_t n = latency_hist_count(h);

	return n ? stats_load(&h->sum_ns) / n : 0;
}

uint64_t latency_hist_count(const struct latency_hist *h)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < LATENCY_HIST_BUCKETS; i++)
		n += stats_load(&h->bucket[i]);
	return n;
}

uint64_t latency_hist_percentile(const struct latency_hist *h, double p)
{
	uint64_t counts[LATENCY_HIST_BUCKETS];
	uint64_t total = 0, rank, seen = 0;
	double r;

	/* One pass to copy, so a concurrent add cannot make the rank fall
	 * past the last non-empty bucket. */
	for (unsigned i = 0; i < LATENCY_HIST_BUCKETS; i++) {
		counts[i] = stats_load(&h->bucket[i]);
		total += counts[i];
	}
	if (!total)
		return 0;
	if (!(p > 0))
		p = 0;
	if (p > 100)
		p = 100;
	/* Nearest rank: the smallest value with at least p% at or below it.
	 * The epsilon keeps 99% of 1000 at rank 990, not 991. */
	r = p / 100.0 * (double)total - 1e-9;
	rank = r < 1 ? 1 : (uint64_t)r;
	if ((double)rank < r)
		rank++; /* ceil() without libm */
	if (rank > total)
		rank = total;
	for (unsigned i = 0; i < LATENCY_HIST_BUCKETS; i++) {
		seen += counts[i];
		if (seen >= rank)
			return latency_hist_bucket_mid(i);
	}
	return 0; /* not reached */
}

void stats_op_record(struct stats *s, enum stats_op op, uint64_t ns, int err,
		     uint64_t bytes)
{
	struct op_stats *o;

	if ((unsigned)op >= STATS_OP_COUNT)
		op = STATS_OP_OTHER;
	o = &s->op[op];
	stats_add(&o->count, 1);
	if (err)
		stats_add(&o->errors, 1);
	if (bytes)
		stats_add(&o->bytes, bytes);
	latency_hist_add(&o->latency, ns);
}

void stats_reset(struct stats *s)
{
	for (unsigned i = 0; i < STATS_OP_COUNT; i++) {
		struct op_stats *o = &s->op[i];

		atomic_store_explicit(&o->count, 0, RELAXED);
		atomic_store_explicit(&o->errors, 0, RELAXED);
		atomic_store_explicit(&o->bytes, 0, RELAXED);
		for (unsigned b = 0; b < LATENCY_HIST_BUCKETS; b++)
			atomic_store_explicit(&o->latency.bucket[b], 0,
					      RELAXED);
		atomic_store_explicit(&o->latency.sum_ns, 0, RELAXED);
	}
	for (unsigned i = 0; i < DEDUPE_COUNTER_COUNT; i++)
		atomic_store_explicit(dedupe_counter(&s->dedupe, i), 0,
				      RELAXED);
}

uint64_t stats_now_ns(void)
{
	return clock_mono_ns();
}

/* ---- stats_print ------------------------------------------------------ */

static void stats_print_size(FILE *out, const char *label, uint64_t bytes);

static double ratio(uint64_t before, uint64_t after)
{
	return after ? (double)before / (double)after : 1.0;
}

void stats_reduction_of(const struct stats_gauges *g,
			struct stats_reduction *out)
{
	out->logical_bytes = g->live_blocks * BLOCK_BYTES;
	out->after_dedupe_bytes = g->unique_blocks * BLOCK_BYTES;
	out->after_compression_bytes = g->compressed_bytes;
	out->dedupe_ratio = ratio(g->live_blocks, g->unique_blocks);
	out->compression_ratio =
	    ratio(out->after_dedupe_bytes, out->after_compression_bytes);
	out->data_reduction_ratio =
	    ratio(out->logical_bytes, out->after_compression_bytes);
}

static double stats_dedupe_ratio(const struct stats_gauges *g)
{
	return ratio(g->live_blocks, g->unique_blocks);
}

static const char *or_default(const char *s, const char *d)
{
	return s ? s : d;
}

static void stats_json_reduction(FILE *out, const struct stats_gauges *g)
{
	struct stats_reduction r;
	stats_reduction_of(g, &r);
	fprintf(out,
		",\"compression\":\"%s\",\"compression_keep\":\"%s\""
		",\"logical_data_bytes\":%" PRIu64
		",\"after_dedupe_bytes\":%" PRIu64
		",\"after_compression_bytes\":%" PRIu64
		",\"compression_ratio\":%.6f,\"data_reduction_ratio\":%.6f",
		or_default(g->compression, "none"),
		or_default(g->compression_keep, "any"), r.logical_bytes,
		r.after_dedupe_bytes, r.after_compression_bytes,
		r.compression_ratio, r.data_reduction_ratio);
}

/* The reduction section: what a compressing array would store (the
 * mount stores every block whole, see dedupe/README.md). */
static void stats_text_reduction(FILE *out, const struct stats_gauges *g)
{
	struct stats_reduction r;
	stats_reduction_of(g, &r);
	fprintf(out,
		"\ndata reduction (what a compressing array would store)\n");
	fprintf(out, "  %-22s %12s\n", "compression",
		or_default(g->compression, "none"));
	fprintf(out, "  %-22s %12s\n", "compression_keep",
		or_default(g->compression_keep, "any"));
	stats_print_size(out, "logical_data_bytes", r.logical_bytes);
	stats_print_size(out, "after_dedupe_bytes", r.after_dedupe_bytes);
	stats_print_size(out, "after_compression", r.after_compression_bytes);
	fprintf(out, "  %-22s %12.2f:1\n", "dedupe_ratio", r.dedupe_ratio);
	fprintf(out, "  %-22s %12.2f:1\n", "compression_ratio",
		r.compression_ratio);
	fprintf(out, "  %-22s %12.2f:1\n", "data_reduction_ratio",
		r.data_reduction_ratio);
}

static double ns_to_us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

/* The counters of @group as `"name":value` members of a JSON object. */
static void stats_json_counters(FILE *out, const struct dedupe_stats *d,
				enum counter_group group)
{
	for (unsigned i = 0; i < DEDUPE_COUNTER_COUNT; i++)
		if (dedupe_counter_defs[i].group == group)
			fprintf(out, ",\"%s\":%" PRIu64,
				dedupe_counter_defs[i].name,
				dedupe_stats_get(d, i));
}

/* The block counters of @group as text rows. */
static void stats_text_counters(FILE *out, const struct dedupe_stats *d,
				enum counter_group group)
{
	for (unsigned i = 0; i < DEDUPE_COUNTER_COUNT; i++)
		if (dedupe_counter_defs[i].group == group)
			fprintf(out, "  %-22s %12" PRIu64 "\n",
				dedupe_counter_defs[i].name,
				dedupe_stats_get(d, i));
}

static void stats_print_json(FILE *out, const struct stats *s,
			     const struct stats_gauges *g)
{
	const struct dedupe_stats *d = &s->dedupe;

	fputs("{\"profile\":", out);
	jsonl_escape(out, g->profile ? g->profile : "null");
	fprintf(out,
		",\"scale\":%g,\"time_scale\":%g,\"version\":\"%s\","
		"\"seed\":%" PRIu64 ",\"dedupe_verify\":%s",
		g->scale, g->time_scale, ARRAYSIM_VERSION, g->seed,
		g->dedupe_verify ? "true" : "false");
	stats_json_counters(out, d, COUNTER_CAPACITY);
	fprintf(out, ",\"logical_bytes_held\":%" PRIu64, g->logical_bytes_held);
	fprintf(out, ",\"physical_bytes_used\":%" PRIu64,
		g->physical_bytes_used);
	fprintf(out, ",\"store_bytes_on_disk\":%" PRIu64,
		g->store_bytes_on_disk);
	fprintf(out, ",\"meta_bytes_on_disk\":%" PRIu64, g->meta_bytes_on_disk);
	fprintf(out, ",\"live_blocks\":%" PRIu64, g->live_blocks);
	fprintf(out, ",\"unique_blocks\":%" PRIu64, g->unique_blocks);
	stats_json_counters(out, d, COUNTER_BLOCKS);
	fprintf(out, ",\"dedupe_ratio\":%.6f", stats_dedupe_ratio(g));
	stats_json_counters(out, d, COUNTER_CHECKS);
	stats_json_reduction(out, g);

	fputs(",\"ops\":{", out);
	for (unsigned i = 0; i < STATS_OP_COUNT; i++) {
		const struct op_stats *o = &s->op[i];

		fprintf(out,
			"%s\"%s\":{\"count\":%" PRIu64 ",\"errors\":%" PRIu64
			",\"bytes\":%" PRIu64 ",\"latency_us\":{\"mean\":%.3f"
			",\"p50\":%.3f,\"p99\":%.3f,\"p999\":%.3f}}",
			i ? "," : "", stats_op_name(i), stats_load(&o->count),
			stats_load(&o->errors), stats_load(&o->bytes),
			ns_to_us(latency_hist_mean(&o->latency)),
			ns_to_us(latency_hist_percentile(&o->latency, 50)),
			ns_to_us(latency_hist_percentile(&o->latency, 99)),
			ns_to_us(latency_hist_percentile(&o->latency, 99.9)));
	}
	fputs("}}\n", out);
}

static void stats_print_size(FILE *out, const char *label, uint64_t bytes)
{
	char buf[32];

	fprintf(out, "  %-22s %12s  (%" PRIu64 " bytes)\n", label,
		units_format_size(bytes, buf, sizeof(buf)), bytes);
}

static void stats_print_text(FILE *out, const struct stats *s,
			     const struct stats_gauges *g)
{
	bool any_op = false;

	fprintf(out, "array\n");
	fprintf(out, "  %-22s %12s\n", "profile",
		g->profile ? g->profile : "null");
	fprintf(out, "  %-22s %12g\n", "scale", g->scale);
	fprintf(out, "  %-22s %12g\n", "time_scale", g->time_scale);
	fprintf(out, "  %-22s %12s\n", "version", ARRAYSIM_VERSION);
	fprintf(out, "  %-22s %12" PRIu64 "\n", "seed", g->seed);
	fprintf(out, "  %-22s %12s\n", "dedupe_verify",
		g->dedupe_verify ? "on" : "off");

	fprintf(out, "\ncapacity\n");
	for (unsigned i = 0; i < DEDUPE_COUNTER_COUNT; i++)
		if (dedupe_counter_defs[i].group == COUNTER_CAPACITY)
			stats_print_size(out, dedupe_counter_defs[i].name,
					 dedupe_stats_get(&s->dedupe, i));
	stats_print_size(out, "logical_bytes_held", g->logical_bytes_held);
	stats_print_size(out, "physical_bytes_used", g->physical_bytes_used);
	stats_print_size(out, "store_bytes_on_disk", g->store_bytes_on_disk);
	stats_print_size(out, "meta_bytes_on_disk", g->meta_bytes_on_disk);

	fprintf(out, "\ndedupe\n");
	fprintf(out, "  %-22s %12" PRIu64 "\n", "live_blocks", g->live_blocks);
	fprintf(out, "  %-22s %12" PRIu64 "\n", "unique_blocks",
		g->unique_blocks);
	fprintf(out, "  %-22s %12.2f:1\n", "dedupe_ratio",
		stats_dedupe_ratio(g));
	stats_text_counters(out, &s->dedupe, COUNTER_BLOCKS);
	stats_text_counters(out, &s->dedupe, COUNTER_CHECKS);
	stats_text_reduction(out, g);

	fprintf(out, "\nops%*s %10s %8s %12s %12s %12s\n", 8, "", "count",
		"errors", "p50_us", "p99_us", "p99.9_us");
	for (unsigned i = 0; i < STATS_OP_COUNT; i++) {
		const struct op_stats *o = &s->op[i];
		uint64_t count = stats_load(&o->count);

		if (!count)
			continue;
		any_op = true;
		fprintf(out,
			"  %-9s %10" PRIu64 " %8" PRIu64
			" %12.1f %12.1f %12.1f\n",
			stats_op_name(i), count, stats_load(&o->errors),
			ns_to_us(latency_hist_percentile(&o->latency, 50)),
			ns_to_us(latency_hist_percentile(&o->latency, 99)),
			ns_to_us(latency_hist_percentile(&o->latency, 99.9)));
	}
	if (!any_op)
		fprintf(out, "  (none yet)\n");
}

void stats_print(FILE *out, const struct stats *s, const struct stats_gauges *g,
		 bool json)
{
	if (json)
		stats_print_json(out, s, g);
	else
		stats_print_text(out, s, g);
}
