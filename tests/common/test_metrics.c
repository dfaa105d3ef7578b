/* common/metrics.c: the Prometheus exposition. Histogram buckets are
 * cumulative at their boundaries, +Inf equals _count, _sum is the
 * latencies' sum within the histogram's resolution, and the gauges say
 * what the state says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/metrics.h"

static char *expose(const struct stats *s, const struct metrics_state *st)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	metrics_write(f, s, st);
	fclose(f);
	char *copy = text ? strdup(text) : NULL;
	free(text);
	if (!copy)
		fail_msg("no exposition");
	return copy;
}

static void has(const char *text, const char *line)
{
	char want[256];
	snprintf(want, sizeof(want), "\n%s\n", line);
	if (!text)
		fail_msg("no exposition");
	else if (!strstr(text, want))
		fail_msg("no line '%s' in:\n%s", line, text);
}

static void test_histogram_and_gauges(void **state)
{
	static struct stats s;
	for (int i = 0; i < 5; i++)
		stats_op_record(&s, STATS_OP_WRITE, 30000, 0, 4096); /* 30 us */
	for (int i = 0; i < 3; i++)
		stats_op_record(&s, STATS_OP_WRITE, 2000000, 0,
				4096); /* 2 ms */
	stats_op_record(&s, STATS_OP_READ, 1000, 5, 0);
	struct metrics_state st = {.g = {.live_blocks = 20, .unique_blocks = 8},
				   .faults_active = 3};
	char *t = expose(&s, &st);
	has(t, "arraysim_ops_total{op=\"write\"} 8");
	has(t, "arraysim_op_errors_total{op=\"read\"} 1");
	has(t, "arraysim_bytes_total{op=\"write\"} 32768");
	has(t, "arraysim_op_latency_seconds_bucket{op=\"write\",le=\"2.5e-05\"}"
	       " 0");
	has(t,
	    "arraysim_op_latency_seconds_bucket{op=\"write\",le=\"5e-05\"} 5");
	has(t,
	    "arraysim_op_latency_seconds_bucket{op=\"write\",le=\"0.001\"} 5");
	has(t,
	    "arraysim_op_latency_seconds_bucket{op=\"write\",le=\"0.0025\"} 8");
	has(t, "arraysim_op_latency_seconds_bucket{op=\"write\",le=\"10\"} 8");
	has(t,
	    "arraysim_op_latency_seconds_bucket{op=\"write\",le=\"+Inf\"} 8");
	has(t, "arraysim_op_latency_seconds_count{op=\"write\"} 8");
	has(t, "arraysim_dedupe_ratio 2.5");
	has(t, "arraysim_faults_active 3");
	has(t, "arraysim_power_lost 0");
	assert_null(strstr(t, "arraysim_cache_")); /* no cache: not shown */
	const char *sum =
	    strstr(t, "arraysim_op_latency_seconds_sum{op=\"write\"} ");
	assert_non_null(sum);
	double v = strtod(
	    sum + strlen("arraysim_op_latency_seconds_sum{op=\"write\"} "),
	    NULL);
	double want = 5 * 30e-6 + 3 * 2e-3;
	assert_true(v > want * 0.9375 && v < want * 1.0625);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_histogram_and_gauges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
