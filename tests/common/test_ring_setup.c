/* common/ring_setup.c: rings set up and torn down by several threads at
 * once, each ring used before it goes. Every ring works in every build;
 * under ThreadSanitizer (build-tsan) the test is the race check: without
 * the lock, a ring landing where another thread's ring was freed is
 * reported as a race between the two threads' writes to it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>

#include "common/ring_setup.h"

enum { T_THREADS = 2, T_ROUNDS = 200 };

/* One no-op through @ring: 0, or what failed. */
static int t_nop(struct io_uring *ring, uint64_t tag)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;

	if (!sqe)
		return -1;
	io_uring_prep_nop(sqe);
	sqe->user_data = tag;
	int r = io_uring_submit_and_wait(ring, 1);
	if (r < 0)
		return r;
	r = io_uring_peek_cqe(ring, &cqe);
	if (r)
		return r;
	r = cqe->user_data == tag && cqe->res == 0 ? 0 : -2;
	io_uring_cqe_seen(ring, cqe);
	return r;
}

static void *t_churn(void *arg)
{
	intptr_t err = 0;

	for (unsigned i = 0; i < T_ROUNDS && !err; i++) {
		struct io_uring ring;
		err = ring_setup(8, &ring, 0);
		if (err)
			break;
		err = t_nop(&ring, (uintptr_t)arg * T_ROUNDS + i + 1);
		ring_teardown(&ring);
	}
	return (void *)err;
}

static void test_rings_churned_by_threads(void **state)
{
	pthread_t th[T_THREADS];
	void *err;

	(void)state;
	for (uintptr_t i = 0; i < T_THREADS; i++)
		assert_int_equal(
		    pthread_create(&th[i], NULL, t_churn, (void *)i), 0);
	for (unsigned i = 0; i < T_THREADS; i++) {
		assert_int_equal(pthread_join(th[i], &err), 0);
		assert_int_equal((intptr_t)err, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rings_churned_by_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
