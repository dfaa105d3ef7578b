/* tools/options.c: one table drives parsing, errors and --help. */
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
#include "tools/options.h"
#include "tests/tools/t_opts.h"

static char t_err[512]; /* the last tool_error() line */

void tool_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t_err, sizeof(t_err), fmt, ap);
	va_end(ap);
}

/* Parse the NULL-terminated words after "cmd"; the return of opts_parse. */
static int t_parse(struct t_opts *o, const char **pos, int *npos, ...)
{
	char *argv[16] = {"cmd"};
	int argc = 1;
	va_list ap;

	va_start(ap, npos);
	for (char *w; (w = va_arg(ap, char *)) && argc < 15;)
		argv[argc++] = w;
	va_end(ap);
	memset(o, 0, sizeof(*o));
	t_err[0] = '\0';
	return opts_parse("cmd", "[OPTIONS] X", t_defs, o, argc, argv, pos, 1,
			  npos);
}

static void test_every_type(void **state)
{
	struct t_opts o;
	const char *pos[1];
	int npos;

	(void)state;
	assert_int_equal(t_parse(&o, pos, &npos, "-f", "--str=a b", "--num",
				 "42", "--size", "4K", "--dur=250ms", "--on",
				 "off", "X", NULL),
			 0);
	assert_true(o.flag);
	assert_string_equal(o.str, "a b");
	assert_int_equal(o.num, 42);
	assert_int_equal(o.size, 4096);
	assert_int_equal(o.dur, 250000000);
	assert_false(o.on);
	assert_int_equal(npos, 1);
	assert_string_equal(pos[0], "X");
	assert_int_equal(t_parse(&o, pos, &npos, "-o", "v", NULL), 0);
	assert_string_equal(o.str, "v");
}

/* Each misuse: -1 and one line naming the option and the value. */
static void test_errors(void **state)
{
	struct t_opts o;
	const char *pos[1];
	int npos;

	(void)state;
	assert_int_equal(t_parse(&o, pos, &npos, "--nope", NULL), -1);
	assert_string_equal(t_err,
			    "cmd: unknown option '--nope' (try: arraysim cmd "
			    "--help)");
	assert_int_equal(t_parse(&o, pos, &npos, "--size", "4Q", NULL), -1);
	assert_non_null(strstr(t_err, "--size: '4Q'"));
	assert_int_equal(t_parse(&o, pos, &npos, "--num", NULL), -1);
	assert_non_null(strstr(t_err, "--num needs"));
	assert_int_equal(t_parse(&o, pos, &npos, "--flag=1", NULL), -1);
	assert_string_equal(t_err, "cmd: --flag takes no value");
	assert_int_equal(t_parse(&o, pos, &npos, "X", "Y", NULL), -1);
	assert_string_equal(t_err, "cmd: unexpected argument 'Y'");
}

/* --help lists every row of the table, with its metavar and help. */
static void test_usage(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	opts_usage(f, "cmd", "[OPTIONS] X", t_defs);
	fclose(f);
	assert_non_null(strstr(buf, "usage: arraysim cmd [OPTIONS] X\n"));
	for (const struct opt_def *d = t_defs; d->name; d++) {
		char want[64];

		snprintf(want, sizeof(want), "--%s%s%s", d->name,
			 d->metavar ? " " : "", d->metavar ? d->metavar : "");
		assert_non_null(strstr(buf, want));
		assert_non_null(strstr(buf, d->help));
	}
	assert_non_null(strstr(buf, "  -f, --flag "));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_type),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_usage),
	};

	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
