/* common/graphite.c: the Prometheus exposition as Carbon lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/graphite.h"

/* Carbon lines for @text under @prefix at t=1700000000, malloc'ed; the
 * count of lines and of bad lines through the pointers. */
static char *t_carbon(const char *text, const char *prefix, size_t *lines,
		      size_t *bad)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*lines = graphite_from_exposition(text, strlen(text), prefix,
					  1700000000, f, bad);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_labels_become_path_components(void **state)
{
	const char *text =
	    "# HELP arraysim_ops_total Requests completed.\n"
	    "# TYPE arraysim_ops_total counter\n"
	    "arraysim_ops_total{op=\"read\"} 42\n"
	    "arraysim_tier_ops_total{tier=\"cache\",op=\"write\"} 7\n"
	    "arraysim_dedupe_ratio 1.5\n";
	size_t n, bad;
	char *out = t_carbon(text, "lab.a1", &n, &bad);

	(void)state;
	assert_int_equal(n, 3);
	assert_int_equal(bad, 0);
	assert_string_equal(
	    out, "lab.a1.arraysim_ops_total.op.read 42 1700000000\n"
		 "lab.a1.arraysim_tier_ops_total.tier.cache.op.write 7 "
		 "1700000000\n"
		 "lab.a1.arraysim_dedupe_ratio 1.5 1700000000\n");
	free(out);
}

/* Dots, '+', quotes and escapes in a value cannot split or glob the path. */
static void test_unsafe_bytes_are_underscores(void **state)
{
	const char *text = "h_bucket{le=\"0.001\"} 3\n"
			   "h_bucket{le=\"+Inf\",} 4\n"
			   "x{v=\"a\\\"b\\\\c d*\"} 5\n"
			   "rule:name 6";
	size_t n, bad;
	char *out = t_carbon(text, "", &n, &bad);

	(void)state;
	assert_int_equal(n, 4);
	assert_int_equal(bad, 0);
	assert_string_equal(out, "h_bucket.le.0_001 3 1700000000\n"
				 "h_bucket.le._Inf 4 1700000000\n"
				 "x.v.a_b_c_d_ 5 1700000000\n"
				 "rule_name 6 1700000000\n");
	free(out);
}

static void test_non_finite_skipped_bad_counted(void **state)
{
	const char *text = "a NaN\n"
			   "b +Inf\n"
			   "c{l=\"unterminated} 1\n"
			   "{l=\"x\"} 1\n"
			   "d notanumber\n"
			   "e\n"
			   "f 2.5e-3\n";
	size_t n, bad;
	char *out = t_carbon(text, "p", &n, &bad);

	(void)state;
	assert_int_equal(n, 1);
	assert_int_equal(bad, 4);
	assert_string_equal(out, "p.f 0.0025000000000000001 1700000000\n");
	free(out);
}

static void test_prefix_rules(void **state)
{
	char big[260];

	(void)state;
	assert_true(graphite_prefix_ok(""));
	assert_true(graphite_prefix_ok("arraysim"));
	assert_true(graphite_prefix_ok("ci.run-7.array_a"));
	assert_false(graphite_prefix_ok("a..b"));
	assert_false(graphite_prefix_ok(".a"));
	assert_false(graphite_prefix_ok("a."));
	assert_false(graphite_prefix_ok("a b"));
	assert_false(graphite_prefix_ok("a*"));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_false(graphite_prefix_ok(big));
}

static void test_target_parse(void **state)
{
	struct graphite_target t;
	char err[200];

	(void)state;
	assert_int_equal(
	    graphite_parse_target("127.0.0.1:2003", &t, err, sizeof(err)), 0);
	assert_string_equal(t.host, "127.0.0.1");
	assert_string_equal(t.port, "2003");
	assert_string_equal(t.prefix, "");
	assert_int_equal(graphite_parse_target("carbon.lab:2003,prefix=ci.a",
					       &t, err, sizeof(err)),
			 0);
	assert_string_equal(t.host, "carbon.lab");
	assert_string_equal(t.prefix, "ci.a");
	assert_int_equal(
	    graphite_parse_target("[::1]:2004", &t, err, sizeof(err)), 0);
	assert_string_equal(t.host, "::1");
	assert_string_equal(t.port, "2004");
}

static void test_target_refused(void **state)
{
	const char *bad[] = {"",	 "host",
			     ":2003",	 "h:",
			     "h:0",	 "h:65536",
			     "h:20x",	 "h:2003,",
			     "h:2003,x", "h:1,prefix=a..b",
			     "[]:1",	 "h:1,prefix=a b"};
	struct graphite_target t;
	char err[200];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err[0] = '\0';
		assert_int_equal(
		    graphite_parse_target(bad[i], &t, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "--graphite: "));
		assert_null(strchr(err, '\n'));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_labels_become_path_components),
	    cmocka_unit_test(test_unsafe_bytes_are_underscores),
	    cmocka_unit_test(test_non_finite_skipped_bad_counted),
	    cmocka_unit_test(test_prefix_rules),
	    cmocka_unit_test(test_target_parse),
	    cmocka_unit_test(test_target_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
