/* tools/report_curve.c: curve.sh's lines read back exactly, anything else
 * refused with the line that is wrong, and the chart placing each step at
 * its IOPS and mean latency on the axes it draws. */
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

#include "tools/report_curve.h"

/* curve.sh's output: the unlimited run, then 50% and 100% of it. */
static const char good[] =
    "{\"pct\":0,\"target_iops\":0,\"iops\":1000.0,\"read_iops\":700,"
    "\"write_iops\":300,\"lat_mean_us\":32000,\"lat_p99_us\":90000}\n"
    "\n"
    "{\"pct\":50,\"target_iops\":500,\"iops\":500.0,\"read_iops\":350,"
    "\"write_iops\":150,\"lat_mean_us\":2000,\"lat_p99_us\":5000}\n"
    "{\"pct\":100,\"target_iops\":1000,\"iops\":990.0,\"read_iops\":693,"
    "\"write_iops\":297,\"lat_mean_us\":20000,\"lat_p99_us\":60000}\n";

/* Write @text to a new file named @name (in a fresh directory); its
 * path into @path. */
static void put(const char *name, const char *text, char *path, size_t len)
{
	char dir[] = "/tmp/test_report_curve.XXXXXX";
	assert_non_null(mkdtemp(dir));
	snprintf(path, len, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void drop(const char *path)
{
	unlink(path);
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
}

static void test_load(void **state)
{
	(void)state;
	char path[4096];
	put("on.jsonl", good, path, sizeof(path));
	struct rcurve c;
	size_t line;
	assert_int_equal(rcurve_load(path, &c, &line), 0);
	assert_string_equal(c.label, "on");
	assert_int_equal(c.n, 3);
	assert_true(c.steps[0].pct == 0 && c.steps[0].iops == 1000.0);
	assert_true(c.steps[2].pct == 100 && c.steps[2].target_iops == 1000);
	assert_true(c.steps[2].lat_mean_us == 20000 &&
		    c.steps[2].lat_p99_us == 60000);
	rcurve_free(&c);
	drop(path);
}

/* The line that is not a step is named; nothing is kept. */
static void test_refused(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		size_t line;
	} bad[] = {
	    {"{\"pct\":10,\"iops\":5,\"lat_mean_us\":1}\n{\"pct\":20}\n", 2},
	    {"{\"pct\":10,\"iops\":-5,\"lat_mean_us\":1}\n", 1},
	    {"{\"pct\":10,\"iops\":\"5\",\"lat_mean_us\":1}\n", 1},
	    {"\n{\"pct\":10,\"iops\":5,\"lat_mean_us\":1\n", 2},
	    {"not json\n", 1},
	    {"", 0},
	    {"\n\n", 0},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char path[4096];
		put("c.jsonl", bad[i].text, path, sizeof(path));
		struct rcurve c;
		size_t line = 99;
		assert_int_equal(rcurve_load(path, &c, &line), -EINVAL);
		assert_int_equal(line, bad[i].line);
		assert_null(c.steps);
		drop(path);
	}
	struct rcurve c;
	size_t line;
	assert_int_equal(rcurve_load("/nonexistent/c.jsonl", &c, &line),
			 -ENOENT);
}

static char *section(const struct rcurve *c, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	report_curve_section(out, c, n);
	fclose(out);
	return text;
}

/* The chart's axes run 0..1000 IOPS (x: 70..880) and 0..50 ms (y:
 * 335..40), the round numbers over 1000 and 32 ms: the 50% step sits at
 * (475, 323.2), the 100% one at (871.9, 217), the maximum's ring at
 * (880, 146.2). */
static void test_chart(void **state)
{
	(void)state;
	char path[4096];
	put("a<b>.jsonl", good, path, sizeof(path));
	struct rcurve c;
	size_t line;
	assert_int_equal(rcurve_load(path, &c, &line), 0);
	char *page = section(&c, 1);
	assert_non_null(strstr(page, "<h2>Latency against IOPS</h2>"));
	assert_non_null(strstr(page, "points=\"475.0,323.2 871.9,217.0 \""));
	assert_non_null(strstr(page, "class=\"step max\" cx=\"880.0\" "
				     "cy=\"146.2\""));
	assert_non_null(strstr(page, "stroke=\"" REPORT_COLOUR_CURVE "\""));
	assert_non_null(strstr(page, "a&lt;b&gt;"));
	assert_null(strstr(page, "a<b>"));
	/* The table: every step, the maximum as unlimited. */
	assert_non_null(strstr(page, "<td>max</td><td>unlimited</td>"
				     "<td>1000.0</td><td>32.000</td>"
				     "<td>90.000</td>"));
	assert_non_null(strstr(page, "<td>50%</td><td>500</td><td>500.0</td>"
				     "<td>2.000</td><td>5.000</td>"));
	free(page);
	page = section(&c, 0);
	assert_string_equal(page, "");
	free(page);
	rcurve_free(&c);
	drop(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_load),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_chart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
