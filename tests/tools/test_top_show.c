/* tools/top_show.c: top's screen from hand-made samples. Issue 13: top
 * neither said what it emulated nor that the host, not the model, set the
 * figures (23,623 of 24,576 replies late, shown as the array's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tools/report_json.h"
#include "tools/top.h"

static char t_out[8192];

/* top_show of the JSON lines @sample and @mount ("" for none). */
static const char *t_show(const char *sample, const char *mount)
{
	struct rj_obj s = {.n = 0}, m = {.n = 0};
	FILE *f = fmemopen(t_out, sizeof(t_out) - 1, "w");

	assert_non_null(f);
	memset(t_out, 0, sizeof(t_out));
	if (*sample)
		assert_int_equal(rj_parse(sample, strlen(sample), &s), 0);
	if (*mount)
		assert_int_equal(rj_parse(mount, strlen(mount), &m), 0);
	top_show(f, "/mnt", &s, &m, "");
	fclose(f);
	return t_out;
}

static const char mount_ev[] =
    "{\"ts\":\"2026-12-01T10:00:00.000000Z\",\"t\":0,\"event\":\"mount\","
    "\"store\":\"/s\",\"seed\":42,\"profile\":\"infinidat-6303\","
    "\"scale\":10,\"time_scale\":30,\"version\":\"0.1.0\"}";

static void test_header_names_what_is_emulated(void **state)
{
	(void)state;
	const char *o = t_show("{\"t\":3,\"power\":\"on\"}", mount_ev);
	assert_non_null(strstr(o, "arraysim /mnt  t=3s  power on\n"
				  "profile infinidat-6303  scale 10  time "
				  "scale 30  seed 42  arraysim 0.1.0\n"));
	/* An older mount event (store and seed only), or none. */
	o = t_show("{\"t\":3}", "{\"t\":0,\"event\":\"mount\",\"seed\":5}");
	assert_non_null(strstr(o, "\nprofile ?  seed 5\n"));
	o = t_show("", "");
	assert_non_null(strstr(o, "\nprofile ?\n"));
}

/* A replicating mount's sample: one line of lag, backlog, rate, saved;
 * a sample without replication has none. */
static void test_replication_line(void **state)
{
	(void)state;
	const char *o = t_show(
	    "{\"t\":9,\"repl_state\":\"running\",\"repl_held_by\":"
	    "\"replication-link\",\"repl_lag_s\":4.25,\"repl_lag_bytes\":"
	    "12000000,\"repl_backlog_txns\":31,\"repl_wire_bytes_per_s\":0,"
	    "\"repl_saved_bytes\":2500000}",
	    mount_ev);
	assert_non_null(strstr(o, "\nreplication running, held by "
				  "replication-link  lag 4.250 s 12.000 MB  "
				  "backlog 31 txns  0.00 MB/s  saved 2.500 "
				  "MB\n"));
	o = t_show("{\"t\":9}", mount_ev);
	assert_null(strstr(o, "replication"));
}

static void test_host_late_share_and_warning(void **state)
{
	(void)state;
	const char *o = t_show("{\"t\":3,\"array_up\":1,\"host_late_share\":"
			       "0.0123,\"host_worst_late_ms\":2.5}",
			       mount_ev);
	assert_non_null(strstr(o, "\nhost late 1.2% of replies, worst 2.500 ms "
				  "late\n"));
	assert_null(strstr(o, "HOST-BOUND"));
	o = t_show("{\"t\":3,\"array_up\":1,\"host_late_share\":0.961,"
		   "\"host_worst_late_ms\":140.25}",
		   mount_ev);
	assert_non_null(strstr(o, "\nhost late 96.1% of replies, worst 140.250 "
				  "ms late  !! HOST-BOUND"));
	/* Just past 5% warns, 5% itself does not. */
	o = t_show("{\"host_late_share\":0.05,\"host_worst_late_ms\":1}", "");
	assert_null(strstr(o, "HOST-BOUND"));
	o = t_show("{\"host_late_share\":0.0501,\"host_worst_late_ms\":1}", "");
	assert_non_null(strstr(o, "HOST-BOUND"));
	/* The null profile has no such figure: no line. */
	o = t_show("{\"t\":3,\"read_iops\":5}", "");
	assert_null(strstr(o, "host late"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_header_names_what_is_emulated),
	    cmocka_unit_test(test_host_late_share_and_warning),
	    cmocka_unit_test(test_replication_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
