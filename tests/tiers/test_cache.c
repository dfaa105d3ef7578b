/* tiers/cache: residency, LRU order, dirty tracking; and the issue's
 * point that a re-read working set smaller than the cache reaches a high
 * hit ratio and a larger one does not. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tiers/cache.h"
#include "tiers/engine.h"

static struct cache_key t_key(uint64_t block)
{
	struct cache_key k = {.ino = 7, .block = block};

	return k;
}

static struct cache *t_cache(uint64_t cap)
{
	struct cache *c;

	assert_int_equal(cache_new(cap, &c), 0);
	return c;
}

static void test_lru_order(void **state)
{
	struct cache *c = t_cache(3);
	struct cache_key v;
	struct cache_stats st;

	assert_false(cache_lookup(c, t_key(1)));
	for (uint64_t b = 1; b <= 3; b++)
		assert_false(cache_insert(c, t_key(b), false, &v));
	assert_true(cache_lookup(c, t_key(1))); /* 1 is now the newest */
	assert_false(cache_insert(c, t_key(4), false, &v)); /* evicts 2 */
	assert_false(cache_lookup(c, t_key(2)));
	assert_true(cache_lookup(c, t_key(1)));
	assert_true(cache_lookup(c, t_key(3)));
	assert_true(cache_lookup(c, t_key(4)));
	/* Another inode's block 1 is another block. */
	assert_false(cache_lookup(c, (struct cache_key){.ino = 8, .block = 1}));
	cache_stats(c, &st);
	assert_int_equal(st.hits, 4);
	assert_int_equal(st.misses, 3);
	assert_int_equal(st.resident, 3);
	assert_int_equal(st.evictions, 1);
	cache_free(c);
	cache_free(NULL);
	assert_int_equal(cache_new(0, &c), -EINVAL);
}

static void test_dirty(void **state)
{
	struct cache *c = t_cache(2);
	struct cache_key k, v = {0};
	struct cache_stats st;

	assert_false(cache_insert(c, t_key(1), true, &v));
	assert_false(cache_insert(c, t_key(2), true, &v));
	assert_false(cache_insert(c, t_key(2), false, &v)); /* stays dirty */
	cache_stats(c, &st);
	assert_int_equal(st.dirty, 2);
	/* The oldest dirty block goes first, and is then clean. */
	assert_true(cache_destage_next(c, &k));
	assert_int_equal(k.block, 1);
	/* Evicting the LRU (1, clean now) owes nothing; evicting the dirty
	 * 2 owes its write. */
	assert_false(cache_insert(c, t_key(3), false, &v));
	assert_true(cache_insert(c, t_key(4), false, &v));
	assert_int_equal(v.block, 2);
	cache_stats(c, &st);
	assert_int_equal(st.dirty, 0);
	assert_int_equal(st.dirty_evictions, 1);
	assert_int_equal(st.destaged, 1);
	assert_false(cache_destage_next(c, &k));
	cache_free(c);
}

/* Random re-reads of a working set, promoting on a miss: hit ratio. */
static double t_hit_ratio(uint64_t cap, uint64_t working_set)
{
	struct cache *c = t_cache(cap);
	uint64_t r;
	struct cache_stats st;
	struct cache_key v;

	r = 11;
	for (unsigned i = 0; i < 20 * working_set; i++) {
		struct cache_key k = t_key(prng_next(&r) % working_set);

		if (!cache_lookup(c, k))
			cache_insert(c, k, false, &v);
	}
	cache_stats(c, &st);
	cache_free(c);
	return (double)st.hits / (double)(st.hits + st.misses);
}

/* A failed cache device: its dirty blocks, oldest first (the destager's
 * order); then nothing resident, counters kept, and it fills again. */
static void test_dirty_keys_and_clear(void **state)
{
	struct cache *c = t_cache(8);
	struct cache_key v, keys[8];
	struct cache_stats st;

	for (uint64_t b = 0; b < 6; b++)
		cache_insert(c, t_key(b), b % 2 == 1, &v);
	cache_insert(c, t_key(1), true, &v); /* dirty already: stays 2nd */
	assert_true(cache_destage_next(c, &v));
	assert_int_equal(v.block, 1);
	assert_int_equal(cache_dirty_keys(c, keys, 8), 2);
	assert_int_equal(keys[0].block, 3);
	assert_int_equal(keys[1].block, 5);
	assert_int_equal(cache_dirty_keys(c, keys, 1), 1);
	cache_clear(c);
	cache_stats(c, &st);
	assert_int_equal(st.resident, 0);
	assert_int_equal(st.dirty, 0);
	assert_int_equal(st.destaged, 1);
	assert_int_equal(cache_dirty_keys(c, keys, 8), 0);
	assert_false(cache_lookup(c, t_key(3)));
	cache_insert(c, t_key(9), true, &v);
	assert_true(cache_lookup(c, t_key(9)));
	assert_int_equal(cache_dirty_keys(c, keys, 8), 1);
	cache_free(c);
	(void)state;
}

static void test_working_set(void **state)
{
	double small = t_hit_ratio(10000, 8000);
	double large = t_hit_ratio(10000, 40000);

	print_message("# hit ratio: working set 0.8 x cache %.3f, 4 x %.3f\n",
		      small, large);
	assert_true(small > 0.9); /* only the first pass misses */
	assert_true(large < 0.3); /* about cache / working set */
}

/* eviction = arc (SLRU): a hot set used over and over survives a
 * one-pass scan larger than the cache, which flushes it from a plain LRU. */
static double t_hot_after_scan(bool segmented)
{
	struct cache *c;
	struct cache_key v;
	struct cache_stats st;

	assert_int_equal(cache_new_policy(1000, segmented, &c), 0);
	for (int pass = 0; pass < 2; pass++) /* the hot set, used twice */
		for (uint64_t b = 0; b < 500; b++)
			if (!cache_lookup(c, t_key(b)))
				cache_insert(c, t_key(b), false, &v);
	for (uint64_t b = 100000; b < 102000; b++) /* a scan, 2x the cache */
		if (!cache_lookup(c, t_key(b)))
			cache_insert(c, t_key(b), false, &v);
	cache_stats(c, &st);
	uint64_t before = st.hits;
	for (uint64_t b = 0; b < 500; b++)
		cache_lookup(c, t_key(b));
	cache_stats(c, &st);
	cache_free(c);
	return (double)(st.hits - before) / 500.0;
}

static void test_segmented_resists_scans(void **state)
{
	double lru = t_hot_after_scan(false), arc = t_hot_after_scan(true);
	print_message("# hot set after a scan: lru %.3f, arc %.3f\n", lru, arc);
	assert_true(lru == 0.0); /* the scan flushed it */
	assert_true(arc == 1.0); /* protected: all of it stayed */
}

/* Against a reference LRU (an array, moved by hand) over many random
 * operations: the hash's backward-shift deletion keeps every block. */
static void test_against_reference(void **state)
{
	enum { CAP = 257, KEYS = 1000, OPS = 200000 };
	uint64_t ref[CAP];
	unsigned n = 0;
	struct cache *c = t_cache(CAP);
	uint64_t r;
	struct cache_key v;

	r = 5;
	for (unsigned op = 0; op < OPS; op++) {
		uint64_t b = prng_next(&r) % KEYS;
		unsigned i;
		bool hit;

		for (i = 0; i < n && ref[i] != b; i++)
			;
		hit = cache_lookup(c, t_key(b));
		assert_int_equal(hit, i < n);
		if (!hit) {
			cache_insert(c, t_key(b), false, &v);
			if (n < CAP)
				n++;
			i = n - 1; /* the LRU slot is replaced */
		}
		memmove(&ref[1], &ref[0], i * sizeof(ref[0]));
		ref[0] = b;
	}
	cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lru_order),
	    cmocka_unit_test(test_dirty),
	    cmocka_unit_test(test_dirty_keys_and_clear),
	    cmocka_unit_test(test_working_set),
	    cmocka_unit_test(test_against_reference),
	    cmocka_unit_test(test_segmented_resists_scans),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
