/* The header-only shelf: common/block.h, prng.h and clock.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "common/block.h"
#include "common/clock.h"
#include "common/prng.h"

static void test_block_size(void **state)
{
	(void)state;
	assert_int_equal(BLOCK_BYTES, 4096);
	assert_int_equal(1u << BLOCK_SHIFT, BLOCK_BYTES);
}

/* The reference splitmix64 outputs: seed 0 (Vigna's splitmix64.c) and
 * seed 1234567 (Java's SplittableRandom test vector). */
static void test_prng_known_outputs(void **state)
{
	uint64_t s0 = 0, s1 = 1234567;

	(void)state;
	assert_true(prng_next(&s0) == 0xe220a8397b1dcdafull);
	assert_true(prng_next(&s0) == 0x6e789e6aa1b965f4ull);
	assert_true(prng_next(&s0) == 0x06c45d188009454full);
	assert_true(prng_next(&s1) == 0x599ed017fb08fc85ull);
	assert_true(prng_next(&s1) == 0x2c73f08458540fa5ull);
	assert_true(prng_next(&s1) == 0x883ebce5a3f27c77ull);
}

/* Same seed, same stream; another seed, another stream; unit in [0,1). */
static void test_prng_reproducible(void **state)
{
	uint64_t a = 42, b = 42, c = 43;
	int differ = 0;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		uint64_t x = prng_next(&a), y = prng_next(&b);

		assert_true(x == y);
		differ += x != prng_next(&c);
	}
	assert_true(differ > 990);
	for (int i = 0; i < 10000; i++) {
		double u = prng_unit(&a);

		assert_true(u >= 0.0 && u < 1.0);
	}
}

static void test_clock(void **state)
{
	uint64_t a = clock_mono_ns(), b = clock_mono_ns();
	int64_t w = clock_wall_ns();
	struct timespec ts = clock_mono_after(NS_PER_SEC / 2), now;

	(void)state;
	assert_true(b >= a);
	assert_true(w > (int64_t)1600000000 * (int64_t)NS_PER_SEC);
	assert_true(ts.tv_nsec >= 0 && ts.tv_nsec < (long)NS_PER_SEC);
	clock_gettime(CLOCK_MONOTONIC, &now);
	uint64_t due = (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
	uint64_t t = (uint64_t)now.tv_sec * NS_PER_SEC + (uint64_t)now.tv_nsec;
	assert_true(due > t && due - t <= NS_PER_SEC / 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_block_size),
	    cmocka_unit_test(test_prng_known_outputs),
	    cmocka_unit_test(test_prng_reproducible),
	    cmocka_unit_test(test_clock),
	};

	return cmocka_run_group_tests_name("shelf", tests, NULL, NULL);
}
