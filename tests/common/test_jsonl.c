/* common/jsonl.c: one object a line, strings escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/jsonl.h"

/* What @write puts on a line, as a malloc'ed string. */
static char *t_line(void (*write)(struct jsonl *j))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct jsonl j;

	assert_non_null(f);
	jsonl_begin(&j, f);
	write(&j);
	jsonl_end(&j);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void t_members(struct jsonl *j)
{
	jsonl_str(j, "ts", "2026-12-01T00:00:00Z");
	jsonl_double(j, "t", 3, 1.5);
	jsonl_u64(j, "n", 18446744073709551615ull);
	fputs(",\"raw\":1", j->out); /* a callback's own members */
}

static void test_line(void **state)
{
	char *buf = t_line(t_members);

	(void)state;
	assert_string_equal(buf, "{\"ts\":\"2026-12-01T00:00:00Z\",\"t\":1.500,"
				 "\"n\":18446744073709551615,\"raw\":1}\n");
	free(buf);
}

static void t_escaped(struct jsonl *j)
{
	jsonl_str(j, "k\"", "a\"b\\c\nd\te\r\x01/é");
}

static void test_escape(void **state)
{
	char *buf = t_line(t_escaped);

	(void)state;
	assert_string_equal(
	    buf, "{\"k\\\"\":\"a\\\"b\\\\c\\nd\\te\\r\\u0001/é\"}\n");
	free(buf);
}

static void t_nothing(struct jsonl *j)
{
	(void)j;
}

static void test_empty(void **state)
{
	char *buf = t_line(t_nothing);

	(void)state;
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
