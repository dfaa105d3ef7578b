/* tools/report_derive.c from the events' own times: stalls, hangs and
 * rule lifetimes on hand-made samples and event lists. Each test is named
 * after what the report once got wrong (issue 13, point 6). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tools/report_data.h"

static void t_read(const char *text, bool samples, struct rfile *f)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(in);
	assert_int_equal(rfile_read(in, samples, f), 0);
	fclose(in);
	assert_int_equal(f->bad_lines, 0);
}

/* Samples at t = 1..@n (1 s each): @iops writes per second, the write
 * p99 @p99_us (NULL: 0), @faults active at each end (NULL: 0); then the
 * events @ev; run selected into @r. */
static void t_run(struct rfile *f, struct rrun *r, const double *iops,
		  const double *p99_us, const unsigned *faults, unsigned n,
		  const char *ev)
{
	char *buf = NULL;
	size_t len = 0;
	for (unsigned i = 0; i < n; i++) {
		char line[256];
		int k = snprintf(line, sizeof(line),
				 "{\"t\":%u,\"interval_s\":1,\"write_iops\":%g,"
				 "\"write_p99_us\":%g,\"faults_active\":%u}\n",
				 i + 1, iops[i], p99_us ? p99_us[i] : 0,
				 faults ? faults[i] : 0);
		buf = realloc(buf, len + (size_t)k + 1);
		assert_non_null(buf);
		memcpy(buf + len, line, (size_t)k + 1);
		len += (size_t)k;
	}
	t_read(buf ? buf : "", true, f);
	free(buf);
	t_read(ev, false, f);
	assert_int_equal(rrun_select(f, REPORT_RUN_LAST, r), 0);
}

static void t_done(struct rfile *f, struct rrun *r)
{
	rrun_free(r);
	rfile_free(f);
}

/* A 0.5 s path stall inside one 1 s sample that still did 900 IOPS: the
 * samples cannot show it; its stall event (t + in_s, lasts_s) does. */
static void test_half_second_path_stall_from_events(void **state)
{
	(void)state;
	const double iops[] = {1000, 1000, 1000, 900, 1000, 1000};
	static const char ev[] =
	    "{\"t\":3.0,\"event\":\"inject\",\"id\":1,\"rule\":\"path id=0\"}\n"
	    "{\"t\":3.0,\"event\":\"stall\",\"id\":1,\"in_s\":0.2,"
	    "\"lasts_s\":0.5}\n"
	    "{\"t\":3.7,\"event\":\"stall_end\",\"id\":1}\n";
	struct rfile f = {0};
	struct rrun r;
	t_run(&f, &r, iops, NULL, NULL, 6, ev);
	assert_int_equal(r.nstalls, 1);
	assert_true(fabs(r.stalls[0].start - 3.2) < 1e-9);
	assert_true(fabs(r.stalls[0].end - 3.7) < 1e-9);
	assert_true(r.stalls[0].from_events);
	assert_false(r.stalls[0].no_fault);
	assert_true(r.stalls[0].min_iops == 900); /* the sample it lies in */
	t_done(&f, &r);
}

/* Overlapping stalls of two paths merge into one span. */
static void test_overlapping_stall_events_merge(void **state)
{
	(void)state;
	const double iops[] = {1000, 1000, 1000, 1000, 1000};
	static const char ev[] =
	    "{\"t\":2.0,\"event\":\"stall\",\"id\":1,\"in_s\":0.1,"
	    "\"lasts_s\":0.5}\n"
	    "{\"t\":2.3,\"event\":\"stall\",\"id\":2,\"in_s\":0,"
	    "\"lasts_s\":0.6}\n"
	    "{\"t\":4.0,\"event\":\"stall\",\"id\":3,\"in_s\":0,"
	    "\"lasts_s\":0}\n"; /* nothing to wait for: no stall */
	struct rfile f = {0};
	struct rrun r;
	t_run(&f, &r, iops, NULL, NULL, 5, ev);
	assert_int_equal(r.nstalls, 1);
	assert_true(fabs(r.stalls[0].start - 2.1) < 1e-9);
	assert_true(fabs(r.stalls[0].end - 2.9) < 1e-9);
	t_done(&f, &r);
}

/* An idle period with a fault active: nothing completed and nothing was
 * waiting (what completes after it is quick). Not a stall. */
static void test_idle_with_a_fault_active_is_not_a_stall(void **state)
{
	(void)state;
	const double iops[] = {1000, 1000, 0, 0, 0, 0, 0, 1000, 1000};
	const double p99[] = {900, 900, 0, 0, 0, 0, 0, 900, 900};
	const unsigned faults[] = {0, 0, 1, 1, 1, 1, 1, 1, 0};
	static const char ev[] = "{\"t\":2.5,\"event\":\"inject\",\"id\":1,"
				 "\"rule\":\"error op=read errno=EIO\"}\n"
				 "{\"t\":8.5,\"event\":\"clear\",\"id\":1}\n";
	struct rfile f = {0};
	struct rrun r;
	t_run(&f, &r, iops, p99, faults, 9, ev);
	assert_true(r.baseline_iops == 1000);
	assert_int_equal(r.nstalls, 0);
	t_done(&f, &r);
}

/* fio exits on its first EIO: a partial last second, then nothing to the
 * end with the fault still active. Not a stall, not even of 1 s. */
static void test_fio_exiting_on_eio_is_not_a_stall(void **state)
{
	(void)state;
	const double iops[] = {1000, 1000, 1000, 20, 0, 0, 0, 0, 0, 0, 0, 0};
	const unsigned faults[] = {0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1};
	static const char ev[] =
	    "{\"t\":3.1,\"event\":\"inject\",\"id\":1,"
	    "\"rule\":\"error op=write errno=EIO\"}\n"
	    "{\"t\":3.2,\"event\":\"fault_hit\",\"id\":1}\n";
	struct rfile f = {0};
	struct rrun r;
	t_run(&f, &r, iops, NULL, faults, 12, ev);
	assert_int_equal(r.nstalls, 0);
	assert_int_equal(r.periods[0].hits, 1);
	t_done(&f, &r);
}

/* I/O that hangs with no fault active (every fault cleared before): the
 * writes that finally complete waited through the gap. A stall, flagged
 * as having no fault to blame. */
static void test_hang_with_no_fault_active_is_flagged(void **state)
{
	(void)state;
	const double iops[] = {1000, 1000, 1000, 0, 0, 0, 0, 1000, 1000};
	const double p99[] = {900, 900, 900, 0, 0, 0, 0, 4.2e6, 900};
	static const char ev[] = "{\"t\":0.5,\"event\":\"inject\",\"id\":1,"
				 "\"rule\":\"drive id=0\"}\n"
				 "{\"t\":1.5,\"event\":\"clear\",\"id\":1}\n";
	struct rfile f = {0};
	struct rrun r;
	t_run(&f, &r, iops, p99, NULL, 9, ev);
	assert_int_equal(r.nstalls, 1);
	assert_true(r.stalls[0].start == 3 && r.stalls[0].end == 7);
	assert_true(r.stalls[0].no_fault);
	assert_false(r.stalls[0].from_events);
	t_done(&f, &r);
}

/* The same hang under a fault is a stall, not flagged. */
static void test_hang_under_a_fault_is_not_flagged(void **state)
{
	(void)state;
	const double iops[] = {1000, 1000, 1000, 0, 0, 1000, 1000};
	const double p99[] = {900, 900, 900, 0, 0, 2.1e6, 900};
	static const char ev[] =
	    "{\"t\":2.9,\"event\":\"inject\",\"id\":1,\"rule\":\"controller "
	    "id=0\"}\n";
	struct rfile f = {0};
	struct rrun r;
	t_run(&f, &r, iops, p99, NULL, 7, ev);
	assert_int_equal(r.nstalls, 1);
	assert_true(r.stalls[0].start == 3 && r.stalls[0].end == 5);
	assert_false(r.stalls[0].no_fault);
	t_done(&f, &r);
}

/* A count=3 rule used up at its third hit ends there (rule_done), not at
 * its clear much later: the samples after it are not degraded, and slow
 * ones there are not blamed on it. */
static void test_used_up_rule_ends_at_its_last_hit(void **state)
{
	(void)state;
	const double iops[] = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000};
	static const char ev[] =
	    "{\"t\":1.0,\"event\":\"inject\",\"id\":1,"
	    "\"rule\":\"error op=write errno=EIO count=3\"}\n"
	    "{\"t\":1.5,\"event\":\"fault_hit\",\"id\":1}\n"
	    "{\"t\":2.0,\"event\":\"fault_hit\",\"id\":1}\n"
	    "{\"t\":2.5,\"event\":\"rule_done\",\"id\":1,\"hits\":3}\n"
	    "{\"t\":2.500001,\"event\":\"fault_hit\",\"id\":1}\n"
	    "{\"t\":7.0,\"event\":\"clear\",\"id\":1}\n"
	    "{\"t\":7.5,\"event\":\"fault_hit\",\"id\":1}\n"; /* not its own */
	struct rfile f = {0};
	struct rrun r;
	t_run(&f, &r, iops, NULL, NULL, 8, ev);
	assert_int_equal(r.nperiods, 1);
	assert_true(r.periods[0].start == 1.0 && r.periods[0].end == 2.5);
	assert_true(r.periods[0].used_up);
	assert_true(r.periods[0].cleared);
	assert_int_equal(r.periods[0].hits, 3);
	t_done(&f, &r);
}

/* hits for every kind: an array fault's are the effects the model gave
 * it (stall, shutdown, rebuild), from the events. */
static void test_array_fault_hits_are_counted(void **state)
{
	(void)state;
	const double iops[] = {1000, 1000, 1000};
	static const char ev[] =
	    "{\"t\":0.5,\"event\":\"inject\",\"id\":1,\"rule\":\"controller "
	    "id=0\"}\n"
	    "{\"t\":0.5,\"event\":\"stall\",\"id\":1,\"in_s\":0,"
	    "\"lasts_s\":0.1}\n"
	    "{\"t\":0.5,\"event\":\"shutdown\",\"id\":1}\n"
	    "{\"t\":0.6,\"event\":\"stall_end\",\"id\":1}\n"
	    "{\"t\":1.0,\"event\":\"inject\",\"id\":2,\"rule\":\"drive "
	    "id=3\"}\n"
	    "{\"t\":1.0,\"event\":\"rebuild\",\"id\":2,\"in_s\":0.1,"
	    "\"lasts_s\":9}\n"
	    "{\"t\":1.1,\"event\":\"noticed\",\"id\":2}\n";
	struct rfile f = {0};
	struct rrun r;
	t_run(&f, &r, iops, NULL, NULL, 3, ev);
	assert_int_equal(r.nperiods, 2);
	assert_int_equal(r.periods[0].hits, 2);
	assert_int_equal(r.periods[1].hits, 1);
	t_done(&f, &r);
}

/* A hot rule logs its first hit, then counts (fault_hits, at most one a
 * second, flushed before its rule_done or clear): the report sums them,
 * so the hits of the table are the rule's fired=, not its lines. */
static void test_aggregated_hits_are_summed(void **state)
{
	(void)state;
	const double iops[] = {1000, 1000, 1000, 1000};
	static const char ev[] =
	    "{\"t\":0.5,\"event\":\"inject\",\"id\":1,\"rule\":\"latency "
	    "latency=1ms\"}\n"
	    "{\"t\":0.6,\"event\":\"inject\",\"id\":2,\"rule\":\"error "
	    "op=write count=5\"}\n"
	    "{\"t\":0.7,\"event\":\"fault_hit\",\"id\":1}\n"
	    "{\"t\":0.8,\"event\":\"fault_hit\",\"id\":2}\n"
	    "{\"t\":0.9,\"event\":\"fault_hits\",\"id\":2,\"hits\":4,"
	    "\"total\":5}\n"
	    "{\"t\":0.9,\"event\":\"rule_done\",\"id\":2,\"hits\":5}\n"
	    "{\"t\":1.7,\"event\":\"fault_hits\",\"id\":1,\"hits\":2500,"
	    "\"total\":2501}\n"
	    "{\"t\":2.7,\"event\":\"fault_hits\",\"id\":1,\"hits\":1800,"
	    "\"total\":4301}\n"
	    "{\"t\":3.0,\"event\":\"clear\",\"id\":1}\n"
	    "{\"t\":3.5,\"event\":\"fault_hits\",\"id\":1,\"hits\":7}\n";
	struct rfile f = {0};
	struct rrun r;
	t_run(&f, &r, iops, NULL, NULL, 4, ev);
	assert_int_equal(r.nperiods, 2);
	assert_int_equal(r.periods[0].hits, 4301);
	assert_int_equal(r.periods[1].hits, 5);
	assert_true(r.periods[1].used_up && r.periods[1].end == 0.9);
	t_done(&f, &r);
}

/* A thin rule's refusal is logged without an id: it is the open thin
 * rule's hit. */
static void test_thin_refusal_is_a_hit(void **state)
{
	(void)state;
	const double iops[] = {1000, 1000, 1000};
	static const char ev[] =
	    "{\"t\":0.5,\"event\":\"inject\",\"id\":1,\"rule\":\"error "
	    "op=read\"}\n"
	    "{\"t\":0.6,\"event\":\"inject\",\"id\":2,\"rule\":\"thin "
	    "capacity=1M\"}\n"
	    "{\"t\":1.0,\"event\":\"thin_full\",\"capacity_blocks\":256}\n"
	    "{\"t\":1.5,\"event\":\"clear\",\"id\":2}\n"
	    "{\"t\":2.0,\"event\":\"thin_full\",\"capacity_blocks\":256}\n";
	struct rfile f = {0};
	struct rrun r;
	t_run(&f, &r, iops, NULL, NULL, 3, ev);
	assert_int_equal(r.nperiods, 2);
	assert_int_equal(r.periods[0].hits, 0);
	assert_int_equal(r.periods[1].hits, 1);
	t_done(&f, &r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_half_second_path_stall_from_events),
	    cmocka_unit_test(test_overlapping_stall_events_merge),
	    cmocka_unit_test(test_idle_with_a_fault_active_is_not_a_stall),
	    cmocka_unit_test(test_fio_exiting_on_eio_is_not_a_stall),
	    cmocka_unit_test(test_hang_with_no_fault_active_is_flagged),
	    cmocka_unit_test(test_hang_under_a_fault_is_not_flagged),
	    cmocka_unit_test(test_used_up_rule_ends_at_its_last_hit),
	    cmocka_unit_test(test_array_fault_hits_are_counted),
	    cmocka_unit_test(test_aggregated_hits_are_summed),
	    cmocka_unit_test(test_thin_refusal_is_a_hit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
