/* tiers/array: the null model completes at once and keeps the result; a
 * timed one completes later, from the completer thread. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "common/stats.h"
#include "tiers/array.h"
#include "tiers/array_stats.h"
#include "tiers/cache.h"
#include "tiers/completer.h"

static int t_completions;

/* |got - want| <= tol x want. */
static void t_assert_near(double got, double want, double tol)
{
	if (got < want * (1 - tol) || got > want * (1 + tol)) {
		print_message("# got %.0f, want %.0f within %.0f%%\n", got,
			      want, tol * 100);
		fail();
	}
}
static struct array_io *t_last;

static void t_complete(struct array_io *io)
{
	t_completions++;
	t_last = io;
}

static void test_null_completes_at_once(void **state)
{
	struct array *a;
	struct array_io io = {
	    .kind = ARRAY_IO_WRITE,
	    .offset = 8192,
	    .length = 4096,
	    .result = -ENOSPC,
	    .complete = t_complete,
	};
	struct array_io ok = {.kind = ARRAY_IO_READ, .complete = t_complete};

	assert_int_equal(array_new("null", 1.0, 1, &a), 0);
	t_completions = 0;
	array_submit(a, &io);
	/* Completed before array_submit returned, result untouched. */
	assert_int_equal(t_completions, 1);
	assert_ptr_equal(t_last, &io);
	assert_int_equal(io.result, -ENOSPC);
	assert_int_equal(io.length, 4096);

	array_submit(a, &ok);
	assert_int_equal(t_completions, 2);
	assert_int_equal(ok.result, 0);
	array_free(a);
}

/* A timed profile completes from the completer thread, no sooner than
 * the model says: micron-m600 reads 4 KiB in 179.3 us on an idle drive
 * (tests/tiers/test_profiles.c pins that figure). */
struct t_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct array_io io;
	uint64_t done_ns;
	pthread_t thread;
	bool done;
};

static void t_complete_wake(struct array_io *io)
{
	struct t_wait *w =
	    (struct t_wait *)((char *)io - offsetof(struct t_wait, io));

	pthread_mutex_lock(&w->lock);
	w->done_ns = clock_mono_ns();
	w->thread = pthread_self();
	w->done = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/* Submit @io to @a and wait for its completion; its latency in ns. */
static uint64_t t_submit_wait(struct array *a, struct t_wait *w)
{
	w->done = false;
	w->io.submit_ns = clock_mono_ns();
	w->io.complete = t_complete_wake;
	array_submit(a, &w->io);
	pthread_mutex_lock(&w->lock);
	while (!w->done)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
	return w->done_ns - w->io.submit_ns;
}

static void test_timed_completes_later(void **state)
{
	struct late_totals late;
	struct t_wait w = {.lock = PTHREAD_MUTEX_INITIALIZER,
			   .cond = PTHREAD_COND_INITIALIZER};
	struct array *a;

	assert_int_equal(array_new("micron-m600", 1.0, 1, &a), 0);
	assert_true(array_timed(a));
	w.io = (struct array_io){.kind = ARRAY_IO_READ, .length = 4096};
	assert_true(t_submit_wait(a, &w) >= 179000);
	assert_false(pthread_equal(w.thread, pthread_self()));
	assert_int_equal(array_host_bound(a, &late), 0);
	assert_int_equal(late.completed, 1);
	/* A failed request never reached the drives: completes at once. */
	t_completions = 0;
	w.io.result = -EIO;
	w.io.complete = t_complete;
	array_submit(a, &w.io);
	assert_int_equal(t_completions, 1);
	array_free(a);

	/* At --scale 0.01 the same read takes 100 times as long. */
	assert_int_equal(array_new("micron-m600", 0.01, 1, &a), 0);
	w.io = (struct array_io){.kind = ARRAY_IO_READ, .length = 4096};
	assert_true(t_submit_wait(a, &w) >= 17930000);
	array_free(a);

	/* At --scale 1000 the read takes 0.18 us: a request that arrived
	 * 1 ms before the host handed it over is host-bound, by ~1 ms. */
	assert_int_equal(array_new("micron-m600", 1000, 1, &a), 0);
	w.io = (struct array_io){.kind = ARRAY_IO_READ, .length = 4096};
	w.done = false;
	w.io.submit_ns = clock_mono_ns() - 1000000;
	w.io.complete = t_complete_wake;
	array_submit(a, &w.io);
	pthread_mutex_lock(&w.lock);
	while (!w.done)
		pthread_cond_wait(&w.cond, &w.lock);
	pthread_mutex_unlock(&w.lock);
	/* The callback ran; the count was taken just before it. */
	assert_int_equal(array_host_bound(a, &late), 0);
	assert_int_equal(late.completed, 1);
	assert_int_equal(late.late, 1);
	assert_true(late.late_ns >= 999000 && late.late_ns < 1000000000);
	array_free(a);
	assert_int_equal(array_new("null", 1.0, 1, &a), 0);
	assert_int_equal(array_host_bound(a, &late), -ENOENT);
	array_free(a);
	assert_false(array_new("null", 0.0, 1, &a) == 0);
}

/* A hybrid: a first read misses flash (a disk seek and turn), is
 * promoted, and the second hits; a write-back write makes a dirty
 * block. */
static void test_hybrid_residency(void **state)
{
	struct t_wait w = {.lock = PTHREAD_MUTEX_INITIALIZER,
			   .cond = PTHREAD_COND_INITIALIZER};
	struct cache_stats st;
	uint64_t miss_ns, hit_ns;
	struct array *a;

	assert_int_equal(array_new("hybrid", 1.0, 1, &a), 0);
	w.io = (struct array_io){.kind = ARRAY_IO_READ,
				 .ino = 5,
				 .offset = 1ull << 40,
				 .length = 8192};
	miss_ns = t_submit_wait(a, &w);
	hit_ns = t_submit_wait(a, &w);
	assert_int_equal(array_cache_stats(a, &st), 0);
	assert_int_equal(st.misses, 2); /* per block */
	assert_int_equal(st.hits, 2);
	assert_int_equal(st.resident, 2);
	assert_true(miss_ns >= 4000000); /* 7200 rpm: half a turn is 4.2 ms */
	assert_true(hit_ns < miss_ns);
	w.io.kind = ARRAY_IO_WRITE;
	w.io.offset = 0;
	w.io.length = 4096;
	t_submit_wait(a, &w);
	assert_int_equal(array_cache_stats(a, &st), 0);
	assert_int_equal(st.dirty, 1);
	assert_int_equal(st.resident, 3);
	array_free(a);

	assert_int_equal(array_new("micron-m600", 1.0, 1, &a), 0);
	assert_int_equal(array_cache_stats(a, &st), -ENOENT);
	array_free(a);
}

/* With physical blocks given, a block dedupe shares is resident once: a
 * read of one file promotes it, and a read of another file (or another
 * offset) that maps to the same physical block hits. Holes touch no
 * drive and take no space. */
static void test_dedupe_takes_cache_once(void **state)
{
	struct t_wait w = {.lock = PTHREAD_MUTEX_INITIALIZER,
			   .cond = PTHREAD_COND_INITIALIZER};
	struct cache_stats st;
	struct array *a;
	static const uint64_t shared[2] = {77, 0}; /* a block, then a hole */

	assert_int_equal(array_new("hybrid", 1.0, 1, &a), 0);
	assert_true(array_wants_blocks(a));
	w.io = (struct array_io){.kind = ARRAY_IO_READ,
				 .ino = 5,
				 .offset = 0,
				 .length = 8192,
				 .pblks = shared};
	t_submit_wait(a, &w);
	w.io.ino = 6;
	w.io.offset = 1ull << 30;
	t_submit_wait(a, &w);
	assert_int_equal(array_cache_stats(a, &st), 0);
	assert_int_equal(st.misses, 1);
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.resident, 1);
	array_free(a);

	assert_int_equal(array_new("micron-m600", 1.0, 1, &a), 0);
	assert_false(array_wants_blocks(a)); /* all-flash: no residency */
	array_free(a);
}

/* @w's request is still not done after @ms milliseconds. */
static void t_assert_not_done(struct t_wait *w, unsigned ms)
{
	struct timespec tick = {0, 1000000};

	for (unsigned i = 0; i < ms; i++) {
		pthread_mutex_lock(&w->lock);
		assert_false(w->done);
		pthread_mutex_unlock(&w->lock);
		nanosleep(&tick, NULL);
	}
}

/* A profile file for the fault tests: 2 controllers, @shutdown mode. */
static void t_fault_profile(char *path, size_t len, const char *shutdown)
{
	FILE *f;

	snprintf(path, len, "/tmp/arraysim-test-array-%d-%s.ini", (int)getpid(),
		 shutdown);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f,
		"[controllers]\ncount = 2\nmode = active-standby\n"
		"failover_time = 1ms\nshutdown = %s\n"
		"[frontend]\nspeed = 10GbE\n"
		"[tier flash]\nkind = ssd\ndrives = 2\ncapacity = 1G\n"
		"raid = raid1\nread_latency = 100us\nwrite_latency = 50us\n",
		shutdown);
	fclose(f);
}

/* Array faults: refused on the null model and on several nodes; with both
 * controllers lost, shutdown = block holds a request until one is back, eio
 * fails it at once; a request still held at array_free fails rather than hangs.
 */
static void test_faults_shutdown(void **state)
{
	struct t_wait w = {.lock = PTHREAD_MUTEX_INITIALIZER,
			   .cond = PTHREAD_COND_INITIALIZER};
	struct model_fault c0 = {.kind = MODEL_FAULT_CONTROLLER, .id = 0};
	struct model_fault c1 = {.kind = MODEL_FAULT_CONTROLLER, .id = 1};
	struct model_fault bad = {.kind = MODEL_FAULT_CONTROLLER, .id = 2};
	struct model_fault_effect eff;
	char path[128], err[256];
	uint64_t now;
	struct array *a;

	assert_int_equal(array_new("null", 1.0, 1, &a), 0);
	assert_int_equal(
	    array_fault(a, &c0, true, &now, &eff, err, sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "timed array profile"));
	array_free(a);
	/* Several nodes: paths (4 bricks of 4), controllers (of 2) and
	 * drives (of 25) by array-wide ids. */
	assert_int_equal(array_new("xtremio-xbrick4", 1.0, 1, &a), 0);
	bad = (struct model_fault){.kind = MODEL_FAULT_PATH, .id = 16};
	assert_int_equal(
	    array_fault(a, &bad, true, &now, &eff, err, sizeof(err)), -EINVAL);
	assert_string_equal(err,
			    "no path 16: profile xtremio-xbrick4 has 16 (0 to "
			    "15)");
	bad = (struct model_fault){.kind = MODEL_FAULT_CONTROLLER, .id = 8};
	assert_int_equal(
	    array_fault(a, &bad, true, &now, &eff, err, sizeof(err)), -EINVAL);
	assert_string_equal(err,
			    "no controller 8: profile xtremio-xbrick4 has 8 "
			    "(0 to 7)");
	bad.id = 7;
	assert_int_equal(
	    array_fault(a, &bad, true, &now, &eff, err, sizeof(err)), 0);
	assert_false(eff.down);
	bad = (struct model_fault){.kind = MODEL_FAULT_DRIVE, .id = 100};
	assert_int_equal(
	    array_fault(a, &bad, true, &now, &eff, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "no drive 100 in tier flash: it has 100");
	bad.id = 99;
	assert_int_equal(
	    array_fault(a, &bad, true, &now, &eff, err, sizeof(err)), 0);
	array_free(a);
	bad = (struct model_fault){.kind = MODEL_FAULT_CONTROLLER, .id = 2};

	t_fault_profile(path, sizeof(path), "block");
	assert_int_equal(array_new(path, 1.0, 1, &a), 0);
	assert_int_equal(
	    array_fault(a, &bad, true, &now, &eff, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no controller 2"));
	assert_int_equal(
	    array_fault(a, &c0, true, &now, &eff, err, sizeof(err)), 0);
	assert_false(eff.down);
	assert_int_equal(eff.stall_until - eff.stall_from, 1000000);
	assert_int_equal(
	    array_fault(a, &c1, true, &now, &eff, err, sizeof(err)), 0);
	assert_true(eff.down);
	w.io.kind = ARRAY_IO_READ;
	w.io.length = 4096;
	w.done = false;
	w.io.submit_ns = clock_mono_ns();
	w.io.complete = t_complete_wake;
	array_submit(a, &w.io);
	/* Held: nothing completes it until a controller returns, not even
	 * 200 times its modelled latency later. */
	t_assert_not_done(&w, 20);
	assert_int_equal(array_in_flight(a), 1);
	assert_int_equal(
	    array_fault(a, &c1, false, &now, &eff, err, sizeof(err)), 0);
	assert_true(eff.down_changed);
	pthread_mutex_lock(&w.lock);
	while (!w.done)
		pthread_cond_wait(&w.cond, &w.lock);
	pthread_mutex_unlock(&w.lock);
	assert_int_equal(w.io.result, 0);
	assert_true(w.done_ns >= now);
	assert_int_equal(array_in_flight(a), 0);
	/* Down again, and freed with the request still held: EIO. */
	assert_int_equal(
	    array_fault(a, &c1, true, &now, &eff, err, sizeof(err)), 0);
	t_completions = 0;
	struct array_io held = {
	    .kind = ARRAY_IO_READ, .length = 4096, .complete = t_complete};
	array_submit(a, &held);
	struct timespec ms20 = {0, 20000000};
	nanosleep(&ms20, NULL); /* 200 x its latency: it would have come */
	assert_int_equal(t_completions, 0);
	array_free(a);
	assert_int_equal(t_completions, 1);
	assert_int_equal(held.result, -EIO);
	unlink(path);

	t_fault_profile(path, sizeof(path), "eio");
	assert_int_equal(array_new(path, 1.0, 1, &a), 0);
	assert_int_equal(
	    array_fault(a, &c0, true, &now, &eff, err, sizeof(err)), 0);
	assert_int_equal(
	    array_fault(a, &c1, true, &now, &eff, err, sizeof(err)), 0);
	held.result = 0;
	array_submit(a, &held);
	assert_int_equal(t_completions, 2);
	assert_int_equal(held.result, -EIO);
	array_free(a);
	unlink(path);
	(void)state;
}

static void test_unknown_profile(void **state)
{
	struct array_conf bad = {
	    .profile = "hybrid", .scale = 1.0, .time_scale = -1.0};
	struct array *b;

	assert_int_equal(array_open(&bad, &b), -EINVAL);
	assert_null(b);
	bad.time_scale = 10.0;
	assert_int_equal(array_open(&bad, &b), 0);
	array_free(b);
	struct array *a = (struct array *)&a;

	assert_int_equal(array_new("tintri-t7000", 1.0, 1, &a), -EINVAL);
	assert_null(a);
	assert_int_equal(array_new("", 1.0, 1, &a), -EINVAL);
	array_free(NULL); /* no-op */
}

/* The per-tier figures: 10 timed reads on one SSD show as 10 operations
 * of the drive (its tier and its own line agree), and the JSON is one
 * object with the documented parts. */
static void test_stats_print(void **state)
{
	struct t_wait w = {.lock = PTHREAD_MUTEX_INITIALIZER,
			   .cond = PTHREAD_COND_INITIALIZER};
	struct array *a;
	assert_int_equal(array_new("micron-m600", 1000, 1, &a), 0);
	for (int i = 0; i < 10; i++) {
		w.io = (struct array_io){.kind = ARRAY_IO_READ,
					 .offset = (uint64_t)i << 20,
					 .length = 4096};
		t_submit_wait(a, &w);
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	array_stats_print(a, f, true, 1000000000u); /* over 1 s */
	fclose(f);
	assert_non_null(text);
	assert_non_null(strstr(text, "{\"timed\":true,\"elapsed_s\":1.000,"
				     "\"cpu_counter\":\"usage\",\"tiers\":{"));
	assert_non_null(
	    strstr(text, "\"flash\":{\"members\":1,\"iops\":10.0,"));
	assert_non_null(
	    strstr(text, "\"flash0\":{\"members\":1,\"iops\":10.0,"));
	assert_non_null(strstr(text, "\"host_bound\":{\"completed\":10,"));
	/* One drive served everything; its share of 1 s is its service
	 * time, and nothing else of the array was busier. */
	assert_non_null(strstr(text, "\"busy_pct\":"));
	assert_non_null(
	    strstr(text, "\"bottleneck\":{\"resource\":\"flash\","));
	free(text);
	array_free(a);

	assert_int_equal(array_new("null", 1.0, 1, &a), 0);
	text = NULL;
	f = open_memstream(&text, &len);
	array_stats_print(a, f, true, 1);
	fclose(f);
	assert_non_null(text);
	assert_string_equal(text, "{\"timed\":false}\n");
	free(text);
	array_free(a);
}

/* A rebuild on an idle timed array runs on its own clock: with no
 * request at all, it is over when the drives finish it, used / rate
 * after it was noticed (32 MiB at 160 MiB/s: 0.2 s). */
static void test_rebuild_ends_idle(void **state)
{
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE, .tier = 9, .id = 1};
	struct model_fault_effect eff;
	struct array *a;
	uint64_t now, end;
	char path[128], err[256];
	FILE *pf;

	snprintf(path, sizeof(path), "/tmp/arraysim-test-rebuild-%d.ini",
		 (int)getpid());
	pf = fopen(path, "w");
	assert_non_null(pf);
	fputs("[frontend]\nspeed = 10GbE\n"
	      "[tier flash]\nkind = ssd\ndrives = 4\ncapacity = 64M\n"
	      "raid = raid5\nread_latency = 100us\nwrite_latency = 50us\n"
	      "slots = 32\nread_bandwidth = 500M/s\n"
	      "write_bandwidth = 500M/s\nfill = 50%\n"
	      "rebuild_rate = 160M/s\ndetection_window = 0\n",
	      pf);
	fclose(pf);
	assert_int_equal(array_new(path, 1.0, 1, &a), 0);
	unlink(path);
	assert_int_equal(array_fault(a, &f, true, &now, &eff, err, sizeof(err)),
			 0);
	assert_int_equal(eff.rebuild_bytes, 32ull << 20);
	assert_int_equal(array_rebuild_end(a, &f, eff.fail_ns, &end), -EAGAIN);
	assert_true(end >= eff.rebuild_end_ns);
	usleep(400000);
	assert_int_equal(array_rebuild_end(a, &f, eff.fail_ns, &end), 0);
	t_assert_near((double)(end - eff.fail_ns), 0.2e9, 0.05);
	assert_int_equal(array_rebuild_end(a, &f, eff.fail_ns + 1, &end),
			 -ENOENT);
	array_free(a);

	assert_int_equal(array_new("null", 1.0, 1, &a), 0);
	assert_int_equal(array_rebuild_end(a, &f, 0, &end), -ENOENT);
	array_free(a);
	(void)state;
}

/* `stats --reset` covers the array figures (issue 13, point 8): after
 * array_stats_reset, `stats --array` counts from the reset, not from the
 * mount: elapsed time, IOPS, latencies and host-bound counts. */
static char *t_stats_json(struct array *a, uint64_t elapsed_ns)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	array_stats_print(a, f, true, elapsed_ns);
	fclose(f);
	assert_non_null(text);
	return text;
}

static void test_stats_reset_covers_array(void **state)
{
	struct t_wait w = {.lock = PTHREAD_MUTEX_INITIALIZER,
			   .cond = PTHREAD_COND_INITIALIZER};
	struct array *a;
	char *text;
	double el;

	assert_int_equal(array_new("micron-m600", 1000, 1, &a), 0);
	for (int i = 0; i < 10; i++) {
		w.io = (struct array_io){.kind = ARRAY_IO_READ,
					 .offset = (uint64_t)i << 20,
					 .length = 4096};
		t_submit_wait(a, &w);
	}
	array_stats_reset(a);
	/* The mount is 94 s old; the reset was just now. */
	text = t_stats_json(a, 94000000000ull);
	assert_int_equal(sscanf(text, "{\"timed\":true,\"elapsed_s\":%lf", &el),
			 1);
	assert_true(el < 1.0);
	assert_non_null(
	    strstr(text, "\"flash0\":{\"members\":1,\"iops\":0.0,"));
	assert_non_null(strstr(text, "\"p50\":0.0,"));
	assert_non_null(strstr(text, "\"host_bound\":{\"completed\":0,"));
	free(text);
	for (int i = 0; i < 3; i++) {
		w.io = (struct array_io){.kind = ARRAY_IO_READ,
					 .offset = (uint64_t)i << 20,
					 .length = 4096};
		t_submit_wait(a, &w);
	}
	text = t_stats_json(a, 94000000000ull);
	assert_non_null(strstr(text, "\"host_bound\":{\"completed\":3,"));
	assert_null(strstr(text, "\"p50\":0.0,\"p99\":0.0,\"p999\":0.0}},"
				 "\"resources\""));
	free(text);
	/* A reset again, and the mount's own age when it is shorter. */
	array_stats_reset(a);
	text = t_stats_json(a, 0);
	assert_non_null(strstr(text, "{\"timed\":true,\"elapsed_s\":0.000,"));
	free(text);
	array_free(a);

	assert_int_equal(array_new("null", 1.0, 1, &a), 0);
	array_stats_reset(a); /* a no-op */
	text = t_stats_json(a, 1);
	assert_string_equal(text, "{\"timed\":false}\n");
	free(text);
	array_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_null_completes_at_once),
	    cmocka_unit_test(test_timed_completes_later),
	    cmocka_unit_test(test_faults_shutdown),
	    cmocka_unit_test(test_hybrid_residency),
	    cmocka_unit_test(test_unknown_profile),
	    cmocka_unit_test(test_stats_print),
	    cmocka_unit_test(test_stats_reset_covers_array),
	    cmocka_unit_test(test_rebuild_ends_idle),
	    cmocka_unit_test(test_dedupe_takes_cache_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
