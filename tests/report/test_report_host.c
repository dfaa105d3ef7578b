/* The report says what it rehearsed and whether the host kept pace
 * (issue 13: a run with 96% of replies late read like one with 0.7%, and
 * nothing named the profile, scale or seed). Hand-made samples and
 * events; tools/report_derive.c's rrun_host and the page's summary and
 * shading. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tools/report.h"

/* Seconds 2 and 3 host-bound (30%, 6%), 1 and 4 not (1%, exactly 5%). */
static const char host_samples[] =
    "{\"t\":1,\"interval_s\":1,\"write_iops\":1000,\"host_late_share\":0.01,"
    "\"host_worst_late_ms\":0.5,\"host_replies\":1000,\"host_late\":10}\n"
    "{\"t\":2,\"interval_s\":1,\"write_iops\":1000,\"host_late_share\":0.3,"
    "\"host_worst_late_ms\":12.25,\"host_replies\":1000,\"host_late\":300}\n"
    "{\"t\":3,\"interval_s\":1,\"write_iops\":1000,\"host_late_share\":0.06,"
    "\"host_worst_late_ms\":3,\"host_replies\":1000,\"host_late\":60}\n"
    "{\"t\":4,\"interval_s\":1,\"write_iops\":1000,\"host_late_share\":0.05,"
    "\"host_worst_late_ms\":1,\"host_replies\":1000,\"host_late\":50}\n";
static const char paced_samples[] =
    "{\"t\":1,\"interval_s\":1,\"write_iops\":10,\"host_late_share\":0,"
    "\"host_worst_late_ms\":0,\"host_replies\":10,\"host_late\":0}\n"
    "{\"t\":2,\"interval_s\":1,\"write_iops\":10,\"host_late_share\":0,"
    "\"host_worst_late_ms\":0,\"host_replies\":10,\"host_late\":0}\n";
static const char null_samples[] =
    "{\"t\":1,\"interval_s\":1,\"write_iops\":10}\n";
static const char mount_new[] =
    "{\"t\":0,\"event\":\"mount\",\"store\":\"/s\",\"seed\":42,"
    "\"profile\":\"infinidat-6303\",\"scale\":10,\"time_scale\":30,"
    "\"version\":\"0.1.0\"}\n"
    "{\"t\":5,\"event\":\"unmount\"}\n";
static const char mount_old[] =
    "{\"t\":0,\"event\":\"mount\",\"store\":\"/s\",\"seed\":7}\n";

static void t_load(const char *st, const char *et, struct rfile *f,
		   struct rrun *r)
{
	memset(f, 0, sizeof(*f));
	FILE *in = fmemopen((void *)st, strlen(st), "r");
	assert_int_equal(rfile_read(in, true, f), 0);
	fclose(in);
	in = fmemopen((void *)et, strlen(et), "r");
	assert_int_equal(rfile_read(in, false, f), 0);
	fclose(in);
	assert_int_equal(f->bad_lines, 0);
	assert_int_equal(rrun_select(f, REPORT_RUN_LAST, r), 0);
}

static char *page_of(const char *st, const char *et)
{
	struct rfile f;
	struct rrun r;
	char *text = NULL;
	size_t len = 0;

	t_load(st, et, &f, &r);
	FILE *out = open_memstream(&text, &len);
	struct report_page p = {"/store", &f, &r, NULL, 0};
	report_html_write(out, &p);
	fclose(out);
	rrun_free(&r);
	rfile_free(&f);
	char *copy = text ? strdup(text) : NULL; /* see test_report_page */
	free(text);
	assert_non_null(copy);
	return copy;
}

static unsigned count(const char *text, const char *what)
{
	unsigned n = 0;
	for (const char *p = text; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void test_run_share_from_counts(void **state)
{
	struct rfile f;
	struct rrun r;
	struct rhost h;

	(void)state;
	t_load(host_samples, mount_new, &f, &r);
	rrun_host(&r, &h);
	assert_true(h.known);
	assert_true(h.replies == 4000 && h.late == 420);
	assert_true(h.worst_ms == 12.25);
	assert_int_equal(h.seconds_over, 2);
	rrun_free(&r);
	rfile_free(&f);
	/* The null profile: no figure at all, not "kept pace". */
	t_load(null_samples, mount_old, &f, &r);
	rrun_host(&r, &h);
	assert_false(h.known);
	rrun_free(&r);
	rfile_free(&f);
}

static void test_summary_says_host_bound(void **state)
{
	(void)state;
	char *t = page_of(host_samples, mount_new);
	assert_non_null(strstr(t, "<b>HOST-BOUND</b>: 10.5% of 4000 replies "
				  "late (420), worst 12.250 ms; 2 s past 5% "
				  "(shaded)"));
	free(t);
	t = page_of(paced_samples, mount_new);
	assert_non_null(strstr(t, "no: the host kept pace (0 of 20 replies "
				  "late)"));
	assert_null(strstr(t, "HOST-BOUND"));
	free(t);
	t = page_of(null_samples, mount_old);
	assert_non_null(strstr(t, "host-bound\">not measured"));
	free(t);
}

static void test_charts_shade_host_bound_seconds(void **state)
{
	(void)state;
	char *t = page_of(host_samples, mount_new);
	/* Seconds 2 and 3 are one band (1..3 s) on each chart drawn; the
	 * 5% second is not shaded. */
	unsigned bands =
	    count(t, "<rect class=\"host-bound\" data-t0=\"1.000\" "
		     "data-t1=\"3.000\"");
	assert_true(bands >= 1);
	assert_int_equal(count(t, "<rect class=\"host-bound\""), bands);
	assert_non_null(strstr(t, "host-bound: up to 30.0% of replies late, "
				  "worst 12.250 ms"));
	assert_non_null(strstr(t, REPORT_COLOUR_HOST_BOUND));
	free(t);
	t = page_of(paced_samples, mount_new);
	assert_int_equal(count(t, "<rect class=\"host-bound\""), 0);
	free(t);
}

static void test_summary_names_what_was_emulated(void **state)
{
	(void)state;
	char *t = page_of(host_samples, mount_new);
	assert_non_null(strstr(t, "<td class=\"emulated\">profile "
				  "infinidat-6303, scale 10, time scale 30, "
				  "seed 42 (arraysim 0.1.0)</td>"));
	free(t);
	t = page_of(null_samples, mount_old);
	assert_non_null(strstr(t, "<td class=\"emulated\">not said (the mount "
				  "event predates it); seed 7</td>"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_run_share_from_counts),
	    cmocka_unit_test(test_summary_says_host_bound),
	    cmocka_unit_test(test_charts_shade_host_bound_seconds),
	    cmocka_unit_test(test_summary_names_what_was_emulated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
