/* common/samples.c: one sample line is the interval since the previous
 * one: rates from counter deltas, percentiles from differenced histograms
 * (a slow second is not averaged away by a fast first), gauges as given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "common/samples.h"

static char *line(const struct stats *s, const struct sample_state *st,
		  struct sample_prev *prev, uint64_t now)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	sample_write(f, s, st, prev, 0, now);
	fclose(f);
	/* A copy: GCC 12 takes memstream's buffer for a dangling local. */
	char *copy = text ? strdup(text) : NULL;
	free(text);
	if (!copy)
		fail_msg("no sample line");
	return copy;
}

static void expect(const char *text, const char *field)
{
	if (!text)
		fail_msg("no sample line");
	else if (!strstr(text, field))
		fail_msg("'%s' not in %s", field, text);
}

static void test_intervals(void **state)
{
	static struct stats s;
	struct sample_prev prev = {0};
	struct sample_state st = {.g = {.live_blocks = 30,
					.unique_blocks = 10,
					.logical_bytes_held = 4096}};
	/* second 1: 1000 reads of 4 KiB at 10 us */
	for (int i = 0; i < 1000; i++)
		stats_op_record(&s, STATS_OP_READ, 10000, 0, 4096);
	char *a = line(&s, &st, &prev, 1000000000u);
	expect(a, "\"t\":1.000,\"interval_s\":1.000");
	expect(a, "\"read_iops\":1000.0,\"read_mbps\":4.096");
	expect(a, "\"write_iops\":0.0");
	expect(a, "\"dedupe_ratio\":3.0000,\"unique_blocks\":10");
	expect(a, "\"power\":\"on\"}\n");
	free(a);
	/* the next half second: 100 reads at 1 ms, one failed write */
	for (int i = 0; i < 100; i++)
		stats_op_record(&s, STATS_OP_READ, 1000000, 0, 4096);
	stats_op_record(&s, STATS_OP_WRITE, 5000, 5, 0);
	st.power_lost = true;
	st.faults_active = 2;
	char *b = line(&s, &st, &prev, 1500000000u);
	expect(b, "\"interval_s\":0.500");
	expect(b, "\"read_iops\":200.0");
	/* 1 ms, within the histogram's 12.5%: not 10 us from second 1 */
	char *p50 = strstr(b, "\"read_p50_us\":");
	assert_non_null(p50);
	double us = strtod(p50 + 14, NULL);
	assert_true(us >= 875 && us <= 1125);
	expect(b, "\"write_iops\":2.0");
	expect(b, "\"errors\":1,");
	expect(b, "\"faults_active\":2,\"power\":\"lost\"");
	free(b);
}

static void extra(void *ctx, FILE *out, double interval_s)
{
	fprintf(out, ",\"%s\":%.3f", (const char *)ctx, interval_s);
}

/* The array model's members go inside the object, after the rest. */
static void test_extra_members(void **state)
{
	static struct stats s;
	struct sample_prev prev = {0};
	struct sample_state st = {.extra = extra, .extra_ctx = "x_s"};
	(void)state;
	char *a = line(&s, &st, &prev, 250000000u);
	expect(a, "\"power\":\"on\",\"x_s\":0.250}\n");
	free(a);
}

/* A state read that waits 200 ms (as the array's snapshot waits for a
 * busy model's lock): when it returns is recorded. */
static void slow_state(void *ctx, struct sample_state *out)
{
	struct timespec ts = {.tv_nsec = 200000000};

	(void)out;
	nanosleep(&ts, NULL);
	*(uint64_t *)ctx = clock_mono_ns();
}

/* A line's time is when its state was read, not when reading began. */
static void test_stamped_after_state(void **state)
{
	char path[] = "/tmp/test_samples.XXXXXX";
	int fd = mkstemp(path);
	static struct stats s;
	struct sampler *sp;
	uint64_t read_ns = 0, started_ns;
	double t = -1;
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	/* One line, the one taken at stop: the period is never reached. */
	assert_int_equal(sampler_start(path, 60 * 1000000000ull, &s, slow_state,
				       &read_ns, &sp),
			 0);
	started_ns = clock_mono_ns(); /* no earlier than the sampler's start */
	sampler_stop(sp);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char buf[4096];
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	unlink(path);
	char *p = strstr(buf, "\"t\":");
	assert_non_null(p);
	t = strtod(p + 4, NULL);
	assert_true(t >= (double)(read_ns - started_ns) / 1e9 - 0.001);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_intervals),
	    cmocka_unit_test(test_extra_members),
	    cmocka_unit_test(test_stamped_after_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
