/* tiers/array_metrics.c's arraysim_info series: what is emulated (issue
 * 13: nothing said which profile, scale or seed a run had). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tiers/array.h"
#include "tiers/array_metrics.h"

static void t_info(const struct array_conf *c, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len - 1, "w");

	assert_non_null(f);
	memset(buf, 0, len);
	array_metrics_info(f, c);
	fclose(f);
}

static void test_info_names_the_conf(void **state)
{
	struct array_conf c = {.profile = "infinidat-6303",
			       .scale = 10,
			       .time_scale = 30,
			       .seed = 7};
	char buf[2048], want[512];

	(void)state;
	t_info(&c, buf, sizeof(buf));
	assert_non_null(strstr(buf, "# TYPE arraysim_info gauge\n"));
	snprintf(want, sizeof(want),
		 "\narraysim_info{profile=\"infinidat-6303\",scale=\"10\","
		 "time_scale=\"30\",seed=\"7\",version=\"%s\"} 1\n",
		 ARRAYSIM_VERSION);
	assert_non_null(strstr(buf, want));
	assert_true(strlen(ARRAYSIM_VERSION) > 0);
	assert_string_not_equal(ARRAYSIM_VERSION, "unknown");
}

static void test_info_defaults_and_escapes(void **state)
{
	struct array_conf c = {.profile = "/tmp/my \"odd\"\\p.ini",
			       .scale = 0.5};
	char buf[2048];

	(void)state;
	t_info(&c, buf, sizeof(buf));
	/* time_scale 0 stands for the scale (tiers/array.h). */
	assert_non_null(strstr(buf,
			       "{profile=\"/tmp/my \\\"odd\\\"\\\\p.ini\","
			       "scale=\"0.5\",time_scale=\"0.5\",seed=\"0\""));
	struct array_conf n = {.profile = "null", .scale = 1};
	t_info(&n, buf, sizeof(buf));
	assert_non_null(strstr(buf,
			       "arraysim_info{profile=\"null\",scale=\"1\","
			       "time_scale=\"1\",seed=\"0\""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_info_names_the_conf),
	    cmocka_unit_test(test_info_defaults_and_escapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
