/* The replication engine (replication/repl.h) between two stores opened
 * with store_open(), no FUSE:
 *   - a full batch, then incremental ones: the replica, opened as a store,
 *     reads what the source had at the last `replication sync` (overwrites
 *     and a file made later included, a removed file gone); the figures
 *     count the blocks the source's dedupe kept from the wire
 *   - while replicating, a freed block stays pending across the source's
 *     syncs until the replica has applied a state where it is free
 *   - a replica holding another store's blocks is refused (a conflict),
 *     the batch fails and the replica is untouched
 *   - a sync of the source is a sync point: it ships a batch before the
 *     rpo
 *   - the ctl verbs: pause twice, a bad verb, sync while paused: refused
 */
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

#include "repl_test.h"
#include "replication/repl.h"
#include "store/names.h"
#include "store/txn.h"

struct ctx {
	struct t_store src, dst;
	struct repl *r;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	t_newdir(c->src.dir);
	t_newdir(c->dst.dir);
	t_store_open(&c->src);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	repl_close(c->r);
	if (c->src.st)
		t_store_close(&c->src);
	if (c->dst.st)
		t_store_close(&c->dst);
	t_rmtree(c->src.dir);
	t_rmtree(c->dst.dir);
	free(c);
	return 0;
}

static void start_rpo(struct ctx *c, uint64_t rpo_ns)
{
	struct repl_config cfg = {.dest = c->dst.dir, .rpo_ns = rpo_ns};
	c->r = t_repl_start(&c->src, &cfg);
}

static void start(struct ctx *c)
{
	start_rpo(c, 0);
}

static int ctl(struct ctx *c, const char *args, char *err)
{
	return t_repl_ctl(c->r, args, err);
}

static uint64_t figure(struct ctx *c, const char *name)
{
	return t_repl_figure(c->r, name);
}

static void remove_file(struct ctx *c, const char *name)
{
	struct store_txn x;
	uint64_t victim;
	assert_int_equal(store_txn_begin(c->src.st, &x), 0);
	assert_int_equal(names_remove(&x, 1, name, false, &victim), 0);
	assert_int_equal(store_txn_commit(&x), 0);
}

static void test_full_then_incremental(void **state)
{
	struct ctx *c = *state;
	char err[512];
	t_file(&c->src, "a", 8, 0x20);
	t_file(&c->src, "b", 4, 0x20); /* a's first 4 blocks again */
	start(c);
	assert_int_equal(ctl(c, "sync", err), 0);
	assert_int_equal(figure(c, "blocks_shipped"), 8);
	assert_int_equal(figure(c, "saved_bytes"), 4 * 4096);
	t_file(&c->src, "a", 8, 0x40);
	t_file(&c->src, "c", 2, 0x60);
	remove_file(c, "b");
	assert_int_equal(ctl(c, "sync", err), 0);
	assert_int_equal(figure(c, "blocks_shipped"), 8 + 8 + 2);
	assert_int_equal(figure(c, "backlog_txns"), 0);
	assert_true(figure(c, "batches") >= 2);
	assert_int_equal(ctl(c, "stop", err), 0);
	t_file(&c->src, "late", 1, 0x70); /* after the stop: not replicated */
	repl_close(c->r);
	c->r = NULL;
	t_store_open(&c->dst);
	assert_true(t_file_is(&c->dst, "a", 8, 0x40));
	assert_true(t_file_is(&c->dst, "c", 2, 0x60));
	assert_int_equal(t_lookup(&c->dst, "b"), 0);
	assert_int_equal(t_lookup(&c->dst, "late"), 0);
}

static void test_freed_blocks_held_until_replicated(void **state)
{
	struct ctx *c = *state;
	char err[512];
	t_file(&c->src, "a", 8, 0x20);
	start(c);
	assert_int_equal(ctl(c, "sync", err), 0);
	assert_int_equal(ctl(c, "pause", err), 0);
	uint64_t free0 = t_count(&c->src, MS_FREEMAP);
	t_file(&c->src, "a", 8, 0x30); /* frees the 8 blocks of 0x20.. */
	assert_int_equal(store_sync(c->src.st), 0);
	assert_int_equal(t_count(&c->src, MS_PENDING), 8);
	assert_int_equal(t_count(&c->src, MS_FREEMAP), free0);
	assert_int_equal(ctl(c, "resume", err), 0);
	assert_int_equal(ctl(c, "sync", err), 0);
	assert_int_equal(t_count(&c->src, MS_PENDING), 0);
	assert_int_equal(t_count(&c->src, MS_FREEMAP), free0 + 8);
}

static void test_replica_of_another_store_refused(void **state)
{
	struct ctx *c = *state;
	char err[512];
	t_store_open(&c->dst);
	t_file(&c->dst, "z", 2, 0x99);
	t_store_close(&c->dst);
	t_file(&c->src, "a", 2, 0x20);
	start(c);
	assert_int_not_equal(ctl(c, "sync", err), 0);
	assert_non_null(strstr(err, "not a prior state"));
	assert_int_not_equal(ctl(c, "sync", err), 0); /* failed: stays so */
	assert_non_null(strstr(err, "failed"));
	repl_close(c->r);
	c->r = NULL;
	t_store_open(&c->dst);
	assert_true(t_file_is(&c->dst, "z", 2, 0x99));
	assert_int_equal(t_lookup(&c->dst, "a"), 0);
}

/* A sync of the source ships a batch without waiting for the rpo (an
 * hour here): polled, at most 10 s. */
static void test_sync_point_ships(void **state)
{
	struct ctx *c = *state;
	char err[512];
	start_rpo(c, 3600ull * 1000000000ull);
	assert_int_equal(ctl(c, "sync", err), 0);
	uint64_t batches = figure(c, "batches");
	t_file(&c->src, "a", 3, 0x20);
	assert_int_equal(store_sync(c->src.st), 0);
	struct timespec tick = {0, 10 * 1000 * 1000};
	for (int i = 0; i < 1000 && figure(c, "batches") == batches; i++)
		nanosleep(&tick, NULL);
	assert_int_equal(figure(c, "batches"), batches + 1);
	assert_int_equal(figure(c, "blocks_shipped"), 3);
}

static void test_bad_verbs_refused(void **state)
{
	struct ctx *c = *state;
	char err[512];
	start(c);
	assert_int_equal(ctl(c, "pause", err), 0);
	assert_int_equal(ctl(c, "pause", err), -EINVAL);
	assert_string_equal(err, "replication is paused");
	assert_int_equal(ctl(c, "sync", err), -EINVAL);
	assert_int_equal(ctl(c, "start", err), -EALREADY);
	assert_int_equal(ctl(c, "bogus", err), -EINVAL);
	assert_int_equal(ctl(c, "", err), -EINVAL);
	assert_int_equal(ctl(c, "status now", err), -EINVAL);
	assert_int_equal(ctl(c, "resume", err), 0);
	assert_int_equal(ctl(c, "sync", err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_full_then_incremental, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_freed_blocks_held_until_replicated, setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_replica_of_another_store_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_verbs_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_sync_point_ships, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
