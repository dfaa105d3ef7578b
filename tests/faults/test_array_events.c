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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_stall_ahead),
	    cmocka_unit_test(test_stall_under_way_is_not_wrapped),
	    cmocka_unit_test(test_other_times_not_wrapped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
