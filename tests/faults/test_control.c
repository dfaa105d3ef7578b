/* faults/control.c: the control protocol's grammar. Every command, its
 * arguments, and every way a line can be wrong, with the message. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "faults/control.h"

static struct control_cmd ok(const char *line)
{
	struct control_cmd c;
	char err[256];
	if (control_parse(line, &c, err, sizeof(err)))
		fail_msg("'%s' rejected: %s", line, err);
	return c;
}

static void bad(const char *line, const char *want)
{
	struct control_cmd c;
	memset(&c, 0x5a, sizeof(c));
	struct control_cmd before = c;
	char err[256] = "";
	assert_int_equal(control_parse(line, &c, err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fail_msg("'%s': '%s' does not say '%s'", line, err, want);
	assert_memory_equal(&c, &before, sizeof(c));
}

static void test_commands(void **state)
{
	assert_int_equal(ok("status").verb, CONTROL_STATUS);
	assert_int_equal(ok("stats").verb, CONTROL_STATS);
	assert_int_equal(ok("stats json").verb, CONTROL_STATS_JSON);
	assert_int_equal(ok("stats reset").verb, CONTROL_STATS_RESET);
	assert_int_equal(ok("stats array").verb, CONTROL_STATS_ARRAY);
	assert_int_equal(ok("stats array json").verb, CONTROL_STATS_ARRAY_JSON);
	assert_int_equal(ok("sync").verb, CONTROL_SYNC);
	assert_int_equal(ok("fault list").verb, CONTROL_FAULT_LIST);
	struct control_cmd c = ok("fault inject error op=read count=2");
	assert_int_equal(c.verb, CONTROL_FAULT_INJECT);
	assert_string_equal(c.rule.kind->name, "error");
	assert_int_equal(c.rule.count, 2);
	c = ok("fault clear 17");
	assert_int_equal(c.verb, CONTROL_FAULT_CLEAR);
	assert_int_equal(c.id, 17);
	assert_int_equal(ok("fault clear all").id, 0);
	c = ok("scenario run /s/x.ini time-scale=60");
	assert_int_equal(c.verb, CONTROL_SCENARIO_RUN);
	assert_string_equal(c.path, "/s/x.ini");
	assert_true(c.time_scale == 60);
	assert_true(ok("scenario run /s/y.ini").time_scale == 1);
	assert_int_equal(ok("scenario status").verb, CONTROL_SCENARIO_STATUS);
	assert_int_equal(ok("scenario stop").verb, CONTROL_SCENARIO_STOP);
}

static void test_errors(void **state)
{
	bad("", "unknown command ''");
	bad("frob", "unknown command 'frob' (known: status, stats");
	bad("stats verbose", "unknown command 'stats verbose'");
	bad("fault zap", "unknown fault command 'zap'");
	bad("fault inject melt", "unknown fault kind 'melt'");
	bad("fault clear 0", "fault clear takes a fault id or 'all', not '0'");
	bad("fault clear -3", "not '-3'");
	bad("fault clear 99999999999999999999999", "fault clear takes");
	bad("scenario run x.ini", "scenario run takes an absolute FILE");
	bad("scenario run /x.ini fast", "scenario run FILE [time-scale=F]");
	bad("scenario run /x.ini time-scale=0", "time-scale: '0' is not");
	bad("scenario run /x.ini time-scale=inf", "time-scale: 'inf'");
	bad("scenario dance", "unknown scenario command 'dance'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_commands),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
