/* group_commit (store/group_commit.h) without a store: entries whose
 * apply is a callback, so that a test decides when a group runs.
 *
 *   - a drain over blocks no queued entry changes returns at once, with
 *     the other entries still queued (the caller would otherwise hang:
 *     meson's timeout fails it);
 *   - a drain over a queued entry's blocks returns only after that entry
 *     is done, whoever runs it;
 *   - a group runs its entries in submission order, each writer's result
 *     its own;
 *   - entries that complete by callback: each done_fn once, after its
 *     group ran; none left queued when their submitter returned because a
 *     waiter was leading (the waiter leads them after its own), nor led
 *     by their submitter while a waiter's entry is queued (it will). */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "store/group_commit.h"

struct t_apply {
	_Atomic bool started; /* the drainer is about to drain */
	_Atomic bool drained; /* and its drain returned */
	bool drained_before;  /* seen by the entry's apply, at its end */
	int order[8];
	unsigned ran;
};

static struct t_apply ta;

static int t_solo(void *ctx, void *arg)
{
	(void)ctx;
	int id = (int)(intptr_t)arg;
	ta.order[ta.ran++] = id;
	if (id == 1) {
		/* Let a drain that does not wait show itself: the drainer is
		 * running, and has many turns to return before this ends. */
		while (!atomic_load(&ta.started))
			sched_yield();
		for (int i = 0; i < 10000; i++)
			sched_yield();
		ta.drained_before = atomic_load(&ta.drained);
	}
	return -id;
}

static int t_together(void *ctx, struct gc_entry *first, unsigned n)
{
	for (struct gc_entry *e = first; n--; e = e->next)
		t_solo(ctx, e->arg);
	return 0;
}

static struct gc_entry t_entry(int id, uint64_t key, uint64_t lo, uint64_t hi)
{
	return (struct gc_entry){.solo = t_solo,
				 .arg = (void *)(intptr_t)id,
				 .key = key,
				 .lo = lo,
				 .hi = hi};
}

static int t_setup(void **state)
{
	static struct group_commit g;
	ta = (struct t_apply){0};
	group_commit_init(&g);
	*state = &g;
	return 0;
}

static int t_teardown(void **state)
{
	group_commit_destroy(*state);
	return 0;
}

static void test_drain_elsewhere_returns(void **state)
{
	struct group_commit *g = *state;
	struct gc_entry a = t_entry(1, 7, 0, 3), b = t_entry(2, 8, 0, 3);
	atomic_store(&ta.started, true);
	group_commit_submit(g, &a);
	group_commit_submit(g, &b);
	group_commit_drain_over(g, 9, 0, 3); /* another file */
	group_commit_drain_over(g, 7, 4, 9); /* other blocks of file 7 */
	group_commit_drain_over(g, 8, 4, 4);
	assert_false(a.done);
	assert_false(b.done);
	assert_int_equal(ta.ran, 0);
	/* A group of both, in order; each its own result (t_together's 0). */
	assert_int_equal(group_commit_wait(g, t_together, NULL, &b), 0);
	assert_true(a.done);
	assert_int_equal(ta.ran, 2);
	assert_int_equal(ta.order[0], 1);
	assert_int_equal(ta.order[1], 2);
}

static void *t_drainer(void *arg)
{
	struct group_commit *g = arg;
	atomic_store(&ta.started, true);
	group_commit_drain_over(g, 7, 3, 3); /* entry 1's last block */
	atomic_store(&ta.drained, true);
	return NULL;
}

static void test_drain_over_waits(void **state)
{
	struct group_commit *g = *state;
	struct gc_entry a = t_entry(1, 7, 0, 3);
	pthread_t th;
	group_commit_submit(g, &a);
	assert_int_equal(pthread_create(&th, NULL, t_drainer, g), 0);
	/* A group of one: its solo's result. */
	assert_int_equal(group_commit_wait(g, t_together, NULL, &a), -1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_false(ta.drained_before);
	assert_true(atomic_load(&ta.drained));
}

/* done_fn: what had run when it was called, and how often. */
static unsigned t_called[8], t_ran_at[8];
static struct group_commit *t_g;

static void t_done(struct gc_entry *e)
{
	int id = (int)(intptr_t)e->arg;
	t_called[id]++;
	t_ran_at[id] = ta.ran;
}

static void t_reset_calls(void)
{
	for (int i = 0; i < 8; i++)
		t_called[i] = t_ran_at[i] = 0;
}

static void test_callbacks_led_by_submitter(void **state)
{
	struct group_commit *g = *state;
	struct gc_entry a = t_entry(1, 7, 0, 0), b = t_entry(2, 7, 1, 1);
	t_reset_calls();
	atomic_store(&ta.started, true);
	a.done_fn = b.done_fn = t_done;
	group_commit_submit(g, &a);
	group_commit_submit(g, &b);
	assert_int_equal(t_called[1] + t_called[2], 0);
	group_commit_lead(g, t_together, NULL);
	assert_int_equal(ta.ran, 2);
	assert_int_equal(t_called[1], 1);
	assert_int_equal(t_called[2], 1);
	assert_int_equal(t_ran_at[1], 2); /* after the group, not before */
	assert_int_equal(a.result, 0);
	assert_int_equal(b.result, 0);
}

/* Entry 3's apply, run by a waiter leading: a callback entry arrives,
 * and its submitter finds a leader and returns. */
static struct gc_entry t_late;

static int t_solo_submits(void *ctx, void *arg)
{
	t_late = t_entry(4, 9, 0, 0);
	t_late.done_fn = t_done;
	group_commit_submit(t_g, &t_late);
	group_commit_lead(t_g, t_together, ctx);
	assert_false(t_late.done);
	return t_solo(ctx, arg);
}

static void test_waiter_leads_what_is_left(void **state)
{
	struct group_commit *g = t_g = *state;
	struct gc_entry w = t_entry(3, 7, 0, 0);
	t_reset_calls();
	w.solo = t_solo_submits;
	group_commit_submit(g, &w);
	assert_int_equal(group_commit_wait(g, t_together, NULL, &w), -3);
	assert_true(t_late.done);
	assert_int_equal(t_called[4], 1);
	assert_int_equal(ta.ran, 2);
}

static void test_callback_left_to_waiter(void **state)
{
	struct group_commit *g = *state;
	struct gc_entry w = t_entry(5, 7, 0, 0), c = t_entry(6, 8, 0, 0);
	t_reset_calls();
	c.done_fn = t_done;
	group_commit_submit(g, &w); /* its waiter has not waited yet */
	group_commit_submit(g, &c);
	group_commit_lead(g, t_together, NULL);
	assert_int_equal(ta.ran, 0);
	assert_false(c.done);
	assert_int_equal(group_commit_wait(g, t_together, NULL, &w), 0);
	assert_int_equal(t_called[6], 1);
	assert_int_equal(ta.ran, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_drain_elsewhere_returns,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_drain_over_waits, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_callbacks_led_by_submitter,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_waiter_leads_what_is_left,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_callback_left_to_waiter,
					    t_setup, t_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
