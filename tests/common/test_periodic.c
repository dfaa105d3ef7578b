/* common/periodic.c: runs every period, and a stop wakes it at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "common/clock.h"
#include "common/periodic.h"

static void t_count(void *ctx)
{
	atomic_fetch_add((_Atomic int *)ctx, 1);
}

static void t_sleep_ms(unsigned ms)
{
	struct timespec ts = {0, (long)ms * 1000000L};

	nanosleep(&ts, NULL);
}

/* On a fixed grid, runs never outpace the clock: at most one per period
 * elapsed; and some happen even on a loaded machine. */
static void test_runs_every_period(void **state)
{
	const uint64_t period = 10000000u; /* 10 ms */
	_Atomic int n = 0;
	struct periodic *p;
	uint64_t t0 = clock_mono_ns(), took;

	(void)state;
	assert_int_equal(
	    periodic_start(period, PERIODIC_FIXED_GRID, t_count, &n, &p), 0);
	t_sleep_ms(200);
	periodic_stop(p);
	took = clock_mono_ns() - t0;
	assert_true(atomic_load(&n) >= 3);
	assert_true((uint64_t)atomic_load(&n) <= took / period);
}

/* A period of an hour: stop must not wait it out, and without
 * PERIODIC_RUN_AT_STOP fn never runs. */
static void test_stop_wakes_at_once(void **state)
{
	_Atomic int n = 0;
	struct periodic *p;
	uint64_t t0;

	(void)state;
	assert_int_equal(periodic_start(3600 * NS_PER_SEC, 0, t_count, &n, &p),
			 0);
	t_sleep_ms(10);
	t0 = clock_mono_ns();
	periodic_stop(p);
	assert_true(clock_mono_ns() - t0 < NS_PER_SEC);
	assert_int_equal(atomic_load(&n), 0);
}

static void test_run_at_stop(void **state)
{
	_Atomic int n = 0;
	struct periodic *p;

	(void)state;
	assert_int_equal(periodic_start(3600 * NS_PER_SEC, PERIODIC_RUN_AT_STOP,
					t_count, &n, &p),
			 0);
	periodic_stop(p);
	assert_int_equal(atomic_load(&n), 1);
}

static void test_bad_args(void **state)
{
	struct periodic *p = NULL;
	_Atomic int n = 0;

	(void)state;
	assert_int_equal(periodic_start(0, 0, t_count, &n, &p), -EINVAL);
	assert_null(p);
	periodic_stop(NULL); /* a no-op */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_runs_every_period),
	    cmocka_unit_test(test_stop_wakes_at_once),
	    cmocka_unit_test(test_run_at_stop),
	    cmocka_unit_test(test_bad_args),
	};

	return cmocka_run_group_tests_name("periodic", tests, NULL, NULL);
}
