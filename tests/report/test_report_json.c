/* tools/report_json.c: a line is one JSON object or it is refused whole;
 * values come back as written, strings unescaped and cut to fit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tools/report_json.h"

static int parse(const char *s, struct rj_obj *o)
{
	return rj_parse(s, strlen(s), o);
}

static void test_members(void **state)
{
	struct rj_obj o;
	assert_int_equal(parse(" {\"a\":1, \"b\" : \"x\\\"y\", \"c\":[1,{\"d\":"
			       "null}],\"e\":true,\"f\":-2.5e3}\n",
			       &o),
			 0);
	assert_int_equal(o.n, 5);
	double d;
	assert_true(rj_num(&o, "a", &d));
	assert_true(d == 1);
	assert_true(rj_num(&o, "f", &d));
	assert_true(d == -2500);
	char buf[16];
	assert_true(rj_str(&o, "b", buf, sizeof(buf)));
	assert_string_equal(buf, "x\"y");
	/* Wrong types and absent keys: false. */
	assert_false(rj_num(&o, "b", &d));
	assert_false(rj_num(&o, "c", &d));
	assert_false(rj_num(&o, "e", &d));
	assert_false(rj_str(&o, "a", buf, sizeof(buf)));
	assert_false(rj_num(&o, "zz", &d));
	assert_false(rj_num(&o, "d", &d)); /* nested keys are not members */
	/* Valid JSON, but no finite number. */
	assert_int_equal(parse("{\"big\":1e999,\"small\":-1e999}", &o), 0);
	assert_false(rj_num(&o, "big", &d));
	assert_false(rj_num(&o, "small", &d));
	assert_int_equal(parse(" {\"a\":1,\"e\":true}", &o), 0);
	assert_true(rj_has_prefix(&o, "e"));
	assert_false(rj_has_prefix(&o, "tier"));
}

static void test_strings(void **state)
{
	struct rj_obj o;
	char buf[8];
	assert_int_equal(parse("{\"s\":\"a\\n\\u0041\\u00e9\\/\"}", &o), 0);
	assert_true(rj_str(&o, "s", buf, sizeof(buf)));
	assert_string_equal(buf, "a\nA?/");
	assert_int_equal(parse("{\"s\":\"0123456789abc\"}", &o), 0);
	assert_true(rj_str(&o, "s", buf, sizeof(buf)));
	assert_string_equal(buf, "0123456"); /* cut to fit */
	/* The last of duplicate keys wins. */
	assert_int_equal(parse("{\"k\":1,\"k\":2}", &o), 0);
	double d;
	assert_true(rj_num(&o, "k", &d));
	assert_true(d == 2);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
	    "",
	    "   ",
	    "[1]",
	    "{",
	    "{\"a\":1",
	    "{\"a\":1,}", /* a trailing comma */
	    "{\"a\"}",
	    "{\"a\":}",
	    "{a:1}",
	    "{\"a\":01}",
	    "{\"a\":1.}",
	    "{\"a\":1e}",
	    "{\"a\":-}",
	    "{\"a\":0x10}",
	    "{\"a\":tru}",
	    "{\"a\":\"\\x\"}",
	    "{\"a\":\"\\u12\"}",
	    "{\"a\":\"tab\there\"}",
	    "{\"a\":\"open}",
	    "{\"a\":1} x",
	    "{\"a\":1}{}",
	    "{\"a\":[1,2}",
	    "{\"a\":NaN}",
	};
	struct rj_obj o;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (parse(bad[i], &o) != -1)
			fail_msg("accepted: '%s'", bad[i]);
		assert_int_equal(o.n, 0);
	}
	/* A length that cuts a good line refuses it: a torn last line. */
	const char *good = "{\"a\":12}";
	assert_int_equal(rj_parse(good, 6, &o), -1);
	assert_int_equal(rj_parse(good, strlen(good), &o), 0);
	assert_int_equal(parse("{}", &o), 0);
	assert_int_equal(o.n, 0);
}

static void test_depth(void **state)
{
	char deep[200];
	size_t n = 0;
	n += (size_t)snprintf(deep, sizeof(deep), "{\"a\":");
	for (int i = 0; i < 40; i++)
		deep[n++] = '[';
	for (int i = 0; i < 40; i++)
		deep[n++] = ']';
	deep[n++] = '}';
	deep[n] = '\0';
	struct rj_obj o;
	assert_int_equal(parse(deep, &o), -1); /* past the depth bound */
	assert_int_equal(parse("{\"a\":[[[[1]]]]}", &o), 0);
}

static void test_many_members(void **state)
{
	char line[4096];
	size_t n = (size_t)snprintf(line, sizeof(line), "{");
	for (int i = 0; i < RJ_MAX_MEMBERS + 10; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      "%s\"k%d\":%d", i ? "," : "", i, i);
	snprintf(line + n, sizeof(line) - n, "}");
	struct rj_obj o;
	assert_int_equal(parse(line, &o), 0); /* checked, not all kept */
	assert_int_equal(o.n, RJ_MAX_MEMBERS);
	double d;
	assert_true(rj_num(&o, "k0", &d));
	assert_false(rj_num(&o, "k70", &d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_members),	 cmocka_unit_test(test_strings),
	    cmocka_unit_test(test_refused),	 cmocka_unit_test(test_depth),
	    cmocka_unit_test(test_many_members),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
