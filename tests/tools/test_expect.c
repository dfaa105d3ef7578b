/* tools/expect.c: `arraysim run --expect NAME OP NUMBER`, parsed, judged,
 * and its figure found in the stats JSON (nested by dots). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tools/expect.h"

static void test_parse_ops(void **state)
{
	static const struct {
		const char *text;
		enum expect_op op;
		double value;
	} ok[] = {
	    {"lost_reads == 0", EXPECT_EQ, 0},
	    {"lost_reads==0", EXPECT_EQ, 0},
	    {" checksum_errors != 2 ", EXPECT_NE, 2},
	    {"host_bound_ratio < 0.05", EXPECT_LT, 0.05},
	    {"x<=1e3", EXPECT_LE, 1000},
	    {"ops.write.errors > -1", EXPECT_GT, -1},
	    {"a >= 7", EXPECT_GE, 7},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		struct expect e;
		char err[256];
		assert_int_equal(expect_parse(ok[i].text, &e, err, sizeof(err)),
				 0);
		assert_int_equal(e.op, ok[i].op);
		assert_true(e.value == ok[i].value);
	}
}

static void test_parse_refused(void **state)
{
	static const char *const bad[] = {
	    "",
	    "lost_reads",
	    "lost_reads = 0",
	    "== 0",
	    "lost_reads == ",
	    "lost_reads == x",
	    "lost_reads == 0 1",
	    "1x == 0",
	    "a == inf",
	    "a == nan",
	    "a =< 1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct expect e = {.value = 42};
		char err[256] = "";
		assert_int_equal(expect_parse(bad[i], &e, err, sizeof(err)),
				 -1);
		assert_non_null(strstr(err, "--expect"));
		assert_null(strchr(err, '\n'));
		assert_true(e.value == 42); /* untouched */
	}
}

static void test_holds(void **state)
{
	struct expect e;
	char err[256];
	assert_int_equal(expect_parse("r < 0.05", &e, err, sizeof(err)), 0);
	assert_true(expect_holds(&e, 0.049));
	assert_false(expect_holds(&e, 0.05));
	assert_int_equal(expect_parse("r >= 1", &e, err, sizeof(err)), 0);
	assert_true(expect_holds(&e, 1));
	assert_false(expect_holds(&e, 0.5));
	assert_int_equal(expect_parse("r != 0", &e, err, sizeof(err)), 0);
	assert_false(expect_holds(&e, 0));
}

static void test_lookup(void **state)
{
	const char *json = "{\"lost_reads\":3,\"profile\":\"x\","
			   "\"ops\":{\"write\":{\"count\":12,\"errors\":0}},"
			   "\"host_bound\":{\"late\":1,\"completed\":4}}";
	double v = -1;
	assert_true(expect_lookup(json, "lost_reads", &v));
	assert_true(v == 3);
	assert_true(expect_lookup(json, "ops.write.count", &v));
	assert_true(v == 12);
	assert_false(expect_lookup(json, "profile", &v)); /* a string */
	assert_false(expect_lookup(json, "ops.read.count", &v));
	assert_false(expect_lookup(json, "ops", &v)); /* an object */
	assert_false(expect_lookup("not json", "lost_reads", &v));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_ops),
	    cmocka_unit_test(test_parse_refused),
	    cmocka_unit_test(test_holds),
	    cmocka_unit_test(test_lookup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
