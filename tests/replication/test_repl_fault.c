/* Replication held back by a fault (replication/control.c, watch.c),
 * between two stores opened with store_open(), no FUSE:
 *   - a replication-link fault: no batch ships (a sync point, the rpo and
 *     a sync request alike), `sync` is refused, the backlog and the lag
 *     grow and the lag is an event once; cleared, one sync ships it all
 *     and the replica reads the source's file
 *   - a replica fault, then a pause under it: each change is one event,
 *     with why it is held back
 * Events are read back from the log file; waits are polls bounded at
 * 10 s. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "faults/events.h"
#include "faults/faults.h"
#include "repl_test.h"
#include "replication/repl.h"

#define RPO_NS (50ull * 1000 * 1000)

struct ctx {
	struct t_store src, dst;
	char evdir[64], evpath[128];
	struct faults *f;
	struct events *ev;
	struct repl *r;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	t_newdir(c->src.dir);
	t_newdir(c->dst.dir);
	t_newdir(c->evdir);
	snprintf(c->evpath, sizeof(c->evpath), "%s/events.jsonl", c->evdir);
	t_store_open(&c->src);
	assert_int_equal(faults_new(1, &c->f), 0);
	assert_int_equal(events_open(c->evpath, &c->ev), 0);
	struct repl_config cfg = {.dest = c->dst.dir,
				  .rpo_ns = RPO_NS,
				  .faults = c->f,
				  .events = c->ev};
	c->r = t_repl_start(&c->src, &cfg);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	repl_close(c->r);
	events_close(c->ev);
	faults_free(c->f);
	if (c->src.st)
		t_store_close(&c->src);
	if (c->dst.st)
		t_store_close(&c->dst);
	t_rmtree(c->src.dir);
	t_rmtree(c->dst.dir);
	t_rmtree(c->evdir);
	free(c);
	return 0;
}

static int ctl(struct ctx *c, const char *args, char *err)
{
	return t_repl_ctl(c->r, args, err);
}

static uint64_t figure(struct ctx *c, const char *name)
{
	return t_repl_figure(c->r, name);
}

static unsigned lines_with(struct ctx *c, const char *what)
{
	return t_lines_with(c->evpath, what);
}

static void wait_lines(struct ctx *c, const char *what, unsigned n)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	for (int i = 0; i < 1000 && lines_with(c, what) < n; i++)
		nanosleep(&tick, NULL);
	if (lines_with(c, what) != n)
		fail_msg("%u lines with %s, expected %u", lines_with(c, what),
			 what, n);
}

static uint64_t inject(struct ctx *c, const char *rule)
{
	struct fault_rule fr;
	char err[256];
	uint64_t id;
	assert_int_equal(fault_rule_parse(rule, &fr, err, sizeof(err)), 0);
	assert_int_equal(faults_add(c->f, &fr, &id), 0);
	return id;
}

/* While a fault holds batches back past the rpo, the thread looks at the
 * faults every 200 ms: over 300 ms it must use far less than a core (a
 * thread that spun on its past deadline used all of one). */
static void assert_idle_while_held(void)
{
	struct timespec window = {0, 300 * 1000 * 1000};
	uint64_t cpu = t_ns_of(CLOCK_PROCESS_CPUTIME_ID);
	uint64_t wall = t_ns_of(CLOCK_MONOTONIC);
	nanosleep(&window, NULL);
	cpu = t_ns_of(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	wall = t_ns_of(CLOCK_MONOTONIC) - wall;
	if (cpu * 4 > wall)
		fail_msg("%.0f ms of CPU in %.0f ms held back: spinning",
			 cpu / 1e6, wall / 1e6);
}

static void test_link_fault_holds_batches(void **state)
{
	struct ctx *c = *state;
	char err[512];
	t_file(&c->src, "a", 4, 0x20);
	assert_int_equal(ctl(c, "sync", err), 0);
	uint64_t id = inject(c, "replication-link");
	wait_lines(c,
		   "\"event\":\"replication_paused\",\"why\":"
		   "\"replication-link\"",
		   1);
	uint64_t batches = figure(c, "batches");
	t_file(&c->src, "b", 3, 0x40);
	assert_int_equal(store_sync(c->src.st), 0); /* a sync point */
	assert_int_equal(ctl(c, "sync", err), -EAGAIN);
	assert_non_null(strstr(err, "a replication-link fault holds batches "
				    "back (fault 1"));
	/* Past 2 x rpo: the lag event, after two rpo turns at least. */
	wait_lines(c, "\"event\":\"replication_lag\"", 1);
	assert_idle_while_held();
	assert_int_equal(figure(c, "batches"), batches);
	assert_true(figure(c, "backlog_txns") > 0);
	/* lag_bytes counts FUSE writes (stats): none here; the integration
	 * test replication_fault.sh checks it. */
	assert_int_equal(faults_clear(c->f, id), 0);
	assert_int_equal(ctl(c, "sync", err), 0);
	assert_int_equal(figure(c, "backlog_txns"), 0);
	wait_lines(c, "\"event\":\"replication_caught_up\"", 1);
	assert_int_equal(lines_with(c, "\"event\":\"replication_resumed\""), 1);
	assert_int_equal(lines_with(c, "\"event\":\"replication_lag\""), 1);
	repl_close(c->r);
	c->r = NULL;
	t_store_open(&c->dst);
	assert_true(t_file_is(&c->dst, "b", 3, 0x40));
}

static void test_replica_fault_then_pause(void **state)
{
	struct ctx *c = *state;
	char err[512];
	uint64_t id = inject(c, "replica");
	wait_lines(c, "\"why\":\"replica\"", 1);
	assert_int_equal(ctl(c, "pause", err), 0);
	assert_int_equal(faults_clear(c->f, id), 0);
	/* Still held back, by the pause now: one event saying so. */
	wait_lines(c, "\"event\":\"replication_paused\",\"why\":\"pause\"", 1);
	assert_int_equal(lines_with(c, "\"event\":\"replication_resumed\""), 0);
	assert_int_equal(ctl(c, "resume", err), 0);
	assert_int_equal(
	    lines_with(c,
		       "\"event\":\"replication_resumed\",\"why\":\"pause\""),
	    1);
	assert_int_equal(ctl(c, "sync", err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_link_fault_holds_batches,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_replica_fault_then_pause,
					    setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
