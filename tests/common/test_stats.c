/* stats: histogram buckets and percentiles, counters, stats_print. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/stats.h"

/* Index of the one bucket a histogram holding only @ns uses. */
static unsigned t_bucket_of(uint64_t ns)
{
	struct latency_hist h;
	unsigned found = LATENCY_HIST_BUCKETS;

	memset(&h, 0, sizeof(h));
	latency_hist_add(&h, ns);
	for (unsigned i = 0; i < LATENCY_HIST_BUCKETS; i++)
		if (atomic_load(&h.bucket[i])) {
			assert_int_equal(found, LATENCY_HIST_BUCKETS);
			found = i;
		}
	assert_true(found < LATENCY_HIST_BUCKETS);
	return found;
}

static void t_assert_near(uint64_t got, uint64_t want, double rel)
{
	double d = got > want ? (double)(got - want) : (double)(want - got);

	if (d > rel * (double)want)
		fail_msg("%llu is not within %.1f%% of %llu",
			 (unsigned long long)got, rel * 100,
			 (unsigned long long)want);
}

static void test_bucket_small_values_exact(void **state)
{
	for (uint64_t v = 0; v < 16; v++)
		assert_int_equal(t_bucket_of(v), v);
}

static void test_bucket_monotonic(void **state)
{
	unsigned prev = 0;

	/* Every value up to 2^16, then powers of two and their neighbours. */
	for (uint64_t v = 0; v < (1u << 16); v++) {
		unsigned b = t_bucket_of(v);

		assert_true(b >= prev);
		assert_true(b <= prev + 1);
		prev = b;
	}
	for (unsigned s = 16; s < 64; s++) {
		uint64_t p = 1ULL << s;
		unsigned lo = t_bucket_of(p - 1), mid = t_bucket_of(p),
			 hi = t_bucket_of(p + 1);

		assert_true(lo >= prev);
		assert_true(lo < mid);
		assert_true(mid <= hi);
		prev = hi;
	}
	assert_true(t_bucket_of(UINT64_MAX) >= prev);
	assert_true(t_bucket_of(UINT64_MAX) < LATENCY_HIST_BUCKETS);
}

static void test_percentile_single_value(void **state)
{
	static const uint64_t values[] = {
	    1, 7, 100, 4096, 100000, 1234567, 10000000000ULL, 1ULL << 62};

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		struct latency_hist h;

		memset(&h, 0, sizeof(h));
		latency_hist_add(&h, values[i]);
		t_assert_near(latency_hist_percentile(&h, 50), values[i],
			      0.125);
		t_assert_near(latency_hist_percentile(&h, 100), values[i],
			      0.125);
	}
}

static void test_percentile_mixed(void **state)
{
	struct latency_hist h;

	memset(&h, 0, sizeof(h));
	assert_int_equal(latency_hist_percentile(&h, 50), 0); /* empty */
	for (int i = 0; i < 1000; i++)
		latency_hist_add(&h, 100000); /* 100 us */
	for (int i = 0; i < 10; i++)
		latency_hist_add(&h, 10000000); /* 10 ms */
	assert_int_equal(latency_hist_count(&h), 1010);

	t_assert_near(latency_hist_percentile(&h, 50), 100000, 0.125);
	t_assert_near(latency_hist_percentile(&h, 99), 100000, 0.125);
	t_assert_near(latency_hist_percentile(&h, 99.9), 10000000, 0.125);
	t_assert_near(latency_hist_percentile(&h, 100), 10000000, 0.125);
}

static void test_percentile_uniform(void **state)
{
	struct latency_hist h;

	/* 1..100000 ns: the p-th percentile is p * 1000 ns. */
	memset(&h, 0, sizeof(h));
	for (uint64_t v = 1; v <= 100000; v++)
		latency_hist_add(&h, v);
	t_assert_near(latency_hist_percentile(&h, 10), 10000, 0.125);
	t_assert_near(latency_hist_percentile(&h, 50), 50000, 0.125);
	t_assert_near(latency_hist_percentile(&h, 90), 90000, 0.125);
	t_assert_near(latency_hist_percentile(&h, 99), 99000, 0.125);
	/* Percentiles never decrease with p. */
	for (double p = 1, prev = 0; p <= 100; p += 0.5) {
		double v = (double)latency_hist_percentile(&h, p);

		assert_true(v >= prev);
		prev = v;
	}
}

static void test_op_record_and_reset(void **state)
{
	struct stats *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	stats_op_record(s, STATS_OP_WRITE, 1000, 0, 4096);
	stats_op_record(s, STATS_OP_WRITE, 2000, 5, 0);
	stats_op_record(s, STATS_OP_READ, 3000, 0, 8192);
	assert_int_equal(atomic_load(&s->op[STATS_OP_WRITE].count), 2);
	assert_int_equal(atomic_load(&s->op[STATS_OP_WRITE].errors), 1);
	assert_int_equal(atomic_load(&s->op[STATS_OP_WRITE].bytes), 4096);
	assert_int_equal(latency_hist_count(&s->op[STATS_OP_WRITE].latency), 2);
	assert_int_equal(atomic_load(&s->op[STATS_OP_READ].bytes), 8192);

	atomic_store(&s->dedupe.duplicate_hits, 3);
	stats_reset(s);
	assert_int_equal(atomic_load(&s->op[STATS_OP_WRITE].count), 0);
	assert_int_equal(latency_hist_count(&s->op[STATS_OP_WRITE].latency), 0);
	assert_int_equal(atomic_load(&s->dedupe.duplicate_hits), 0);
	free(s);
}

static void test_op_names(void **state)
{
	static const char *const want[STATS_OP_COUNT] = {
	    "lookup",  "getattr", "setattr", "create", "mkdir",
	    "unlink",  "rmdir",	  "rename",  "link",   "symlink",
	    "open",    "read",	  "write",   "fsync",  "fallocate",
	    "readdir", "xattr",	  "statfs",  "other",
	};

	for (int i = 0; i < STATS_OP_COUNT; i++)
		assert_string_equal(stats_op_name(i), want[i]);
}

static void test_now_monotonic(void **state)
{
	uint64_t a = stats_now_ns(), b = stats_now_ns();

	assert_true(a > 0);
	assert_true(b >= a);
}

/* Print @s and @g into a malloc'ed string. */
static char *t_print(const struct stats *s, const struct stats_gauges *g,
		     bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	stats_print(f, s, g, json);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* test_print_json: members `stats json` must have. */
static const char *const t_json_keys[] = {
    "\"seed\":42,",
    "\"dedupe_verify\":true,",
    "\"logical_bytes_written\":8192,",
    "\"logical_bytes_held\":40960,",
    "\"physical_bytes_used\":16384,",
    "\"store_bytes_on_disk\":20480,",
    "\"meta_bytes_on_disk\":65536,",
    "\"live_blocks\":10,",
    "\"unique_blocks\":4,",
    "\"blocks_written\":11,",
    "\"unique_writes\":4,",
    "\"duplicate_hits\":6,",
    "\"zero_blocks\":1,",
    "\"dedupe_ratio\":2.500000,",
    "\"verify_reads\":6,",
    "\"verify_mismatches\":0,",
    "\"checksum_errors\":2,",
    "\"blocks_freed\":0,",
    "\"lost_reads\":0,",
    "\"repaired_reads\":0,",
    "\"ops\":{",
    ("\"write\":{\"count\":2,\"errors\":1,\"bytes\":8192,"
     "\"latency_us\":{\"mean\":125.000,\"p50\":"),
    "\"other\":{\"count\":0,",
};

static void test_print_json(void **state)
{
	struct stats *s = calloc(1, sizeof(*s));
	struct stats_gauges g = {
	    .logical_bytes_held = 40960,
	    .live_blocks = 10,
	    .unique_blocks = 4,
	    .physical_bytes_used = 16384,
	    .store_bytes_on_disk = 20480,
	    .meta_bytes_on_disk = 65536,
	    .seed = 42,
	    .dedupe_verify = 1,
	};
	int depth = 0, max_depth = 0;
	char *out;

	assert_non_null(s);
	stats_op_record(s, STATS_OP_WRITE, 100000, 0, 4096);
	stats_op_record(s, STATS_OP_WRITE, 150000, 5, 4096); /* mean 125 us */
	atomic_store(&s->dedupe.logical_bytes_written, 8192);
	atomic_store(&s->dedupe.blocks_written, 11);
	atomic_store(&s->dedupe.unique_writes, 4);
	atomic_store(&s->dedupe.duplicate_hits, 6);
	atomic_store(&s->dedupe.zero_blocks, 1);
	atomic_store(&s->dedupe.verify_reads, 6);
	atomic_store(&s->dedupe.checksum_errors, 2);

	out = t_print(s, &g, true);
	for (size_t i = 0; i < sizeof(t_json_keys) / sizeof(t_json_keys[0]);
	     i++)
		if (!strstr(out, t_json_keys[i]))
			fail_msg("%s not in %s", t_json_keys[i], out);
	for (int i = 0; i < STATS_OP_COUNT; i++) {
		char key[64];

		snprintf(key, sizeof(key),
			 "\"%s\":{\"count\":", stats_op_name(i));
		if (!strstr(out, key))
			fail_msg("op %s missing in %s", stats_op_name(i), out);
	}
	/* Exactly one object: balanced braces, closed only at the end. */
	assert_int_equal(out[0], '{');
	for (const char *p = out; *p; p++) {
		if (*p == '{')
			depth++;
		if (*p == '}' && --depth == 0)
			assert_string_equal(p, "}\n");
		if (depth > max_depth)
			max_depth = depth;
		assert_true(depth >= 0);
	}
	assert_int_equal(depth, 0);
	assert_int_equal(max_depth, 4);
	assert_non_null(strstr(out, "\"p50\":10")); /* 100us +-12.5% */
	free(out);

	/* Nothing stored yet: ratio 1.0, not a division by zero. */
	g.unique_blocks = 0;
	g.live_blocks = 0;
	g.dedupe_verify = 0;
	out = t_print(s, &g, true);
	assert_non_null(strstr(out, "\"dedupe_ratio\":1.000000,"));
	assert_non_null(strstr(out, "\"dedupe_verify\":false,"));
	free(out);
	free(s);
}

static void test_print_text(void **state)
{
	struct stats *s = calloc(1, sizeof(*s));
	struct stats_gauges g = {
	    .unique_blocks = 2, .live_blocks = 3, .physical_bytes_used = 8192};
	char *out;

	assert_non_null(s);
	stats_op_record(s, STATS_OP_READ, 50000, 0, 4096);
	out = t_print(s, &g, false);
	assert_non_null(strstr(out, "8.0 KiB"));
	assert_non_null(strstr(out, "1.50"));
	assert_non_null(strstr(out, "  read "));
	assert_null(strstr(out, "  write ")); /* count 0: not listed */
	free(out);
	free(s);
}

/* Data reduction: 10 live blocks over 4 unique (16 KiB) kept at 6 KiB:
 * dedupe 2.5, compression 16/6, both 40/6; nothing stored: all 1.0. */
static void test_reduction(void **state)
{
	struct stats *s = calloc(1, sizeof(*s));
	struct stats_gauges g = {.live_blocks = 10,
				 .unique_blocks = 4,
				 .compressed_bytes = 6144,
				 .compression = "zstd",
				 .compression_keep = "half"};
	struct stats_reduction r;

	assert_non_null(s);
	stats_reduction_of(&g, &r);
	assert_int_equal(r.logical_bytes, 40960);
	assert_int_equal(r.after_dedupe_bytes, 16384);
	assert_int_equal(r.after_compression_bytes, 6144);
	assert_true(r.dedupe_ratio == 2.5);
	assert_true(r.compression_ratio == 16384.0 / 6144.0);
	assert_true(r.data_reduction_ratio == 40960.0 / 6144.0);
	char *out = t_print(s, &g, true);
	static const char *const keys[] = {
	    "\"compression\":\"zstd\",\"compression_keep\":\"half\",",
	    "\"logical_data_bytes\":40960,",
	    "\"after_dedupe_bytes\":16384,",
	    "\"after_compression_bytes\":6144,",
	    "\"compression_ratio\":2.666667,",
	    "\"data_reduction_ratio\":6.666667"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strstr(out, keys[i]))
			fail_msg("%s not in %s", keys[i], out);
	free(out);
	out = t_print(s, &g, false);
	assert_non_null(strstr(out, "what a compressing array would store"));
	assert_non_null(strstr(out, "6.67:1"));
	free(out);

	g = (struct stats_gauges){0};
	stats_reduction_of(&g, &r);
	assert_true(r.dedupe_ratio == 1.0 && r.compression_ratio == 1.0 &&
		    r.data_reduction_ratio == 1.0);
	out = t_print(s, &g, true);
	assert_non_null(strstr(out, "\"compression\":\"none\""));
	free(out);
	free(s);
}

/* The counter table: Prometheus ranks are 1..k once each, every counter
 * is reset, and dedupe_stats_add adds member by member. */
static void test_counter_table(void **state)
{
	struct dedupe_stats a, b;
	unsigned seen[DEDUPE_COUNTER_COUNT + 1] = {0};

	(void)state;
	for (unsigned i = 0; i < DEDUPE_COUNTER_COUNT; i++) {
		unsigned r = dedupe_counter_defs[i].prom_rank;

		assert_true(r <= DEDUPE_COUNTER_COUNT);
		seen[r]++;
		assert_int_equal(dedupe_counter_defs[i].offset,
				 i * sizeof(_Atomic uint64_t));
	}
	for (unsigned r = 1; r <= DEDUPE_COUNTER_COUNT; r++)
		assert_true(seen[r] <= 1);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	atomic_store(&a.repaired_reads, 5);
	atomic_store(&b.repaired_reads, 2);
	atomic_store(&b.logical_bytes_written, 7);
	dedupe_stats_add(&a, &b);
	assert_int_equal(atomic_load(&a.repaired_reads), 7);
	assert_int_equal(atomic_load(&a.logical_bytes_written), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bucket_small_values_exact),
	    cmocka_unit_test(test_bucket_monotonic),
	    cmocka_unit_test(test_percentile_single_value),
	    cmocka_unit_test(test_percentile_mixed),
	    cmocka_unit_test(test_percentile_uniform),
	    cmocka_unit_test(test_op_record_and_reset),
	    cmocka_unit_test(test_op_names),
	    cmocka_unit_test(test_now_monotonic),
	    cmocka_unit_test(test_print_json),
	    cmocka_unit_test(test_print_text),
	    cmocka_unit_test(test_reduction),
	    cmocka_unit_test(test_counter_table),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
