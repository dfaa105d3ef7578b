/* Range locks on files' blocks (fs/range_lock.c): disjoint ranges of one
 * file are held at once, overlapping ones wait, and waiting is in
 * arrival order among those that overlap (a whole-file hold is not
 * starved by later small ones). */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fs/range_lock.h"

static void test_disjoint_at_once(void **state)
{
	(void)state;
	struct range_locks *rl = range_locks_new();
	struct range_hold a, b, c, d;
	assert_non_null(rl);
	range_lock(rl, &a, 7, 0, 255);
	/* The next block, and the same blocks of another file. */
	assert_true(range_trylock(rl, &b, 7, 256, 511));
	assert_true(range_trylock(rl, &c, 8, 0, RANGE_WHOLE_FILE));
	/* Overlapping at one block either side. */
	assert_false(range_trylock(rl, &d, 7, 255, 255));
	assert_false(range_trylock(rl, &d, 7, 511, 600));
	assert_int_equal(range_queued(rl, 7), 2); /* refused ones left */
	range_unlock(rl, &a);
	assert_true(range_trylock(rl, &d, 7, 255, 255));
	range_unlock(rl, &d);
	range_unlock(rl, &b);
	range_unlock(rl, &c);
	assert_int_equal(range_queued(rl, 7) + range_queued(rl, 8), 0);
	range_locks_free(rl);
}

struct waiter {
	struct range_locks *rl;
	struct range_hold h;
	uint64_t first, last;
	atomic_bool held;
};

static void *wait_for(void *arg)
{
	struct waiter *w = arg;
	range_lock(w->rl, &w->h, 7, w->first, w->last);
	atomic_store(&w->held, true);
	return NULL;
}

/* Until @n holds and waiters are queued on file 7: the thread has
 * reached its wait (it only queues, then waits). */
static void until_queued(struct range_locks *rl, unsigned n)
{
	while (range_queued(rl, 7) < n)
		sched_yield();
}

static void test_whole_file_not_starved(void **state)
{
	(void)state;
	struct range_locks *rl = range_locks_new();
	struct range_hold a, b;
	struct waiter w = {.rl = rl, .first = 0, .last = RANGE_WHOLE_FILE};
	pthread_t t;
	assert_non_null(rl);
	range_lock(rl, &a, 7, 0, 0);
	assert_int_equal(pthread_create(&t, NULL, wait_for, &w), 0);
	until_queued(rl, 2);
	assert_false(atomic_load(&w.held));
	/* Free blocks now, but behind a waiting truncate: refused. */
	assert_false(range_trylock(rl, &b, 7, 100, 100));
	range_unlock(rl, &a);
	pthread_join(t, NULL);
	assert_true(atomic_load(&w.held));
	assert_false(range_trylock(rl, &b, 7, 100, 100));
	range_unlock(rl, &w.h);
	assert_true(range_trylock(rl, &b, 7, 100, 100));
	range_unlock(rl, &b);
	range_locks_free(rl);
}

/* Many threads, each writing its own and a shared counter's block: the
 * shared block's holds never overlap in time (the counter's read and
 * write are apart, so an overlap would lose increments). */
enum { THREADS = 4, ROUNDS = 2000 };
static uint64_t shared_count;

static void *bump(void *arg)
{
	struct range_locks *rl = arg;
	for (int i = 0; i < ROUNDS; i++) {
		struct range_hold h;
		range_lock(rl, &h, 7, 10, 20);
		uint64_t v = shared_count;
		sched_yield();
		shared_count = v + 1;
		range_unlock(rl, &h);
	}
	return NULL;
}

static void test_overlap_excludes(void **state)
{
	(void)state;
	struct range_locks *rl = range_locks_new();
	pthread_t t[THREADS];
	assert_non_null(rl);
	shared_count = 0;
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, bump, rl), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(shared_count, THREADS * ROUNDS);
	range_locks_free(rl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_disjoint_at_once),
	    cmocka_unit_test(test_whole_file_not_starved),
	    cmocka_unit_test(test_overlap_excludes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
