/* tools/report_data.c and report_derive.c: splitting a store's files into
 * runs at the mounts, pairing injects with clears, finding stalls. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tools/report_data.h"

/* 2026-11-30T07:00:00Z: the wall clock of the made-up runs. */
#define WALL0 1796022000.0

static void read_into(const char *text, bool samples, struct rfile *f)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	assert_non_null(in);
	assert_int_equal(rfile_read(in, samples, f), 0);
	fclose(in);
}

/* One sample line at wall second @sec (of WALL0) and sampler time @t,
 * its writes' p99 latency @p99_us. */
static void sample_p99(char **buf, size_t *len, unsigned sec, double t,
		       double wiops, unsigned faults, const char *power,
		       double p99_us)
{
	size_t old = *len;
	char line[512];
	int n = snprintf(line, sizeof(line),
			 "{\"ts\":\"2026-11-30T07:00:%02u.000000Z\",\"t\":%.3f,"
			 "\"interval_s\":1.000,\"read_iops\":0.0,"
			 "\"write_iops\":%.1f,\"write_p99_us\":%.1f,"
			 "\"faults_active\":%u,\"power\":\"%s\"}\n",
			 sec, t, wiops, p99_us, faults, power);
	*buf = realloc(*buf, old + (size_t)n + 1);
	assert_non_null(*buf);
	memcpy(*buf + old, line, (size_t)n + 1);
	*len = old + (size_t)n;
}

static void sample(char **buf, size_t *len, unsigned sec, double t,
		   double wiops, unsigned faults, const char *power)
{
	sample_p99(buf, len, sec, t, wiops, faults, power, 0);
}

static void test_ts(void **state)
{
	assert_true(report_parse_ts("2026-11-30T07:00:00Z") == WALL0);
	double t = report_parse_ts("2026-11-30T07:00:01.250000Z");
	assert_true(t > WALL0 + 1.2499 && t < WALL0 + 1.2501);
	assert_true(report_parse_ts("2026-11-30 07:00:00") == 0);
	assert_true(report_parse_ts("2026-11-30T07:00:00.5+01:00") == 0);
	assert_true(report_parse_ts("") == 0);
	assert_true(report_parse_ts("2026-11-30T07:00:00.5e3Z") == 0);
	assert_true(report_parse_ts("2026-11-30T07:00:00.Z") == 0);
}

static void test_parse_lines(void **state)
{
	struct rsample s;
	bool tiers = false;
	const char *line = "{\"ts\":\"2026-11-30T07:00:01.000000Z\",\"t\":1.0,"
			   "\"write_iops\":7.5,\"power\":\"lost\"}";
	assert_int_equal(rsample_parse(line, strlen(line), &s, &tiers), 0);
	assert_true(s.v[RS_WRITE_IOPS] == 7.5);
	assert_true(s.v[RS_READ_P99] == 0);	/* absent: 0 */
	assert_true(s.v[RS_DEDUPE_RATIO] == 1); /* absent: 1 */
	assert_true(s.power_lost);
	assert_false(tiers);
	line = "{\"t\":2,\"tier_ssd_iops\":3}";
	assert_int_equal(rsample_parse(line, strlen(line), &s, &tiers), 0);
	assert_true(tiers);
	line = "{\"write_iops\":1}"; /* no t: not a sample */
	assert_int_equal(rsample_parse(line, strlen(line), &s, &tiers), -1);

	struct revent e;
	line = "{\"ts\":\"2026-11-30T07:00:00.000000Z\",\"t\":0.5,\"event\":"
	       "\"inject\",\"id\":0,\"rule\":\"power-loss\","
	       "\"commits_lost\":12}";
	assert_int_equal(revent_parse(line, strlen(line), &e), 0);
	assert_string_equal(e.event, "inject");
	assert_string_equal(e.rule, "power-loss");
	assert_int_equal(e.commits_lost, 12);
	line = "{\"t\":1,\"event\":\"block_lost\",\"path\":\"/a\\\"b\","
	       "\"offset\":8192,\"length\":4096}";
	assert_int_equal(revent_parse(line, strlen(line), &e), 0);
	assert_string_equal(e.path, "/a\"b");
	assert_int_equal(e.offset, 8192);
	assert_int_equal(e.commits_lost, -1);
	line = "{\"t\":1}"; /* no event name */
	assert_int_equal(revent_parse(line, strlen(line), &e), -1);
}

static const char events2[] =
    "{\"ts\":\"2026-11-30T07:00:00.000000Z\",\"t\":0.0,\"event\":\"mount\"}\n"
    "{\"ts\":\"2026-11-30T07:00:01.000000Z\",\"t\":1.0,\"event\":\"inject\","
    "\"id\":1,\"rule\":\"error\"}\n"
    "not json at all\n"
    "{\"ts\":\"2026-11-30T07:00:02.000000Z\",\"t\":2.0,\"event\":\"unmount\""
    ",}\n" /* as events.c wrote it before it was fixed: refused */
    "{\"ts\":\"2026-11-30T07:00:10.000000Z\",\"t\":0.0,\"event\":\"mount\"}\n"
    "{\"ts\":\"2026-11-30T07:00:11.000000Z\",\"t\":1.0,\"event\":\"inject\","
    "\"id\":1,\"rule\":\"latency latency=1s\"}\n"
    "{\"ts\":\"2026-11-30T07:00:13.000000Z\",\"t\":3.0,\"event\":\"clear\","
    "\"id\":1}\n"
    "{\"ts\":\"2026-11-30T07:00:14.000000Z\",\"t\":4.0,\"event\":\"unmount\""
    "}\n";

static void test_split_runs(void **state)
{
	struct rfile f = {0};
	char *s = NULL;
	size_t len = 0;
	/* Run 1: t 1..2; run 2: t restarts, and its first sample is at a
	 * larger t than run 1's last: only the wall clock tells them apart. */
	sample(&s, &len, 1, 1.0, 100, 0, "on");
	sample(&s, &len, 2, 2.0, 100, 1, "on");
	sample(&s, &len, 12, 2.5, 100, 1, "on");
	sample(&s, &len, 13, 3.5, 100, 0, "on");
	sample(&s, &len, 14, 4.0, 100, 0, "on");
	read_into(s, true, &f);
	read_into(events2, false, &f);
	free(s);
	assert_int_equal(f.ns, 5);
	assert_int_equal(f.ne, 6);
	assert_int_equal(f.bad_lines, 2);
	assert_int_equal(rfile_runs(&f), 2);

	struct rrun r;
	assert_int_equal(rrun_select(&f, REPORT_RUN_LAST, &r), 0);
	assert_int_equal(r.index, 2);
	assert_int_equal(r.ns, 3);
	assert_true(r.s[0].t == 2.5);
	assert_int_equal(r.ne, 4);
	assert_true(r.length == 4.0);
	assert_int_equal(r.nperiods, 1);
	assert_true(r.periods[0].cleared);
	assert_true(r.periods[0].start == 1.0 && r.periods[0].end == 3.0);
	rrun_free(&r);

	assert_int_equal(rrun_select(&f, 1, &r), 0);
	assert_int_equal(r.ns, 2);
	assert_int_equal(r.ne, 2);
	assert_true(r.length == 2.0);
	/* Its unmount line was refused: still active at the run's end. */
	assert_int_equal(r.nperiods, 1);
	assert_false(r.periods[0].cleared);
	assert_true(r.periods[0].end == 2.0);
	rrun_free(&r);

	assert_int_equal(rrun_select(&f, 3, &r), -ERANGE);
	/* Runs count from 1: 0 is no run (it once meant the last). */
	assert_int_equal(rrun_select(&f, 0, &r), -ERANGE);
	rfile_free(&f);
}

static void test_no_mount_events(void **state)
{
	struct rfile f = {0};
	char *s = NULL;
	size_t len = 0;
	sample(&s, &len, 1, 1.0, 100, 0, "on");
	sample(&s, &len, 2, 2.0, 100, 0, "on");
	read_into(s, true, &f);
	free(s);
	assert_int_equal(rfile_runs(&f), 1);
	struct rrun r;
	assert_int_equal(rrun_select(&f, 1, &r), 0);
	assert_int_equal(r.ns, 2);
	assert_int_equal(r.ne, 0);
	rrun_free(&r);
	rfile_free(&f);
}

/* A run made of @ev events (no mount line needed) and @n samples. */
static void run_of(struct rfile *f, const char *ev, struct rrun *r)
{
	read_into(ev, false, f);
	assert_int_equal(f->bad_lines, 0);
	assert_int_equal(rrun_select(f, REPORT_RUN_LAST, r), 0);
}

static void test_pairing(void **state)
{
	static const char ev[] =
	    "{\"t\":1,\"event\":\"inject\",\"id\":1,\"rule\":\"a\"}\n"
	    "{\"t\":1.5,\"event\":\"fault_hit\",\"id\":1}\n"
	    "{\"t\":2,\"event\":\"inject\",\"id\":2,\"rule\":\"b\"}\n"
	    "{\"t\":2.5,\"event\":\"inject\",\"id\":0,\"rule\":\"bitrot\"}\n"
	    "{\"t\":3,\"event\":\"clear\",\"id\":1}\n"
	    "{\"t\":3.5,\"event\":\"fault_hit\",\"id\":1}\n"
	    "{\"t\":4,\"event\":\"inject\",\"id\":3,\"rule\":\"c\"}\n"
	    "{\"t\":5,\"event\":\"clear\",\"id\":0}\n" /* clear all */
	    "{\"t\":6,\"event\":\"inject\",\"id\":4,\"rule\":\"d\"}\n"
	    "{\"t\":8,\"event\":\"scenario_end\"}\n";
	struct rfile f = {0};
	struct rrun r;
	run_of(&f, ev, &r);
	assert_int_equal(r.nperiods, 4); /* id 0 acts at once: none */
	const struct {
		uint64_t id;
		double start, end;
		bool cleared;
		uint64_t hits;
	} want[] = {{1, 1, 3, true, 1},
		    {2, 2, 5, true, 0},
		    {3, 4, 5, true, 0},
		    {4, 6, 8, false, 0}};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(r.periods[i].id, want[i].id);
		assert_true(r.periods[i].start == want[i].start);
		assert_true(r.periods[i].end == want[i].end);
		assert_int_equal(r.periods[i].cleared, want[i].cleared);
		assert_int_equal(r.periods[i].hits, want[i].hits);
	}
	rrun_free(&r);
	rfile_free(&f);
}

/* Samples at t = 1..@n with @iops each; @faults per sample; @p99_us
 * their write p99 (NULL: 0). */
static struct rrun stall_run_p99(struct rfile *f, const double *iops,
				 const unsigned *faults, const double *p99_us,
				 unsigned n, const char *events)
{
	char *s = NULL;
	size_t len = 0;
	for (unsigned i = 0; i < n; i++)
		sample_p99(&s, &len, i + 1, i + 1.0, iops[i], faults[i], "on",
			   p99_us ? p99_us[i] : 0);
	read_into(s, true, f);
	free(s);
	struct rrun r;
	run_of(f, events, &r);
	return r;
}

static struct rrun stall_run(struct rfile *f, const double *iops,
			     const unsigned *faults, unsigned n,
			     const char *events)
{
	return stall_run_p99(f, iops, faults, NULL, n, events);
}

static void test_stalls(void **state)
{
	/* Baseline: median of the unfaulted samples with I/O (1000). Two
	 * stalls: samples 4-5 (2 s, merged: the writes that complete in
	 * sample 6 waited 1.5 s, through 5) and 8; sample 7 is slow but
	 * over 5%; sample 10 is idle with no fault: not a stall. */
	const double iops[] = {900, 1000, 1100, 3, 0, 1000, 60, 10, 1000, 0};
	const unsigned faults[] = {0, 0, 0, 1, 1, 0, 1, 1, 0, 0};
	const double p99[] = {0, 0, 0, 0, 0, 1.5e6, 0, 0, 0, 0};
	struct rfile f = {0};
	struct rrun r = stall_run_p99(&f, iops, faults, p99, 10, "");
	assert_true(r.baseline_iops == 1000);
	assert_int_equal(r.nstalls, 2);
	assert_true(r.stalls[0].start == 3 && r.stalls[0].end == 5);
	assert_true(r.stalls[0].min_iops == 0);
	assert_true(r.stalls[1].start == 7 && r.stalls[1].end == 8);
	assert_true(r.stalls[1].min_iops == 10);
	/* A larger fraction takes sample 7 in, joining 7 and 8. */
	assert_int_equal(rrun_stalls(&r, 0.1), 0);
	assert_int_equal(r.nstalls, 2);
	assert_true(r.stalls[1].start == 6 && r.stalls[1].end == 8);
	rrun_free(&r);
	rfile_free(&f);
}

static void test_stall_from_events(void **state)
{
	/* faults_active is read at the sample's end: a fault injected and
	 * cleared within one interval leaves it 0, the event log does not. */
	const double iops[] = {1000, 1000, 1, 1000, 1000};
	const unsigned faults[] = {0, 0, 0, 0, 0};
	static const char ev[] =
	    "{\"t\":2.2,\"event\":\"inject\",\"id\":7,\"rule\":\"x\"}\n"
	    "{\"t\":2.8,\"event\":\"clear\",\"id\":7}\n";
	struct rfile f = {0};
	struct rrun r = stall_run(&f, iops, faults, 5, ev);
	assert_int_equal(r.nstalls, 1);
	assert_true(r.stalls[0].start == 2 && r.stalls[0].end == 3);
	rrun_free(&r);
	rfile_free(&f);
}

/* The array model's series: read when there, NAN (a gap) when not; a
 * rebuild is a run of samples with a drive rebuilding. */
static void test_tiers_and_rebuilds(void **state)
{
	static const char text[] =
	    "{\"t\":1,\"interval_s\":1,\"tier_cache_iops\":40,"
	    "\"cache_hit_ratio\":0.5,\"drives_rebuilding\":0}\n"
	    "{\"t\":2,\"interval_s\":1,\"drives_rebuilding\":1}\n"
	    "{\"t\":3,\"interval_s\":1,\"drives_rebuilding\":2}\n"
	    "{\"t\":4,\"interval_s\":1,\"drives_rebuilding\":0}\n"
	    "{\"t\":5,\"interval_s\":1,\"drives_rebuilding\":1}\n"
	    "{\"t\":6,\"interval_s\":1}\n";
	struct rfile f = {0};
	struct rrun r;
	(void)state;
	read_into(text, true, &f);
	assert_int_equal(rrun_select(&f, REPORT_RUN_LAST, &r), 0);
	assert_true(r.s[0].v[RS_CACHE_IOPS] == 40);
	assert_true(r.s[0].v[RS_CACHE_HIT_RATIO] == 0.5);
	assert_true(isnan(r.s[0].v[RS_BACKING_IOPS])); /* no such tier */
	assert_true(isnan(r.s[1].v[RS_CACHE_HIT_RATIO]));
	assert_true(r.s[1].v[RS_READ_IOPS] == 0); /* host series: 0 */
	assert_int_equal(r.nrebuilds, 2);
	assert_true(r.rebuilds[0].start == 1 && r.rebuilds[0].end == 3);
	assert_true(r.rebuilds[1].start == 4 && r.rebuilds[1].end == 5);
	rrun_free(&r);
	rfile_free(&f);
}

static void test_no_baseline(void **state)
{
	/* Every sample with I/O has a fault: no baseline, no stalls. */
	const double iops[] = {0, 5, 0};
	const unsigned faults[] = {1, 1, 1};
	struct rfile f = {0};
	struct rrun r = stall_run(&f, iops, faults, 3, "");
	assert_true(r.baseline_iops == 0);
	assert_int_equal(r.nstalls, 0);
	rrun_free(&r);
	rfile_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ts),
	    cmocka_unit_test(test_parse_lines),
	    cmocka_unit_test(test_split_runs),
	    cmocka_unit_test(test_no_mount_events),
	    cmocka_unit_test(test_pairing),
	    cmocka_unit_test(test_stalls),
	    cmocka_unit_test(test_stall_from_events),
	    cmocka_unit_test(test_no_baseline),
	    cmocka_unit_test(test_tiers_and_rebuilds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
