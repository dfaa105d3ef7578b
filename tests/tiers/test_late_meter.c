/* tiers/late_meter: which replies are late, the windows of steps, and the
 * host-bound warning's episodes, all in made-up time: no clock, no sleep.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/log.h"
#include "tiers/late_meter.h"

#define MS 1000000ull
#define T0 (1000 * LATE_STEP_NS) /* any time well past step 0 */

/* @n replies at @now_ns, each @late_ms past a deadline whose modelled
 * latency was 10 ms: late when @late_ms is over 1 ms. */
static void t_replies(struct late_meter *m, uint64_t now_ns, unsigned n,
		      uint64_t late_ms)
{
	for (unsigned i = 0; i < n; i++)
		late_meter_count(m, now_ns - late_ms * MS,
				 now_ns - (late_ms + 10) * MS, now_ns);
}

/* Late means past the deadline by more than a tenth of the modelled
 * latency; the worst lateness counts every reply. */
static void test_late_is_a_tenth_past(void **state)
{
	struct late_meter m = {0};
	uint64_t deadline = T0, submit = T0 - 10 * MS;

	late_meter_count(&m, deadline, submit, deadline);
	late_meter_count(&m, deadline, submit, deadline + 1 * MS);
	late_meter_count(&m, deadline, submit, deadline + 1 * MS + 1);
	late_meter_count(&m, deadline, submit, deadline - 5 * MS); /* early */
	assert_int_equal(m.totals.completed, 4);
	assert_int_equal(m.totals.late, 1);
	assert_int_equal(m.totals.late_ns, 1 * MS + 1);
	assert_int_equal(m.totals.worst_ns, 1 * MS + 1);
	(void)state;
}

/* A window sums the steps of its span before the end of now's step, and
 * forgets steps the ring has moved past. */
static void test_window_spans_steps(void **state)
{
	static struct late_meter m;
	struct late_window w;

	t_replies(&m, T0, 3, 50);		     /* step 1000 */
	t_replies(&m, T0 + LATE_STEP_NS, 5, 0);	     /* step 1001 */
	t_replies(&m, T0 + 5 * LATE_STEP_NS, 7, 20); /* step 1005 */
	late_meter_window(&m, T0 + 5 * LATE_STEP_NS, LATE_STEP_NS, &w);
	assert_int_equal(w.completed, 7);
	assert_int_equal(w.late, 7);
	assert_int_equal(w.worst_ns, 20 * MS);
	late_meter_window(&m, T0 + 5 * LATE_STEP_NS, 1000 * MS, &w);
	assert_int_equal(w.completed, 15);
	assert_int_equal(w.late, 10);
	assert_int_equal(w.worst_ns, 50 * MS);
	/* 12.8 s on, step 1000's slot is reused: its 3 late replies are
	 * gone, steps 1001 and 1005 are still in the span. */
	t_replies(&m, T0 + LATE_SPAN_NS, 1, 0);
	late_meter_window(&m, T0 + LATE_SPAN_NS, LATE_SPAN_NS, &w);
	assert_int_equal(w.completed, 1 + 5 + 7);
	assert_int_equal(w.late, 7);
	assert_int_equal(w.worst_ns, 20 * MS);
	(void)state;
}

/* The warning (issue 13, point 4): once when the last 10 s pass 5% late
 * (of at least 20 replies), with the share and the worst; over when they
 * fall back; again for a new episode. Judged when a step is over. */
static void test_late_share_warns_once(void **state)
{
	static struct late_meter m;
	char *text = NULL;
	size_t len = 0;
	FILE *logf = open_memstream(&text, &len);
	uint64_t t = T0;

	assert_non_null(logf);
	log_set_stream(logf);
	t_replies(&m, t, 100, 50);
	assert_int_equal(m.episodes, 0); /* the step is not over yet */
	t += LATE_STEP_NS;
	t_replies(&m, t, 100, 50);
	assert_int_equal(m.episodes, 1);
	t += LATE_STEP_NS;
	t_replies(&m, t, 1, 50);
	assert_int_equal(m.episodes, 1); /* the same episode */
	/* 5,000 on time: 201 of 5,201 late is 3.9%, the episode is over. */
	t += LATE_STEP_NS;
	t_replies(&m, t, 5000, 0);
	t += LATE_STEP_NS;
	t_replies(&m, t, 1, 0);
	assert_false(m.warned);
	assert_int_equal(m.episodes, 1);
	/* A new episode: warned again. */
	t_replies(&m, t, 2000, 50);
	t += LATE_STEP_NS;
	t_replies(&m, t, 1, 50);
	assert_int_equal(m.episodes, 2);
	log_set_stream(NULL);
	fclose(logf);
	assert_non_null(strstr(text, "host-bound: 100.0% of 100 replies in "
				     "the last 10 s went out late (worst "
				     "0.050 s late)"));
	assert_non_null(strstr(text, "host-bound no more: 3.9% of 5201 "));
	assert_non_null(
	    strstr(strstr(text, "host-bound no more") + 1, "host-bound: "));
	free(text);
	(void)state;
}

/* Fewer than 20 replies in 10 s say nothing, however late; the 20th
 * makes the share count. */
static void test_few_replies_do_not_warn(void **state)
{
	static struct late_meter m;

	t_replies(&m, T0, 19, 500);
	t_replies(&m, T0 + LATE_STEP_NS, 1, 0); /* 19 in the window */
	assert_int_equal(m.episodes, 0);
	t_replies(&m, T0 + 2 * LATE_STEP_NS, 1, 0); /* 20, 19 late */
	assert_int_equal(m.episodes, 1);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_late_is_a_tenth_past),
	    cmocka_unit_test(test_window_spans_steps),
	    cmocka_unit_test(test_late_share_warns_once),
	    cmocka_unit_test(test_few_replies_do_not_warn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
