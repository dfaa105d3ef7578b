/* tools/mount_opts.c: --scale and --time-scale, parsed and checked
 * against each other and the profile (issue 13: --scale was accepted with
 * the null profile; --time-scale did not exist). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tools/commands.h"
#include "tools/mount_opts.h"

static char t_err[512]; /* the last tool_error() line */
static int t_nerr;	/* how many lines */

void tool_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t_err, sizeof(t_err), fmt, ap);
	va_end(ap);
	t_nerr++;
}

/* Parse "mount WORDS... /mnt" and check the scales: 0, 1 or -1 as
 * opts_parse, else mount_opts_check_scale's return. */
static int t_mount(struct mount_opts *o, double *sc, double *ts, ...)
{
	char *argv[16] = {"mount"};
	const char *pos[1];
	int argc = 1, npos, r;
	va_list ap;

	va_start(ap, ts);
	for (char *w; (w = va_arg(ap, char *)) && argc < 14;)
		argv[argc++] = w;
	va_end(ap);
	argv[argc++] = "/mnt";
	mount_opts_init(o);
	t_err[0] = '\0';
	t_nerr = 0;
	r = opts_parse("mount", "MOUNTPOINT", mount_opt_defs, o, argc, argv,
		       pos, 1, &npos);
	if (r)
		return r;
	assert_int_equal(npos, 1);
	return mount_opts_check_scale(o, sc, ts);
}

static void test_time_scale_defaults_to_scale(void **state)
{
	struct mount_opts o;
	double sc, ts;

	(void)state;
	assert_int_equal(t_mount(&o, &sc, &ts, "--profile", "hybrid", NULL), 0);
	assert_true(sc == 1.0 && ts == 1.0);
	assert_int_equal(
	    t_mount(&o, &sc, &ts, "--profile", "hybrid", "--scale", "4", NULL),
	    0);
	assert_true(sc == 4.0 && ts == 4.0);
	assert_int_equal(t_mount(&o, &sc, &ts, "--profile", "hybrid",
				 "--time-scale", "10", NULL),
			 0);
	assert_true(sc == 1.0 && ts == 10.0);
	assert_int_equal(t_mount(&o, &sc, &ts, "--profile", "hybrid", "--scale",
				 "0.5", "--time-scale", "30", NULL),
			 0);
	assert_true(sc == 0.5 && ts == 30.0);
	assert_int_equal(t_nerr, 0);
}

static void test_bad_factors(void **state)
{
	static const char *const bad[] = {"0", "-1", "1001", "x", "1e3", ""};
	struct mount_opts o;
	double sc, ts;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(t_mount(&o, &sc, &ts, "--profile", "hybrid",
					 "--time-scale", bad[i], NULL),
				 -1);
		assert_int_equal(t_nerr, 1);
		assert_non_null(strstr(t_err, "--time-scale"));
	}
}

static void test_null_profile_refuses_scales(void **state)
{
	struct mount_opts o;
	double sc, ts;

	(void)state;
	assert_int_equal(t_mount(&o, &sc, &ts, "--scale", "10", NULL), -1);
	assert_int_equal(t_nerr, 1);
	assert_non_null(strstr(t_err, "--scale needs a timed --profile"));
	assert_int_equal(t_mount(&o, &sc, &ts, "--profile", "null",
				 "--time-scale", "10", NULL),
			 -1);
	assert_int_equal(t_nerr, 1);
	assert_non_null(strstr(t_err, "--time-scale needs a timed"));
	assert_int_equal(t_mount(&o, &sc, &ts, "--profile", "null", NULL), 0);
	assert_int_equal(t_nerr, 0);
}

static void test_help_says_what_time_scale_does(void **state)
{
	char buf[8192] = "";
	FILE *f = fmemopen(buf, sizeof(buf) - 1, "w");

	(void)state;
	opts_usage(f, "mount", "MOUNTPOINT", mount_opt_defs);
	fclose(f);
	const char *p = strstr(buf, "--time-scale");
	assert_non_null(p);
	assert_non_null(strstr(p, "failover"));
	assert_non_null(strstr(p, "rebuild"));
	assert_non_null(strstr(p, "without making"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_time_scale_defaults_to_scale),
	    cmocka_unit_test(test_bad_factors),
	    cmocka_unit_test(test_null_profile_refuses_scales),
	    cmocka_unit_test(test_help_says_what_time_scale_does),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
