/* The hashing pool (dedupe/fingerprint_pool.h): every block's fingerprint
 * in its own slot whichever thread hashed it, the threads' own path, runs
 * under the threshold never reaching the pool, and many callers sharing
 * one pool at once. The reference is fingerprint_block on one thread
 * (itself checked against known digests in test_fingerprint.c). */
#include <pthread.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/block.h"
#include "dedupe/fingerprint_pool.h"

/* @n blocks of pseudo-random bytes from @seed, every 7th all zero (a
 * hole: only the zero flag is set) and every 5th a copy of block 0. */
static uint8_t *make_blocks(size_t n, uint64_t seed)
{
	uint8_t *b = malloc(n ? n * BLOCK_BYTES : 1);
	if (!b)
		return NULL;
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	for (size_t i = 0; i < n * BLOCK_BYTES; i += 8) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		memcpy(b + i, &x, 8);
	}
	for (size_t i = 1; i < n; i++) {
		if (i % 7 == 0)
			memset(b + i * BLOCK_BYTES, 0, BLOCK_BYTES);
		else if (i % 5 == 0)
			memcpy(b + i * BLOCK_BYTES, b, BLOCK_BYTES);
	}
	return b;
}

/* Is every fingerprint in @got that of its own block? */
static bool all_match(const uint8_t *b, size_t n, const struct fingerprint *got)
{
	for (size_t i = 0; i < n; i++) {
		struct fingerprint want;
		if (fingerprint_block(b + i * BLOCK_BYTES, &want) ||
		    got[i].zero != want.zero)
			return false;
		if (!want.zero &&
		    (memcmp(got[i].sha1, want.sha1, FINGERPRINT_SHA1_LEN) ||
		     got[i].xxh3 != want.xxh3))
			return false;
	}
	return true;
}

/* Hash @n blocks made from @seed through @p; true if all came back right
 * (no cmocka assertion: callers' threads use it too). */
static bool run_ok(struct fp_pool *p, size_t n, uint64_t seed)
{
	uint8_t *b = make_blocks(n, seed);
	struct fingerprint *fp = calloc(n ? n : 1, sizeof(*fp));
	bool ok =
	    b && fp && fp_pool_blocks(p, b, n, fp) == 0 && all_match(b, n, fp);
	free(fp);
	free(b);
	return ok;
}

static void run_and_check(struct fp_pool *p, size_t n, uint64_t seed)
{
	if (!run_ok(p, n, seed))
		fail_msg("a run of %zu blocks (seed %llu) hashed wrong", n,
			 (unsigned long long)seed);
}

/* A 1 MiB run and runs that end mid-chunk, caller and threads sharing. */
static void test_every_block_in_order(void **state)
{
	struct fp_pool_cfg cfg = {.threads = 3, .caller_hashes = true};
	struct fp_pool *p = fp_pool_new(&cfg);
	assert_non_null(p);
	const size_t sizes[] = {256, 32, 33, 39, 41, 255, 257, 1000};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++)
		run_and_check(p, sizes[i], i + 1);
	struct fp_pool_stats s;
	fp_pool_get_stats(p, &s);
	assert_int_equal(s.jobs, sizeof(sizes) / sizeof(*sizes));
	fp_pool_free(p);
}

/* The caller does not hash: every block goes through the threads. */
static void test_threads_hash_everything(void **state)
{
	struct fp_pool_cfg cfg = {.threads = 2, .caller_hashes = false};
	struct fp_pool *p = fp_pool_new(&cfg);
	assert_non_null(p);
	run_and_check(p, 256, 11);
	run_and_check(p, 45, 12);
	struct fp_pool_stats s;
	fp_pool_get_stats(p, &s);
	assert_int_equal(s.jobs, 2);
	assert_int_equal(s.worker_blocks, 256 + 45);
	fp_pool_free(p);
}

/* Under the threshold, nothing reaches the pool (its threads could
 * not have hashed anything: the caller does not hash here). */
static void test_small_runs_bypass(void **state)
{
	struct fp_pool_cfg cfg = {.threads = 2, .caller_hashes = false};
	struct fp_pool *p = fp_pool_new(&cfg);
	assert_non_null(p);
	for (size_t n = 0; n < FP_POOL_MIN_BLOCKS; n++)
		run_and_check(p, n, 100 + n);
	struct fp_pool_stats s;
	fp_pool_get_stats(p, &s);
	assert_int_equal(s.jobs, 0);
	assert_int_equal(s.worker_blocks, 0);
	run_and_check(p, FP_POOL_MIN_BLOCKS, 99);
	fp_pool_get_stats(p, &s);
	assert_int_equal(s.jobs, 1);
	assert_int_equal(s.worker_blocks, FP_POOL_MIN_BLOCKS);
	fp_pool_free(p);
}

/* No pool (one CPU): the caller hashes it all. */
static void test_no_pool(void **state)
{
	run_and_check(NULL, 256, 7);
	run_and_check(NULL, 3, 8);
}

struct writer {
	struct fp_pool *p;
	unsigned id;
	unsigned bad; /* runs that came back wrong */
};

#define WRITERS 6
#define RUNS 12

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	for (unsigned i = 0; i < RUNS; i++) {
		/* sizes on both sides of the threshold, some mid-chunk */
		size_t n = 1 + (w->id * 37 + i * 53) % 300;
		w->bad += !run_ok(w->p, n, w->id * 1000 + i);
	}
	return NULL;
}

/* Many callers at once on one pool of fewer threads than callers. */
static void test_many_writers(void **state)
{
	struct fp_pool_cfg cfg = {.threads = 2, .caller_hashes = true};
	struct fp_pool *p = fp_pool_new(&cfg);
	assert_non_null(p);
	pthread_t th[WRITERS];
	struct writer w[WRITERS];
	for (unsigned i = 0; i < WRITERS; i++) {
		w[i] = (struct writer){p, i, 0};
		assert_int_equal(
		    pthread_create(&th[i], NULL, writer_main, &w[i]), 0);
	}
	for (unsigned i = 0; i < WRITERS; i++)
		pthread_join(th[i], NULL);
	for (unsigned i = 0; i < WRITERS; i++)
		assert_int_equal(w[i].bad, 0);
	fp_pool_free(p);
}

/* The process's pool: whatever its size, it hashes right. */
static void test_shared(void **state)
{
	run_and_check(fp_pool_shared(), 256, 5);
	assert_ptr_equal(fp_pool_shared(), fp_pool_shared());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_block_in_order),
	    cmocka_unit_test(test_threads_hash_everything),
	    cmocka_unit_test(test_small_runs_bypass),
	    cmocka_unit_test(test_no_pool),
	    cmocka_unit_test(test_many_writers),
	    cmocka_unit_test(test_shared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
