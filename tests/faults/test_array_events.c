/* The events of an array fault's effects (faults/array_fault.c), with the
 * model's hooks faked: every time an event gives is from the event on,
 * never negative and never wrapped, whatever the model said.
 *
 * Regression: a stall that overlaps one an earlier change began (its
 * stall_from before the change) logged "in_s":18446744073.7, an unsigned
 * difference wrapped (faults/scenarios/infinidat-switch-loss.ini at
 * time-scale=10 did it). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "faults/array_fault.h"
#include "faults/events.h"
#include "faults/rule.h"

#define S 1000000000ull

static struct fault_array_effect t_effect;
static uint64_t t_now;

static int t_array_set(void *ctx, const struct fault_array *f, bool on,
		       uint64_t *now_ns, struct fault_array_effect *e,
		       char *err, size_t errlen)
{
	(void)ctx, (void)f, (void)on, (void)err, (void)errlen;
	*now_ns = t_now;
	*e = t_effect;
	return 0;
}

static int t_timer(void *ctx, uint64_t due_ns, struct fault_timer *t)
{
	(void)ctx, (void)due_ns, (void)t;
	return -ENOSYS; /* the live marks are not under test */
}

static const struct fault_hooks t_hooks = {.array_set = t_array_set,
					   .timer = t_timer};

/* Inject "path id=1" with the model saying @e at @now; the value of
 * @key in the first @event line is returned (NAN if none). */
static double t_logged(const struct fault_array_effect *e, uint64_t now,
		       const char *event, const char *key)
{
	char path[] = "/tmp/test_array_events.XXXXXX", err[256], line[512];
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct events *ev;
	assert_int_equal(events_open(path, &ev), 0);
	struct fault_rule r;
	assert_int_equal(fault_rule_parse("path id=1", &r, err, sizeof(err)),
			 0);
	struct fault_env env = {.hooks = &t_hooks, .events = ev};
	unsigned loss;
	t_effect = *e;
	t_now = now;
	assert_int_equal(fault_array_inject(&env, &r, FAULT_ARRAY_PATH, 1,
					    &loss, err, sizeof(err)),
			 0);
	events_close(ev);
	FILE *in = fopen(path, "r");
	assert_non_null(in);
	double v = -1e30;
	char ename[64], want[64];
	snprintf(want, sizeof(want), "\"event\":\"%s\"", event);
	snprintf(ename, sizeof(ename), "\"%s\":", key);
	while (fgets(line, sizeof(line), in))
		if (strstr(line, want) && strstr(line, ename)) {
			v = strtod(strstr(line, ename) + strlen(ename), NULL);
			break;
		}
	fclose(in);
	unlink(path);
	assert_true(v > -1e30); /* the event was logged */
	return v;
}

/* A stall in the future: in_s until it, lasts_s its length. */
static void test_stall_ahead(void **state)
{
	(void)state;
	struct fault_array_effect e = {.stall_from = 12 * S,
				       .stall_until = 14 * S + S / 2};
	assert_true(t_logged(&e, 10 * S, "stall", "in_s") == 2.0);
	assert_true(t_logged(&e, 10 * S, "stall", "lasts_s") == 2.5);
}

/* Overlapping stalls: the model's stall began before this change (an
 * earlier change's), so in_s is 0 (under way) and lasts_s what is left
 * of it: t + in_s + lasts_s is still its end. */
static void test_stall_under_way_is_not_wrapped(void **state)
{
	(void)state;
	struct fault_array_effect e = {.stall_from = 9 * S,
				       .stall_until = 10 * S + S / 2};
	assert_true(t_logged(&e, 10 * S, "stall", "in_s") == 0.0);
	assert_true(t_logged(&e, 10 * S, "stall", "lasts_s") == 0.5);
}

/* Every other time an effect gives is never below 0 either. */
static void test_other_times_not_wrapped(void **state)
{
	(void)state;
	struct fault_array_effect e = {.stall_from = 5 * S,
				       .stall_until = 6 * S,
				       .serving = 1,
				       .serves_ns = 7 * S,
				       .fail_ns = 8 * S,
				       .rebuild_end_ns = 20 * S,
				       .rebuild_bytes = 4096};
	uint64_t now = 30 * S; /* after all of them */
	assert_true(t_logged(&e, now, "stall", "in_s") == 0.0);
	assert_true(t_logged(&e, now, "stall", "lasts_s") == 0.0);
	assert_true(t_logged(&e, now, "serving", "in_s") == 0.0);
	assert_true(t_logged(&e, now, "recovering", "serves_in_s") == 0.0);
	assert_true(t_logged(&e, now, "rebuild", "in_s") == 0.0);
	assert_true(t_logged(&e, now, "rebuild", "lasts_s") == 12.0);
}

/* ---- a rebuild's end, when its drives finish ---------------------------- */

/* Timers are kept, to be fired by the test in order; rebuild_end answers
 * from a script: -EAGAIN with a soonest end, then the real end. */
enum { T_TIMERS = 32 };
static struct fault_timer *t_timers[T_TIMERS];
static uint64_t t_due[T_TIMERS];
static unsigned t_ntimers, t_asked;
static uint64_t t_end[3];
static int t_end_rc[3];

static int t_keep_timer(void *ctx, uint64_t due_ns, struct fault_timer *t)
{
	(void)ctx;
	assert_true(t_ntimers < T_TIMERS);
	t_due[t_ntimers] = due_ns;
	t_timers[t_ntimers++] = t;
	return 0;
}

static bool t_current(void *ctx, const struct fault_array *f,
		      enum fault_array_mark mark, uint64_t key_ns)
{
	(void)ctx, (void)f, (void)mark, (void)key_ns;
	return true;
}

static int t_rebuild_end(void *ctx, const struct fault_array *f,
			 uint64_t fail_ns, uint64_t *end_ns)
{
	(void)ctx, (void)f;
	assert_int_equal(fail_ns, t_effect.fail_ns);
	assert_true(t_asked < 3);
	*end_ns = t_end[t_asked];
	return t_end_rc[t_asked++];
}

static const struct fault_hooks t_live_hooks = {.array_set = t_array_set,
						.array_current = t_current,
						.rebuild_end = t_rebuild_end,
						.timer = t_keep_timer};

static unsigned t_count(const char *path, const char *event)
{
	char line[512], want[64];
	unsigned n = 0;
	FILE *in = fopen(path, "r");

	assert_non_null(in);
	snprintf(want, sizeof(want), "\"event\":\"%s\"", event);
	while (fgets(line, sizeof(line), in))
		n += strstr(line, want) != NULL;
	fclose(in);
	return n;
}

/* Issue 13, point 7: a rebuild slowed by host I/O logged rebuild_end at
 * its planned end while the drives went on (host I/O hung 42 s after the
 * events said it was over). The end mark now asks the model and waits
 * for the drives: re-armed at the soonest end while chunks remain, then
 * at the real end, logged once, then. All times are in the past of the
 * real clock, so the test fires every timer itself. */
static void test_rebuild_end_waits_for_the_drives(void **state)
{
	(void)state;
	char path[] = "/tmp/test_array_events.XXXXXX", err[256];
	uint64_t now = clock_mono_ns();
	int fd = mkstemp(path);
	struct events *ev;
	struct fault_rule r;
	unsigned loss, fired = 0;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(events_open(path, &ev), 0);
	assert_int_equal(fault_rule_parse("drive id=1", &r, err, sizeof(err)),
			 0);
	t_effect = (struct fault_array_effect){.fail_ns = now - 10 * S,
					       .rebuild_end_ns = now - 8 * S,
					       .rebuild_bytes = 1 << 20};
	t_now = now - 10 * S;
	t_end_rc[0] = -EAGAIN, t_end[0] = now - 6 * S;
	t_end_rc[1] = 0, t_end[1] = now - 4 * S;
	t_end_rc[2] = 0, t_end[2] = now - 4 * S;
	struct fault_env env = {.hooks = &t_live_hooks, .events = ev};
	assert_int_equal(fault_array_inject(&env, &r, FAULT_ARRAY_DRIVE, 1,
					    &loss, err, sizeof(err)),
			 0);
	/* noticed, nine rebuild_progress, rebuild_end at the plan */
	assert_int_equal(t_ntimers, 11);
	assert_int_equal(t_due[10], t_effect.rebuild_end_ns);
	while (fired < t_ntimers) {
		struct fault_timer *t = t_timers[fired++];
		t->fire(t);
	}
	events_close(ev);
	/* Re-armed at the soonest end, then at the real end. */
	assert_int_equal(t_ntimers, 13);
	assert_int_equal(t_due[11], now - 6 * S);
	assert_int_equal(t_due[12], now - 4 * S);
	assert_int_equal(t_asked, 3);
	assert_int_equal(t_count(path, "rebuild_end"), 1);
	assert_int_equal(t_count(path, "rebuild_progress"), 9);
	unlink(path);
}

/* A node back (a controller restored): its resync is logged as resync,
 * then resync_progress and resync_end on the same marks as a drive's
 * rebuild (no "noticed": nothing failed), the end asking the model. */
static void test_resync_events(void **state)
{
	(void)state;
	char path[] = "/tmp/test_array_events.XXXXXX", err[256];
	uint64_t now = clock_mono_ns();
	int fd = mkstemp(path);
	struct events *ev;
	struct fault_rule r;
	unsigned loss, fired = 0;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(events_open(path, &ev), 0);
	assert_int_equal(
	    fault_rule_parse("controller id=3", &r, err, sizeof(err)), 0);
	t_effect = (struct fault_array_effect){.resync = true,
					       .fail_ns = now - 10 * S,
					       .rebuild_end_ns = now - 2 * S,
					       .rebuild_bytes = 1 << 20};
	t_now = now - 10 * S;
	t_ntimers = t_asked = 0;
	t_end_rc[0] = 0, t_end[0] = now - 2 * S;
	struct fault_env env = {.hooks = &t_live_hooks, .events = ev};
	assert_int_equal(fault_array_inject(&env, &r, FAULT_ARRAY_CONTROLLER, 1,
					    &loss, err, sizeof(err)),
			 0);
	assert_int_equal(t_ntimers, 10);
	while (fired < t_ntimers) {
		struct fault_timer *t = t_timers[fired++];
		t->fire(t);
	}
	events_close(ev);
	assert_int_equal(t_asked, 1);
	assert_int_equal(t_count(path, "resync"), 1);
	assert_int_equal(t_count(path, "rebuild"), 0);
	assert_int_equal(t_count(path, "noticed"), 0);
	assert_int_equal(t_count(path, "resync_progress"), 9);
	assert_int_equal(t_count(path, "resync_end"), 1);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stall_ahead),
	    cmocka_unit_test(test_stall_under_way_is_not_wrapped),
	    cmocka_unit_test(test_other_times_not_wrapped),
	    cmocka_unit_test(test_rebuild_end_waits_for_the_drives),
	    cmocka_unit_test(test_resync_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
