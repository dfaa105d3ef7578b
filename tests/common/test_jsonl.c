/* common/jsonl.c: one object a line, strings escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/jsonl.h"

static void test_line(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jsonl j;

	(void)state;
	assert_non_null(f);
	jsonl_begin(&j, f);
	jsonl_str(&j, "ts", "2026-12-01T00:00:00Z");
	jsonl_double(&j, "t", 3, 1.5);
	jsonl_u64(&j, "n", 18446744073709551615ull);
	fputs(",\"raw\":1", j.out); /* a callback's own members */
	jsonl_end(&j);
	fclose(f);
	assert_string_equal(buf, "{\"ts\":\"2026-12-01T00:00:00Z\",\"t\":1.500,"
				 "\"n\":18446744073709551615,\"raw\":1}\n");
	free(buf);
}

static void test_escape(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jsonl j;

	(void)state;
	jsonl_begin(&j, f);
	jsonl_str(&j, "k\"", "a\"b\\c\nd\te\r\x01/é");
	jsonl_end(&j);
	fclose(f);
	assert_string_equal(
	    buf, "{\"k\\\"\":\"a\\\"b\\\\c\\nd\\te\\r\\u0001/é\"}\n");
	free(buf);
}

static void test_empty(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jsonl j;

	(void)state;
	jsonl_begin(&j, f);
	jsonl_end(&j);
	fclose(f);
	assert_string_equal(buf, "{}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_line),
	    cmocka_unit_test(test_escape),
	    cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests_name("jsonl", tests, NULL, NULL);
}
