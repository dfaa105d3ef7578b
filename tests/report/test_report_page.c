/* tools/report_html.c and report_svg.c: the page is self-contained (no
 * script, nothing fetched), escapes what the logs hold, draws every
 * marker, period and stall where the run says, and names the CPU counter
 * its controllers' chart shows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tools/report.h"

static const char samples[] =
    "{\"t\":1,\"interval_s\":1,\"write_iops\":1000,\"write_p99_us\":200}\n"
    "{\"t\":2,\"interval_s\":1,\"write_iops\":1000,\"write_p99_us\":300}\n"
    "{\"t\":3,\"interval_s\":1,\"write_iops\":2,\"faults_active\":1,"
    "\"write_p99_us\":200000}\n"
    "{\"t\":4,\"interval_s\":1,\"write_iops\":1000,\"checksum_errors\":3}\n";
static const char events[] =
    "{\"t\":0,\"event\":\"mount\"}\n"
    "{\"t\":2.0,\"event\":\"inject\",\"id\":1,\"rule\":\"latency "
    "path=/<script>&x\"}\n"
    "{\"t\":3.0,\"event\":\"clear\",\"id\":1}\n"
    "{\"t\":3.5,\"event\":\"block_lost\",\"path\":\"/f\",\"offset\":4096,"
    "\"length\":4096}\n"
    "{\"t\":3.5,\"event\":\"block_lost\",\"path\":\"/g\",\"offset\":0,"
    "\"length\":4096}\n"
    "{\"t\":3.8,\"event\":\"inject\",\"id\":0,\"rule\":\"power-loss\","
    "\"commits_lost\":5}\n"
    "{\"t\":4.0,\"event\":\"unmount\"}\n";

static char *page_of(const char *samples_text, const char *events_text)
{
	struct rfile f = {0};
	FILE *in = fmemopen((void *)samples_text, strlen(samples_text), "r");
	assert_int_equal(rfile_read(in, true, &f), 0);
	fclose(in);
	in = fmemopen((void *)events_text, strlen(events_text), "r");
	assert_int_equal(rfile_read(in, false, &f), 0);
	fclose(in);
	assert_int_equal(f.bad_lines, 0);
	struct rrun r;
	assert_int_equal(rrun_select(&f, REPORT_RUN_LAST, &r), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct report_page p = {"/st<ore", &f, &r, NULL, 0};
	report_html_write(out, &p);
	fclose(out);
	rrun_free(&r);
	rfile_free(&f);
	/* A copy: GCC 12 takes memstream's buffer for a dangling local. */
	char *copy = text ? strdup(text) : NULL;
	free(text);
	assert_non_null(copy);
	return copy;
}

static char *page(void)
{
	return page_of(samples, events);
}

static unsigned count(const char *text, const char *what)
{
	unsigned n = 0;
	for (const char *p = text; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void test_self_contained(void **state)
{
	char *t = page();
	assert_int_equal(count(t, "<script"), 0);
	assert_int_equal(count(t, "<link"), 0);
	assert_int_equal(count(t, "src="), 0);
	assert_int_equal(count(t, "url("), 0);
	/* The only URL is the SVG namespace, which is never fetched. */
	assert_int_equal(count(t, "http"),
			 count(t, "http://www.w3.org/2000/svg"));
	assert_true(count(t, "&lt;script&gt;&amp;x") > 0);
	assert_true(count(t, "/st&lt;ore") == 1);
	free(t);
}

static void test_marks(void **state)
{
	char *t = page();
	unsigned charts = count(t, "<svg class=\"chart\"");
	assert_true(charts >= 5);
	/* Each chart: one inject, one clear, one power loss, and the two
	 * blocks lost at once as one marker. */
	assert_int_equal(count(t, "class=\"marker inject\" data-t=\"2.000\""),
			 charts);
	assert_int_equal(count(t, "class=\"marker clear\" data-t=\"3.000\""),
			 charts);
	assert_int_equal(count(t, "class=\"marker power\" data-t=\"3.800\""),
			 charts);
	assert_int_equal(count(t, "class=\"marker effect\""), charts);
	assert_int_equal(
	    count(t, "class=\"degraded\" data-t0=\"2.000\" data-t1=\"3.000\""),
	    charts);
	assert_int_equal(
	    count(t, "class=\"stall\" data-t0=\"2.000\" data-t1=\"3.000\""),
	    charts);
	/* The inject marker lies at x = left + t / length * width. */
	assert_true(count(t, "x1=\"675\" y1") > 0); /* 70 + 2/4 * 1210 */
	/* The summary: losses, checksum errors, no tiers. */
	assert_true(count(t, "/f offset 4096 length 4096") == 1);
	assert_true(count(t, "power lost: 5 commits") == 1);
	assert_true(count(t, "<th>checksum errors</th><td>3</td>") == 1);
	assert_true(count(t, "Not available: the samples") == 1);
	free(t);
}

/* What the report once hid: a hang with no fault active is flagged, in
 * the table and on the charts; a used-up rule says where it ended. */
/* A replicating run: the Replication section with its lag chart, the
 * replication events marked on every chart; a run without repl_* has no
 * such section. */
static void test_replication_lag_chart(void **state)
{
	(void)state;
	static const char rs[] =
	    "{\"t\":1,\"interval_s\":1,\"repl_lag_s\":0.4,"
	    "\"repl_lag_bytes\":0,\"repl_backlog_txns\":0,"
	    "\"repl_wire_bytes_per_s\":900000}\n"
	    "{\"t\":2,\"interval_s\":1,\"faults_active\":1,\"repl_lag_s\":"
	    "1.5,\"repl_lag_bytes\":4000000,\"repl_backlog_txns\":40,"
	    "\"repl_wire_bytes_per_s\":0}\n"
	    "{\"t\":3,\"interval_s\":1,\"repl_lag_s\":0,"
	    "\"repl_lag_bytes\":0,\"repl_backlog_txns\":0,"
	    "\"repl_wire_bytes_per_s\":4100000}\n";
	static const char re[] =
	    "{\"t\":0,\"event\":\"mount\"}\n"
	    "{\"t\":1.2,\"event\":\"inject\",\"id\":1,\"rule\":"
	    "\"replication-link\"}\n"
	    "{\"t\":1.3,\"event\":\"replication_paused\",\"why\":"
	    "\"replication-link\",\"fault_id\":1,\"lag_s\":0.1}\n"
	    "{\"t\":2.1,\"event\":\"replication_lag\",\"lag_s\":1.01,"
	    "\"threshold_s\":1}\n"
	    "{\"t\":2.5,\"event\":\"clear\",\"id\":1}\n"
	    "{\"t\":2.6,\"event\":\"replication_resumed\",\"why\":"
	    "\"replication-link\",\"lag_s\":1.4}\n"
	    "{\"t\":2.7,\"event\":\"replication_caught_up\",\"lag_s\":0}\n";
	char *t = page_of(rs, re);
	assert_int_equal(count(t, "<h2 class=\"replication\">"), 1);
	assert_int_equal(count(t, "Replication lag"), 1);
	unsigned charts = count(t, "<svg class=\"chart\"");
	/* four replication markers on each chart */
	assert_int_equal(count(t, "<g class=\"marker replication\""),
			 4 * charts);
	assert_true(count(t, "repl paused: replication-link") >= charts);
	assert_true(count(t, "repl lag 1.0 s") >= charts);
	assert_true(count(t, "repl caught up") >= charts);
	free(t);
	t = page();
	assert_int_equal(count(t, "<h2 class=\"replication\">"), 0);
	assert_int_equal(count(t, "marker replication"), 0);
	free(t);
}

static void test_hang_and_used_up_rule(void **state)
{
	static const char hang_samples[] =
	    "{\"t\":1,\"interval_s\":1,\"write_iops\":1000,"
	    "\"write_p99_us\":200}\n"
	    "{\"t\":2,\"interval_s\":1,\"write_iops\":0}\n"
	    "{\"t\":3,\"interval_s\":1,\"write_iops\":0}\n"
	    "{\"t\":4,\"interval_s\":1,\"write_iops\":1000,"
	    "\"write_p99_us\":2500000}\n";
	static const char hang_events[] =
	    "{\"t\":0.2,\"event\":\"inject\",\"id\":1,\"rule\":\"error "
	    "count=1\"}\n"
	    "{\"t\":0.4,\"event\":\"rule_done\",\"id\":1,\"hits\":1}\n"
	    "{\"t\":0.4,\"event\":\"fault_hit\",\"id\":1}\n";
	char *t = page_of(hang_samples, hang_events);
	unsigned charts = count(t, "<svg class=\"chart\"");
	assert_int_equal(count(t, "<tr class=\"hang\">"), 1);
	assert_int_equal(count(t, "<td>HANG: no fault active</td>"), 1);
	assert_int_equal(count(t, ">hang, no fault active: 2.0 s</text>"),
			 charts);
	assert_int_equal(count(t, "0.400 s (used up: its last hit)"), 1);
	assert_int_equal(
	    count(t, "class=\"degraded\" data-t0=\"0.200\" data-t1=\"0.400\""),
	    charts);
	free(t);
}

/* A timed run's samples with ctl_cpu_counter @member ("" for none). */
static char *cpu_page(const char *member)
{
	char st[512];
	snprintf(st, sizeof(st),
		 "{\"t\":1,\"interval_s\":1,\"ctl_busy_pct\":20,"
		 "\"ctl_busy_max_pct\":30%s}\n"
		 "{\"t\":2,\"interval_s\":1,\"ctl_busy_pct\":25,"
		 "\"ctl_busy_max_pct\":40%s}\n",
		 member, member);
	return page_of(st, "{\"t\":0,\"event\":\"mount\"}\n");
}

/* The controllers' CPU chart names the counter the samples carry, and
 * its note says what that one counts: busy cores / cores is only true
 * of some (tiers/README.md, "CPU figures"). */
static void test_ctl_cpu_names_counter(void **state)
{
	static const struct {
		const char *member, *title, *what;
	} c[] = {
	    {",\"ctl_cpu_counter\":\"usage\"", "Controller CPU (usage)",
	     "usage, vCenter's default cpu.usage"},
	    {",\"ctl_cpu_counter\":\"core\"", "Controller CPU (core)",
	     "core, core utilisation by time (esxtop's CORE UTIL): busy "
	     "cores / cores"},
	    {",\"ctl_cpu_counter\":\"utilization\"",
	     "Controller CPU (utilization)",
	     "utilization, ESXi's cpu.utilization (PCPU UTIL): busy "
	     "hardware threads / all threads"},
	    /* Older samples: from before the counters, no hyper-threading. */
	    {"", "Controller CPU (busy cores / cores)",
	     "the samples do not name the counter"},
	    /* What the file says is escaped, and not passed for known. */
	    {",\"ctl_cpu_counter\":\"<b>&\"", "Controller CPU (&lt;b&gt;&amp;)",
	     "&lt;b&gt;&amp;, a counter this arraysim does not know"},
	};
	char key[128];
	(void)state;

	for (size_t i = 0; i < sizeof(c) / sizeof(*c); i++) {
		char *t = cpu_page(c[i].member);
		snprintf(key, sizeof(key), ">%s</text>", c[i].title);
		assert_int_equal(count(t, key), 1);
		assert_int_equal(count(t, ">Controller CPU ("), 1);
		assert_int_equal(count(t, c[i].what), 1);
		assert_int_equal(count(t, "<b>&"), 0);
		free(t);
	}
	/* No controllers' figures (the null profile): no chart, no note. */
	char *t = page();
	assert_int_equal(count(t, "Controller CPU"), 0);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_self_contained),
	    cmocka_unit_test(test_marks),
	    cmocka_unit_test(test_hang_and_used_up_rule),
	    cmocka_unit_test(test_replication_lag_chart),
	    cmocka_unit_test(test_ctl_cpu_names_counter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
