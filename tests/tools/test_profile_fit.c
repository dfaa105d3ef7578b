/* `profile show --ceiling` (tools/profile_fit.c): the ceiling file's
 * parser, and the peak estimate's arithmetic on a profile whose every
 * bound is worked out here by hand. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tiers/profile.h"
#include "tools/profile_fit.h"

static int parse(const char *text, struct fit_ceiling *c, char *err)
{
	return fit_ceiling_parse(text, strlen(text), "c.txt", c, err, 256);
}

static void test_parse_ok(void **state)
{
	struct fit_ceiling c;
	char err[256];
	assert_int_equal(parse("# host x\n\nrand4k_read 41000\n"
			       "seq1m_write\t380.5 # MB/s / 1.048576\r\n",
			       &c, err),
			 0);
	assert_true(c.iops[FIT_RAND4K_READ] == 41000);
	assert_true(c.iops[FIT_SEQ1M_WRITE] == 380.5);
	assert_true(c.iops[FIT_RAND4K_WRITE] == 0);
	assert_true(c.iops[FIT_SEQ1M_READ] == 0);
}

static void expect_err(const char *text, const char *want)
{
	struct fit_ceiling c;
	char err[256] = "";
	assert_int_equal(parse(text, &c, err), -EINVAL);
	assert_string_equal(err, want);
}

static void test_parse_errors(void **state)
{
	expect_err("rand4k_read 1\nfoo 2\n", "c.txt:2: unknown workload");
	expect_err("rand4k_read\n", "c.txt:1: expected KEY IOPS");
	expect_err("rand4k_read 1 2\n", "c.txt:1: expected KEY IOPS");
	expect_err("rand4k_read -5\n",
		   "c.txt:1: the rate is not a number in (0, 1e12]");
	expect_err("rand4k_read nan\n",
		   "c.txt:1: the rate is not a number in (0, 1e12]");
	expect_err("rand4k_read 12x\n",
		   "c.txt:1: the rate is not a number in (0, 1e12]");
	expect_err("# nothing\n\n", "c.txt: no workload in it");
	expect_err("", "c.txt: no workload in it");
	char longline[400];
	memset(longline, ' ', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	expect_err(longline, "c.txt:1: line too long");
	struct fit_ceiling c;
	char err[256];
	const char nul[] = "rand4k_read 1\0 2\n";
	assert_int_equal(fit_ceiling_parse(nul, sizeof(nul) - 1, "c.txt", &c,
					   err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "c.txt:1: a NUL byte");
}

/* Two active-active controllers of 4 cores at 50 + 50 us: 80,000 IOPS.
 * Two 10GbE links at 10% overhead: 2 x 1.25e9 x 0.9 = 2.25e9 B/s, so
 * 1 MiB requests: 2,145.8 a second. Eight SSDs of 4 slots at 100 us
 * fastest, 50,000 IOPS caps each, reads capped at 200 MiB/s a drive:
 * 1 MiB reads 8 x 200 = 1,600 a second; writes not capped. */
static const char profile_ini[] = "[array]\n"
				  "description = test\n"
				  "[controllers]\n"
				  "count = 2\n"
				  "mode = active-active\n"
				  "cores = 4\n"
				  "frontend_op_cost = 50us\n"
				  "backend_op_cost = 50us\n"
				  "[frontend]\n"
				  "links = 2\n"
				  "speed = 10GbE\n"
				  "read_overhead = 10%\n"
				  "write_overhead = 10%\n"
				  "[tier flash]\n"
				  "kind = ssd\n"
				  "drives = 8\n"
				  "capacity = 1T\n"
				  "raid = raid10\n"
				  "read_latency = p0:100us p50:200us\n"
				  "write_latency = 100us\n"
				  "slots = 4\n"
				  "read_iops = 50000\n"
				  "write_iops = 50000\n"
				  "read_bandwidth = 200M/s\n"
				  "write_bandwidth = 0\n";

static void test_peak(void **state)
{
	struct profile p;
	char err[256];
	if (profile_parse_string(profile_ini, "t.ini", &p, err, sizeof(err)))
		fail_msg("%s", err);
	const char *limit;
	double link_1m = 2 * 1.25e9 * 0.9 / 1048576;
	assert_true(fabs(fit_peak(&p, FIT_RAND4K_READ, &limit) - 80000) < 1);
	assert_string_equal(limit, "controllers");
	assert_true(fabs(fit_peak(&p, FIT_SEQ1M_READ, &limit) - 1600) < 0.01);
	assert_string_equal(limit, "drives");
	assert_true(fabs(fit_peak(&p, FIT_SEQ1M_WRITE, &limit) - link_1m) <
		    0.01);
	assert_string_equal(limit, "front-end links");
	struct profile null;
	if (profile_load("null", &null, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(fit_peak(&null, FIT_RAND4K_READ, &limit) == 0);
}

/* The printed scale: the largest two-digit one under ceiling / peak. */
static void test_print_scale(void **state)
{
	struct profile p;
	char err[256], out[4096] = "";
	if (profile_parse_string(profile_ini, "t.ini", &p, err, sizeof(err)))
		fail_msg("%s", err);
	struct fit_ceiling c = {0};
	c.iops[FIT_RAND4K_READ] = 23000; /* / 80,000 = 0.2875 */
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");
	assert_non_null(f);
	fit_print(f, &p, &c);
	fclose(f);
	assert_non_null(strstr(out, "ESTIMATE"));
	assert_non_null(strstr(out, "controllers      0.28\n"));
	assert_null(strstr(out, "1M sequential")); /* not measured */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_ok),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_peak),
	    cmocka_unit_test(test_print_scale),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
