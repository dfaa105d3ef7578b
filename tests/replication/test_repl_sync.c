/* Synchronous replication's sync points (replication/sync.c), between two
 * stores opened with store_open(), no FUSE and no timed model, with an
 * rpo of a minute so that only the waits ship:
 *   - a wait after the source's sync returns once the replica holds the
 *     source's last transaction; waiters at once from several threads
 *     all return covered
 *   - under a replication-link fault a wait fails with -EIO (nothing
 *     shipped); cleared, it ships and returns 0
 *   - paused, a wait returns at once (the guarantee suspended)
 *   - status says mode synchronous */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "faults/faults.h"
#include "repl_test.h"
#include "replication/repl.h"

#define RPO_NS (60ull * 1000 * 1000 * 1000)

struct ctx {
	struct t_store src, dst;
	struct faults *f;
	struct repl *r;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	t_newdir(c->src.dir);
	t_newdir(c->dst.dir);
	t_store_open(&c->src);
	assert_int_equal(faults_new(1, &c->f), 0);
	struct repl_config cfg = {
	    .dest = c->dst.dir, .rpo_ns = RPO_NS, .faults = c->f, .sync = true};
	c->r = t_repl_start(&c->src, &cfg);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	repl_close(c->r);
	faults_free(c->f);
	if (c->src.st)
		t_store_close(&c->src);
	if (c->dst.st)
		t_store_close(&c->dst);
	t_rmtree(c->src.dir);
	t_rmtree(c->dst.dir);
	free(c);
	return 0;
}

/* What an fsync does on a sync mount: the source's sync, then the wait. */
static int fsync_point(struct ctx *c)
{
	int e = store_sync(c->src.st);
	return e ? e : repl_sync_wait(c->r);
}

static void test_wait_covers_the_sync(void **state)
{
	struct ctx *c = *state;
	char *text = NULL, err[512];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_int_equal(repl_control(c->r, "status", out, err, sizeof(err)),
			 0);
	fclose(out);
	assert_non_null(strstr(text, "\nmode synchronous\n"));
	free(text);
	assert_int_equal(repl_mode(c->r), true);
	for (unsigned i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof(name), "f%u", i);
		t_file(&c->src, name, 4, (uint8_t)(0x10 * (i + 1)));
		assert_int_equal(fsync_point(c), 0);
		/* Covered: the replica holds the source's last transaction. */
		assert_int_equal(t_repl_figure(c->r, "backlog_txns"), 0);
	}
	repl_close(c->r);
	c->r = NULL;
	t_store_open(&c->dst);
	assert_true(t_file_is(&c->dst, "f2", 4, 0x30));
}

struct waiter {
	struct ctx *c;
	unsigned i;
	int rc;
};

static void *wait_main(void *arg)
{
	struct waiter *w = arg;
	w->rc = fsync_point(w->c);
	return NULL;
}

/* Waiters at once: each returns covered; they may share batches. The
 * files are written first: a write committing while a batch reads its
 * snapshot is LMDB's MVCC, whose reader table TSan cannot see (the
 * integration tests write under batches). */
static void test_waiters_at_once(void **state)
{
	struct ctx *c = *state;
	enum { N = 6 };
	pthread_t th[N];
	struct waiter w[N];
	for (unsigned i = 0; i < N; i++) {
		char name[8];
		snprintf(name, sizeof(name), "w%u", i);
		t_file(&c->src, name, 2, (uint8_t)i);
	}
	uint64_t before = t_repl_figure(c->r, "batches");
	for (unsigned i = 0; i < N; i++) {
		w[i] = (struct waiter){c, i, -1};
		assert_int_equal(pthread_create(&th[i], NULL, wait_main, &w[i]),
				 0);
	}
	for (unsigned i = 0; i < N; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].rc, 0);
	}
	uint64_t batches = t_repl_figure(c->r, "batches") - before;
	print_message("# %u waiters, %llu batches\n", N,
		      (unsigned long long)batches);
	assert_true(batches >= 1 && batches <= N);
	assert_int_equal(t_repl_figure(c->r, "backlog_txns"), 0);
}

static void test_fault_fails_the_wait(void **state)
{
	struct ctx *c = *state;
	struct fault_rule fr;
	char err[256];
	uint64_t id;
	t_file(&c->src, "a", 4, 0x20);
	assert_int_equal(fsync_point(c), 0);
	uint64_t batches = t_repl_figure(c->r, "batches");
	assert_int_equal(
	    fault_rule_parse("replication-link", &fr, err, sizeof(err)), 0);
	assert_int_equal(faults_add(c->f, &fr, &id), 0);
	t_file(&c->src, "b", 3, 0x40);
	assert_int_equal(fsync_point(c), -EIO);
	assert_int_equal(t_repl_figure(c->r, "batches"), batches);
	assert_true(t_repl_figure(c->r, "backlog_txns") > 0);
	assert_int_equal(faults_clear(c->f, id), 0);
	assert_int_equal(fsync_point(c), 0);
	assert_int_equal(t_repl_figure(c->r, "backlog_txns"), 0);
}

static void test_pause_suspends(void **state)
{
	struct ctx *c = *state;
	char err[512];
	t_file(&c->src, "a", 2, 0x50);
	assert_int_equal(fsync_point(c), 0);
	uint64_t batches = t_repl_figure(c->r, "batches");
	assert_int_equal(repl_control(c->r, "pause", stdout, err, sizeof(err)),
			 0);
	t_file(&c->src, "b", 2, 0x60);
	assert_int_equal(fsync_point(c), 0);
	assert_int_equal(t_repl_figure(c->r, "batches"), batches);
	assert_true(t_repl_figure(c->r, "backlog_txns") > 0);
	assert_int_equal(repl_control(c->r, "resume", stdout, err, sizeof(err)),
			 0);
	assert_int_equal(fsync_point(c), 0);
	assert_int_equal(t_repl_figure(c->r, "backlog_txns"), 0);
	/* Async, or no replication: nothing to wait for. */
	assert_int_equal(repl_sync_wait(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_wait_covers_the_sync, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_waiters_at_once, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_fault_fails_the_wait, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_pause_suspends, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
