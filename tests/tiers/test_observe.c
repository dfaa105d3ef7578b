/* What the observability layer reads of the model (tiers/model_state.c,
 * tiers/array_snapshot.c, tiers/array_metrics.c), in emulated time for
 * the model and on a real (timed, unmounted) array for the snapshot:
 * a pulled drive is failed until noticed, rebuilding for exactly
 * used / rate with its remaining bytes falling linearly, then ok if
 * returned and failed if not; controllers recover only after
 * recovery_time; the exposition carries the states the snapshot saw.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "tests/tiers/t_model.h"
#include "tiers/array_metrics.h"
#include "tiers/array_samples.h"
#include "tiers/array_snapshot.h"
#include "tiers/array_stats.h"
#include "tiers/model_state.h"

/* raid5 of 4 SSDs, 1G each, half full, rebuilt at 100 MB/s. */
static const char t_text[] =
    "[controllers]\ncount = 2\nmode = active-active\ncores = 8\n"
    "failover_time = 10s\nrecovery_time = 2s\n"
    "[frontend]\nlinks = 2\nspeed = 100GbE\nmultipath_timeout = 5s\n"
    "[tier flash]\nkind = ssd\ndrives = 4\ncapacity = 1G\nraid = raid5\n"
    "read_latency = 100us\nwrite_latency = 50us\nslots = 4\n"
    "fill = 50%\nrebuild_rate = 100M/s\ndetection_window = 1s\n";

/* Set or clear a fault; the drive's rebuild length, when it starts one. */
static uint64_t t_fault(struct model *m, uint64_t now,
			enum model_fault_kind kind, unsigned id, bool on)
{
	struct model_fault f = {.kind = kind, .id = id, .factor = 3.0};
	struct model_fault_effect eff;

	assert_int_equal(model_fault(m, now, &f, on, &eff), 0);
	return eff.rebuild_end_ns - eff.fail_ns;
}

/* The state at @now, the rebuilds booked up to then (they run on their
 * own clock: model_advance). */
static enum model_drive_state t_state(struct model *m, unsigned id,
				      uint64_t now, struct model_drive_view *v)
{
	model_advance(m, now);
	assert_int_equal(model_drive_view(m, PROFILE_TIER_FLASH, id, now, v),
			 0);
	return v->state;
}

static void test_drive_pull_returned(void **state)
{
	struct profile *p = t_profile(t_text);
	struct model *m = t_model(p, 1.0, 1);
	const struct profile_tier *pt = &p->tier[PROFILE_TIER_FLASH];
	uint64_t used = (uint64_t)((double)pt->capacity_bytes * 0.5);
	uint64_t rebuild_ns, end;
	struct model_drive_view v;
	(void)state;

	assert_int_equal(t_state(m, 2, 0, &v), MODEL_DRIVE_OK);
	assert_int_equal(v.rebuild_bytes, 0);
	rebuild_ns = t_fault(m, 10 * S, MODEL_FAULT_DRIVE, 2, true);
	/* used / rate, rate 100M/s = 100 MiB/s */
	t_assert_within((double)rebuild_ns, (double)used / 1048576e2 * 1e9,
			1e-9);
	/* Pulled, not noticed yet: failed, nothing rebuilt. */
	assert_int_equal(t_state(m, 2, 10 * S + 500 * MS, &v),
			 MODEL_DRIVE_FAILED);
	assert_int_equal(v.rebuild_bytes, used);
	assert_int_equal(v.rebuild_left, used);
	/* Half way through the rebuild: half left. */
	assert_int_equal(t_state(m, 2, 11 * S + rebuild_ns / 2, &v),
			 MODEL_DRIVE_REBUILDING);
	t_assert_within((double)v.rebuild_left, (double)used / 2, 1e-6);
	t_fault(m, 11 * S + rebuild_ns / 2, MODEL_FAULT_DRIVE, 2, false);
	/* Returned: the rebuild runs on to its end, when the idle drives
	 * finish its last chunk (within a chunk of used / rate), then it
	 * is ok. */
	assert_int_equal(t_state(m, 2, 11 * S + rebuild_ns - 20 * MS, &v),
			 MODEL_DRIVE_REBUILDING);
	assert_true(v.rebuild_left > 0 && v.rebuild_left <= 2 * 1048576);
	/* Not all booked yet: the soonest end, its plan. */
	assert_int_equal(
	    model_rebuild_end(m, PROFILE_TIER_FLASH, 2, 11 * S, &end), -EAGAIN);
	assert_int_equal(end, 11 * S + rebuild_ns);
	assert_int_equal(t_state(m, 2, 11 * S + rebuild_ns, &v),
			 MODEL_DRIVE_OK);
	assert_int_equal(v.rebuild_left, 0);
	/* Done: when the drives finished it. */
	assert_int_equal(
	    model_rebuild_end(m, PROFILE_TIER_FLASH, 2, 11 * S, &end), 0);
	t_assert_within((double)(end - 11 * S), (double)rebuild_ns, 0.01);
	assert_true(end <= 11 * S + rebuild_ns);
	assert_int_equal(v.rebuild_left, 0);
	assert_int_equal(t_state(m, 1, 11 * S, &v), MODEL_DRIVE_OK);
	model_free(m);
	free(p);
}

static void test_drive_pull_kept_and_slow(void **state)
{
	struct profile *p = t_profile(t_text);
	struct model *m = t_model(p, 1.0, 1);
	struct model_drive_view v;
	(void)state;

	t_fault(m, 0, MODEL_FAULT_DRIVE, 0, true);
	/* Still out after its rebuild: failed, with nothing left to do. */
	assert_int_equal(t_state(m, 0, 100 * S, &v), MODEL_DRIVE_FAILED);
	assert_int_equal(v.rebuild_left, 0);
	assert_true(v.rebuild_bytes > 0);
	t_fault(m, 100 * S, MODEL_FAULT_DRIVE_SLOW, 3, true);
	assert_int_equal(t_state(m, 3, 100 * S, &v), MODEL_DRIVE_SLOW);
	assert_int_equal(model_drive_view(m, PROFILE_TIER_FLASH, 4, 0, &v),
			 -EINVAL);
	assert_int_equal(model_drive_view(m, PROFILE_TIER_CACHE, 0, 0, &v),
			 -EINVAL);
	assert_int_equal(model_drive_res(m, PROFILE_TIER_FLASH, 4), -1);
	model_free(m);
	free(p);
}

static void test_controllers_and_paths(void **state)
{
	struct profile *p = t_profile(t_text);
	struct model *m = t_model(p, 1.0, 1);
	(void)state;

	assert_true(model_ctl_up(m, 1, 0) && model_path_up(m, 1));
	t_fault(m, S, MODEL_FAULT_CONTROLLER, 1, true);
	t_fault(m, S, MODEL_FAULT_PATH, 1, true);
	assert_false(model_ctl_up(m, 1, S));
	assert_false(model_path_up(m, 1));
	assert_true(model_ctl_up(m, 0, S) && model_path_up(m, 0));
	t_fault(m, 5 * S, MODEL_FAULT_CONTROLLER, 1, false);
	/* Restored: serves again only recovery_time (2 s) later. */
	assert_false(model_ctl_up(m, 1, 7 * S - 1));
	assert_true(model_ctl_up(m, 1, 7 * S));
	assert_false(model_ctl_up(m, 2, 7 * S)); /* no such controller */
	model_free(m);
	free(p);
}

static char *t_exposition(struct array *a, struct array_snapshot *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(array_snapshot(a, s), 0);
	array_metrics_write(f, s);
	fclose(f);
	return text;
}

/* The sample members of @a (a hybrid with backing drive 3 just pulled,
 * nothing read): both tiers, no hit ratio (no lookups), one drive
 * failed and nothing rebuilt yet. */
static void t_sample_members(struct array *a)
{
	static struct array_sample_prev prev;
	struct array_snapshot s;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(array_snapshot(a, &s), 0);
	array_sample_write(f, &s, &prev, 1.0);
	fclose(f);
	assert_non_null(strstr(text, ",\"tier_cache_iops\":0.0,"));
	assert_non_null(strstr(text, ",\"tier_backing_qd\":0.000,"));
	assert_null(strstr(text, "tier_flash"));
	assert_null(strstr(text, "cache_hit_ratio"));
	assert_non_null(strstr(text, "\"rebuild_ratio\":0.0000,"));
	assert_non_null(strstr(text, "\"drives_failed\":1,"
				     "\"drives_rebuilding\":0,"));
	assert_non_null(strstr(text, "\"array_up\":1"));
	array_snapshot_free(&s);
	free(text);
}

static void test_snapshot_null(void **state)
{
	struct array *a;
	struct array_snapshot s;
	char *text;
	(void)state;

	assert_int_equal(array_new("null", 1.0, 0, &a), 0);
	text = t_exposition(a, &s);
	assert_false(s.timed);
	assert_string_equal(text, ""); /* no array series at all */
	array_snapshot_free(&s);
	free(text);
	array_free(a);
}

static void test_snapshot_hybrid(void **state)
{
	struct model_fault f = {
	    .kind = MODEL_FAULT_DRIVE, .tier = PROFILE_TIER_BACKING, .id = 3};
	struct model_fault_effect eff;
	struct array_snapshot s;
	struct array *a;
	uint64_t now;
	char err[256], *text;
	(void)state;

	assert_int_equal(array_new("hybrid", 1.0, 0, &a), 0);
	assert_int_equal(array_fault(a, &f, true, &now, &eff, err, sizeof(err)),
			 0);
	text = t_exposition(a, &s);
	assert_true(s.timed && s.has_cache && !s.down);
	assert_int_equal(s.nctl, 2);
	assert_int_equal(s.tier[PROFILE_TIER_BACKING].drives, 12);
	/* Pulled within its detection window (30 s): failed, all left. */
	assert_int_equal(
	    s.tier[PROFILE_TIER_BACKING].in_state[MODEL_DRIVE_FAILED], 1);
	assert_int_equal(s.tier[PROFILE_TIER_BACKING].in_state[MODEL_DRIVE_OK],
			 11);
	assert_int_equal(s.tier[PROFILE_TIER_BACKING].rebuild_left,
			 eff.rebuild_bytes);
	assert_false(s.tier[PROFILE_TIER_FLASH].present);
	assert_non_null(strstr(text, "arraysim_drive_state{tier=\"backing\","
				     "drive=\"3\",state=\"failed\"} 1\n"));
	assert_non_null(strstr(text, "arraysim_drive_state{tier=\"backing\","
				     "drive=\"3\",state=\"ok\"} 0\n"));
	assert_non_null(strstr(
	    text, "arraysim_rebuild_progress_ratio{tier=\"backing\"} 0\n"));
	assert_non_null(strstr(
	    text, "arraysim_rebuild_progress_ratio{tier=\"cache\"} 1\n"));
	assert_non_null(
	    strstr(text, "arraysim_controller_up{controller=\"1\"} 1\n"));
	assert_non_null(strstr(
	    text, "arraysim_tier_ops_total{tier=\"cache\",op=\"write\"} 0\n"));
	assert_null(strstr(text, "tier=\"flash\""));
	assert_non_null(strstr(text, "arraysim_requests_in_flight 0\n"));
	array_snapshot_free(&s);
	free(text);
	t_sample_members(a);
	array_free(a);
}

static void t_done(struct array_io *io)
{
	(void)io;
}

/* The number right after @key in @text (which must hold it). */
static double t_after(const char *text, const char *key)
{
	const char *at = strstr(text, key);

	assert_non_null(at);
	return strtod(at + strlen(key), NULL);
}

/* 20 timed 4 KiB reads, 1 MiB apart, all submitted at once; waits for
 * their replies (the completer's, on its own thread). */
static void t_read20(struct array *a)
{
	static struct array_io ios[20];
	for (unsigned i = 0; i < 20; i++) {
		ios[i] = (struct array_io){.kind = ARRAY_IO_READ,
					   .offset = (uint64_t)i << 20,
					   .length = 4096,
					   .complete = t_done};
		ios[i].submit_ns = clock_mono_ns();
		array_submit(a, &ios[i]);
	}
	for (unsigned k = 0; k < 2000 && array_in_flight(a); k++)
		usleep(1000);
	assert_int_equal(array_in_flight(a), 0);
}

/* Host-bound replies through the snapshot to Prometheus and the samples
 * (issue 13, point 4): at --scale 1000 a 4 KiB read is modelled in well
 * under a microsecond, which no host wakes up for, so replies are late;
 * their count, share and worst lateness are exposed. */
static void test_late_replies_exposed(void **state)
{
	static struct array_sample_prev prev;
	struct array_snapshot s;
	struct array *a;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	(void)state;

	assert_int_equal(array_new("micron-m600", 1000, 1, &a), 0);
	t_read20(a);
	text = t_exposition(a, &s);
	assert_int_equal(s.host.completed, 20);
	assert_int_equal(s.host.completed_1s, 20);
	assert_int_equal(s.host.late_10s, s.host.late);
	assert_true(s.host.late > 0);
	assert_true(s.host.worst_1s_ns > 0 &&
		    s.host.worst_1s_ns == s.host.worst_ns);
	assert_non_null(strstr(text, "\narraysim_replies_total 20\n"));
	assert_true(t_after(text, "\narraysim_late_replies_total ") ==
		    (double)s.host.late);
	t_assert_within(t_after(text, "\narraysim_late_share "),
			(double)s.host.late / 20, 1e-4);
	t_assert_within(t_after(text, "\narraysim_worst_lateness_seconds "),
			(double)s.host.worst_1s_ns / 1e9, 1e-6);
	assert_non_null(strstr(text, "# TYPE arraysim_late_replies_total "
				     "counter\n"));
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	array_sample_write(f, &s, &prev, 1.0);
	fclose(f);
	t_assert_within(t_after(text, ",\"host_late_share\":"),
			(double)s.host.late / 20, 1e-3);
	/* Printed to the microsecond. */
	assert_true(fabs(t_after(text, ",\"host_worst_late_ms\":") -
			 (double)s.host.worst_1s_ns / 1e6) <= 0.0005 + 1e-9);
	array_snapshot_free(&s);
	free(text);
	array_free(a);
}

/* How full each resource was, through the snapshot to Prometheus and the
 * samples: 20 reads on the hybrid (each 50 us of controller CPU for the
 * host operation and 10 us for its one drive operation, 8 cores) leave
 * the controllers' busy time at the reads' CPU over the cores,
 * which the series carry and the sample turns into utilisation. */
static void test_busy_exposed(void **state)
{
	static struct array_sample_prev prev;
	struct array_snapshot s;
	struct array *a;
	char *text = NULL, key[160];
	size_t len = 0;
	FILE *f;
	(void)state;

	assert_int_equal(array_new("hybrid", 1.0, 1, &a), 0);
	t_read20(a);
	text = t_exposition(a, &s);
	uint64_t ctl_busy = 0;
	unsigned nctl = 0;
	for (unsigned i = 0; i < s.nres; i++) {
		const struct array_snap_res *r = &s.res[i];
		if (r->kind != ARRAY_RES_CTL)
			continue;
		/* The hybrid's counter is the default, usage. */
		snprintf(key, sizeof(key),
			 "arraysim_resource_busy_seconds_total{kind="
			 "\"controller\",resource=\"%s\",part=\"slots\","
			 "counter=\"usage\"} ",
			 r->name);
		t_assert_within(t_after(text, key), (double)r->busy_ns / 1e9,
				1e-6);
		ctl_busy += r->busy_ns;
		nctl++;
	}
	assert_int_equal(nctl, 2);
	/* 20 x 60 us of CPU over 8 cores, on whichever controller. */
	t_assert_within((double)ctl_busy, 20 * 60e3 / 8, 0.01);
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	/* The same snapshot as a sample; over a 1 ms interval, that is 7.5% of
	 * the two controllers. */
	array_sample_write(f, &s, &prev, 0.001);
	fclose(f);
	t_assert_within(t_after(text, ",\"ctl_busy_pct\":"),
			100.0 * (20 * 60e-6 / 8) / 0.001 / 2, 0.01);
	array_snapshot_free(&s);
	free(text);
	array_free(a);
}

/* The controllers' busy series name the counter their slots time is by
 * ([controllers] cpu_counter) in a label, each counter its own; their
 * gate and wire, and the other kinds, keep their labels. A hand-made
 * snapshot: one controller, one link. */
static void test_busy_names_counter(void **state)
{
	static const char *const names[] = {"usage", "core", "utilization"};
	struct array_snap_res res[] = {
	    {.name = "ctl0", .kind = ARRAY_RES_CTL, .busy_ns = 1500000000},
	    {.name = "link0.in", .kind = ARRAY_RES_LINK, .busy_ns = 2 * S},
	};
	struct array_snapshot s = {.timed = true, .nres = 2, .res = res};
	char key[200];
	(void)state;

	for (unsigned i = 0; i < 3; i++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		snprintf(s.cpu_counter, sizeof(s.cpu_counter), "%s", names[i]);
		array_metrics_write(f, &s);
		fclose(f);
		snprintf(key, sizeof(key),
			 "\narraysim_resource_busy_seconds_total{kind="
			 "\"controller\",resource=\"ctl0\",part=\"slots\","
			 "counter=\"%s\"} 1.500000000\n",
			 names[i]);
		assert_non_null(strstr(text, key));
		/* That series only: one counter label in the exposition. */
		assert_null(strstr(strstr(text, "counter=\"") + 1, "counter="));
		assert_non_null(
		    strstr(text, "\narraysim_resource_busy_seconds_total{kind="
				 "\"controller\",resource=\"ctl0\",part="
				 "\"gate\"} 0.000000000\n"));
		assert_non_null(
		    strstr(text, "\narraysim_resource_busy_seconds_total{kind="
				 "\"link\",resource=\"link0.in\",part="
				 "\"slots\"} 2.000000000\n"));
		free(text);
	}
}

/* The counter label is the profile's, through the snapshot: a profile
 * file with hyper-threading and cpu_counter = utilization. */
static void test_busy_counter_from_profile(void **state)
{
	char path[] = "/tmp/arraysim-observe-XXXXXX.ini";
	int fd = mkstemps(path, 4);
	struct array_snapshot s;
	struct array *a;
	char *text;
	(void)state;

	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	/* t_text's [controllers] first, with the two keys added. */
	fprintf(f,
		"[controllers]\nthreads_per_core = 2\n"
		"cpu_counter = utilization\n%s",
		strchr(t_text, '\n') + 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(array_new(path, 1.0, 1, &a), 0);
	unlink(path);
	text = t_exposition(a, &s);
	assert_non_null(strstr(text,
			       "{kind=\"controller\",resource=\"ctl0\","
			       "part=\"slots\",counter=\"utilization\"} "));
	assert_null(strstr(text, "counter=\"usage\""));
	array_snapshot_free(&s);
	free(text);
	array_free(a);
}

/* @s as a sample over 1 ms: the controllers' average, and the busiest
 * one's, which the work spread over several (@most of @busy) must show
 * as itself, not as their sum. */
static void t_nodes_sample(const struct array_snapshot *s, uint64_t busy,
			   uint64_t most)
{
	static struct array_sample_prev prev;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_true(most < busy);
	array_sample_write(f, s, &prev, 0.001);
	fclose(f);
	t_assert_within(t_after(text, ",\"ctl_busy_pct\":"),
			100.0 * (double)busy / 1e9 / 0.001 / 8, 0.01);
	t_assert_within(t_after(text, ",\"ctl_busy_max_pct\":"),
			100.0 * (double)most / 1e9 / 0.001, 0.01);
	free(text);
}

/* Several nodes (xtremio-xbrick4: 4 nodes of 2 controllers of 16 cores,
 * 25 SSDs, 4 interconnect ports): every node's drives in the snapshot
 * and the exposition, once each (ids 0 to 99), the interconnect ports as
 * links, and `stats --array` with each node's CPU. 20 reads cost 120 us
 * on the taking controller and 8 us (one drive operation) on the
 * holding node's: 20 x 128 us over 16 cores. */
static void test_nodes_observed(void **state)
{
	struct array_snapshot s;
	struct array *a;
	char *text = NULL;
	size_t len = 0;
	uint64_t ctl_busy = 0, ctl_most = 0;
	unsigned drives = 0, ic = 0;
	FILE *f;
	(void)state;

	assert_int_equal(array_new("xtremio-xbrick4", 1.0, 1, &a), 0);
	t_read20(a);
	text = t_exposition(a, &s);
	assert_int_equal(s.tier[PROFILE_TIER_FLASH].drives, 100);
	assert_int_equal(s.tier[PROFILE_TIER_FLASH].in_state[MODEL_DRIVE_OK],
			 100);
	for (unsigned i = 0; i < s.nres; i++) {
		const struct array_snap_res *r = &s.res[i];

		if (r->kind == ARRAY_RES_DRIVE)
			assert_int_equal(r->id, drives++);
		if (!strncmp(r->name, "ic", 2)) {
			assert_int_equal(r->kind, ARRAY_RES_LINK);
			ic++;
		}
		if (r->kind == ARRAY_RES_CTL) {
			ctl_busy += r->busy_ns;
			ctl_most =
			    r->busy_ns > ctl_most ? r->busy_ns : ctl_most;
		}
	}
	assert_int_equal(drives, 100);
	assert_int_equal(ic, 4 * 4 * 2);
	t_assert_within((double)ctl_busy, 20 * 128e3 / 16, 0.01);
	t_nodes_sample(&s, ctl_busy, ctl_most);
	assert_non_null(strstr(text, "arraysim_drive_state{tier=\"flash\","
				     "drive=\"99\",state=\"ok\"} 1\n"));
	assert_null(strstr(text, "drive=\"100\""));
	assert_non_null(strstr(text, "{kind=\"link\",resource=\"ic3.3.out\"}"));
	array_snapshot_free(&s);
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	array_stats_print(a, f, true, 1000000000ull);
	fclose(f);
	assert_non_null(
	    strstr(text, ",\"nodes\":{\"node0.ctl\":{\"members\":2,"));
	assert_non_null(strstr(text, "\"node3.ctl\":{\"members\":2,"));
	free(text);
	array_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_drive_pull_returned),
	    cmocka_unit_test(test_drive_pull_kept_and_slow),
	    cmocka_unit_test(test_controllers_and_paths),
	    cmocka_unit_test(test_snapshot_null),
	    cmocka_unit_test(test_snapshot_hybrid),
	    cmocka_unit_test(test_late_replies_exposed),
	    cmocka_unit_test(test_busy_exposed),
	    cmocka_unit_test(test_busy_names_counter),
	    cmocka_unit_test(test_busy_counter_from_profile),
	    cmocka_unit_test(test_nodes_observed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
