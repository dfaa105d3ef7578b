/* faults/scenario.c: scenario timelines. Steps sorted by time and kept in
 * file order at one time; labels tie a clear to its inject; every mistake
 * is reported with the file and line it is on. */
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

#include "faults/scenario.h"

static const char good[] = "# a comment\n"
			   "[scenario]\n"
			   "name = two-faults\n"
			   "description = slow reads, then errors\n"
			   "\n"
			   "[at 2m]\n"
			   "clear = slow\n"
			   "inject = error op=write prob=0.5\n"
			   "\n"
			   "[at 500ms]\n"
			   "inject.slow = latency latency=5ms op=read\n"
			   "\n"
			   "[at 2m]\n"
			   "inject = power-loss\n";

static void test_good(void **state)
{
	struct scenario s;
	char err[256] = "";
	int r = scenario_parse_string(good, "g.ini", &s, err, sizeof(err));
	if (r)
		fail_msg("%s", err);
	assert_string_equal(s.name, "two-faults");
	assert_string_equal(s.description, "slow reads, then errors");
	assert_int_equal(s.n, 4);
	assert_int_equal(s.steps[0].at_ns, 500000000ull);
	assert_int_equal(s.steps[0].action, SCENARIO_INJECT);
	assert_string_equal(s.steps[0].label, "slow");
	assert_string_equal(s.steps[0].rule.kind->name, "latency");
	/* the three steps at 2m stay in file order */
	assert_int_equal(s.steps[1].at_ns, 120000000000ull);
	assert_int_equal(s.steps[1].action, SCENARIO_CLEAR);
	assert_string_equal(s.steps[1].label, "slow");
	assert_string_equal(s.steps[2].rule.kind->name, "error");
	assert_true(s.steps[2].rule.prob == 0.5);
	assert_string_equal(s.steps[3].rule.kind->name, "power-loss");
	scenario_free(&s);
}

/* replication = VERB: a step of its own, in file order at its time. */
static void test_replication_steps(void **state)
{
	struct scenario s;
	char err[256] = "";
	int r = scenario_parse_string("[at 5m]\nreplication = start\n"
				      "inject.l = replication-link\n"
				      "[at 6m]\nclear = l\n"
				      "replication = stop\n",
				      "r.ini", &s, err, sizeof(err));
	if (r)
		fail_msg("%s", err);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.steps[0].action, SCENARIO_REPLICATION);
	assert_string_equal(s.steps[0].verb, "start");
	assert_string_equal(scenario_action_name(s.steps[0].action),
			    "replication");
	assert_string_equal(s.steps[1].rule.kind->name, "replication-link");
	assert_int_equal(s.steps[3].action, SCENARIO_REPLICATION);
	assert_string_equal(s.steps[3].verb, "stop");
	assert_true(scenario_replicates(&s));
	scenario_free(&s);
	assert_int_equal(scenario_parse_string("[at 1s]\nclear = all\n",
					       "n.ini", &s, err, sizeof(err)),
			 0);
	assert_false(scenario_replicates(&s));
	scenario_free(&s);
}

static void expect_error(const char *text, const char *want)
{
	struct scenario s;
	char err[256] = "";
	assert_int_equal(
	    scenario_parse_string(text, "b.ini", &s, err, sizeof(err)),
	    -EINVAL);
	if (strcmp(err, want))
		fail_msg("got  '%s'\nwant '%s'", err, want);
}

static void test_errors(void **state)
{
	expect_error(
	    "[at 1s]\ninject = melt\n",
	    "b.ini:2: inject: unknown fault kind 'melt' (bitrot, "
	    "cache-device, controller, drive, drive-slow, error, latency, "
	    "path, power-loss, replica, replication-link, thin, torn-write)");
	expect_error("[at 1s]\nreplication = go\n",
		     "b.ini:2: replication = 'go': not start, stop, pause, "
		     "resume or sync");
	expect_error("[at soon]\ninject = error\n",
		     "b.ini:2: section [at soon]: not [scenario] or [at TIME] "
		     "(TIME like 30s, 5m)");
	expect_error("[scenario]\nname = x\ncolour = red\n",
		     "b.ini:3: [scenario] has no key 'colour' (name, "
		     "description)");
	expect_error("[at 1s]\nexplode = now\n",
		     "b.ini:2: [at] has no key 'explode' (inject, "
		     "inject.LABEL, clear, replication)");
	expect_error("[at 1s]\ninject.a b = error\n",
		     "b.ini:2: label 'a b': 1-31 letters, digits, '-' or '_', "
		     "and not 'all'");
	expect_error("[at 1s]\ninject.all = error\n",
		     "b.ini:2: label 'all': 1-31 letters, digits, '-' or '_', "
		     "and not 'all'");
	expect_error("[at 1s]\nclear = x\n[at 2s]\ninject.x = error\n",
		     "b.ini: clear = x: no fault labelled 'x' is injected "
		     "before it");
	expect_error("[scenario]\nname = empty\n",
		     "b.ini: no steps (add [at TIME] sections)");
	expect_error("[at 1s]\nthis line has no equals sign\n",
		     "b.ini:2: not 'key = value' or '[section]' (or longer "
		     "than 200 characters)");
	/* the first problem is the one reported */
	expect_error("[at 1s]\ninject = error prob=7\ninject = melt\n",
		     "b.ini:2: inject: prob: '7' is not a probability in "
		     "(0, 1]");
}

static void test_file(void **state)
{
	char path[] = "/tmp/arraysim-scenario-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, good, strlen(good)), (ssize_t)strlen(good));
	close(fd);
	struct scenario s;
	char err[256];
	assert_int_equal(scenario_parse_file(path, &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 4);
	scenario_free(&s);
	unlink(path);
	assert_int_equal(scenario_parse_file(path, &s, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_good),
	    cmocka_unit_test(test_replication_steps),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
