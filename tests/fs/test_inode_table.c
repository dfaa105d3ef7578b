/* inode_table: the kernel's lookup counts per inode (an open-addressing
 * map with backward-shift deletion), checked against a plain array model.
 *
 * The map starts at 1024 slots and grows at 3/4 load, so 5000 inodes force
 * three growths; removing every other one exercises backward shifts across
 * long probe chains and across the wrap at the end of the table. A lost or
 * misplaced entry shows up as a wrong count for an inode that is still
 * held, or a non-zero count for one that is gone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fs/inode_table.h"

static int t_setup(void **state)
{
	struct inode_table *t = inode_table_new();
	*state = t;
	return t ? 0 : -1;
}

static int t_teardown(void **state)
{
	inode_table_free(*state);
	return 0;
}

static void test_ref_unref_counts(void **state)
{
	struct inode_table *t = *state;

	assert_int_equal(inode_table_lookups(t, 42), 0);
	inode_table_ref(t, 42);
	assert_int_equal(inode_table_lookups(t, 42), 1);
	inode_table_ref(t, 42);
	inode_table_ref(t, 42);
	assert_int_equal(inode_table_lookups(t, 42), 3);
	/* Another inode is counted apart. */
	inode_table_ref(t, 43);
	assert_int_equal(inode_table_lookups(t, 43), 1);

	assert_int_equal(inode_table_unref(t, 42, 1), 2);
	assert_int_equal(inode_table_lookups(t, 42), 2);
	assert_int_equal(inode_table_unref(t, 42, 2), 0);
	assert_int_equal(inode_table_lookups(t, 42), 0);
	assert_int_equal(inode_table_lookups(t, 43), 1);

	/* Forgetting more than held leaves 0 and the entry gone. */
	inode_table_ref(t, 44);
	inode_table_ref(t, 44);
	assert_int_equal(inode_table_unref(t, 44, 100), 0);
	assert_int_equal(inode_table_lookups(t, 44), 0);
	/* ... and a new lookup starts again from 1. */
	inode_table_ref(t, 44);
	assert_int_equal(inode_table_lookups(t, 44), 1);

	/* Forgetting an unknown inode is harmless. */
	assert_int_equal(inode_table_unref(t, 999, 1), 0);
	assert_int_equal(inode_table_lookups(t, 999), 0);
	assert_int_equal(inode_table_lookups(t, 43), 1);

	/* Large inode numbers are ordinary keys. */
	inode_table_ref(t, UINT64_MAX);
	assert_int_equal(inode_table_lookups(t, UINT64_MAX), 1);
	assert_int_equal(inode_table_unref(t, UINT64_MAX, 1), 0);
	assert_int_equal(inode_table_lookups(t, UINT64_MAX), 0);
}

#define T_MANY 5000

static uint64_t t_count_of(uint64_t ino)
{
	return ino % 5 + 1; /* 1..5 lookups */
}

static void test_many_grow_and_remove(void **state)
{
	struct inode_table *t = *state;

	for (uint64_t ino = 1; ino <= T_MANY; ino++)
		for (uint64_t k = 0; k < t_count_of(ino); k++)
			inode_table_ref(t, ino);
	for (uint64_t ino = 1; ino <= T_MANY; ino++)
		if (inode_table_lookups(t, ino) != t_count_of(ino))
			fail_msg(
			    "after growth: ino %llu has %llu lookups, "
			    "want %llu",
			    (unsigned long long)ino,
			    (unsigned long long)inode_table_lookups(t, ino),
			    (unsigned long long)t_count_of(ino));

	/* Remove the odd ones, some in one forget, some one by one. */
	for (uint64_t ino = 1; ino <= T_MANY; ino += 2) {
		uint64_t n = t_count_of(ino);
		if (ino % 4 == 1) {
			assert_int_equal(inode_table_unref(t, ino, n), 0);
		} else {
			for (uint64_t k = 1; k <= n; k++)
				assert_int_equal(inode_table_unref(t, ino, 1),
						 n - k);
		}
	}
	for (uint64_t ino = 1; ino <= T_MANY; ino++) {
		uint64_t want = ino % 2 ? 0 : t_count_of(ino);
		if (inode_table_lookups(t, ino) != want)
			fail_msg(
			    "after removals: ino %llu has %llu lookups, "
			    "want %llu",
			    (unsigned long long)ino,
			    (unsigned long long)inode_table_lookups(t, ino),
			    (unsigned long long)want);
	}

	/* The survivors can still be found and removed to the last one. */
	for (uint64_t ino = 2; ino <= T_MANY; ino += 2)
		assert_int_equal(inode_table_unref(t, ino, t_count_of(ino)), 0);
	for (uint64_t ino = 1; ino <= T_MANY; ino++)
		assert_int_equal(inode_table_lookups(t, ino), 0);
}

/* Interleaved refs and forgets of random inodes against an array model:
 * removals land in every position of every probe chain, including chains
 * that wrap past the end of the table. Seeded: a failure reproduces. */
static void test_random_against_model(void **state)
{
	struct inode_table *t = *state;
	enum { N_INOS = 3000, N_OPS = 200000 };
	static uint64_t model[N_INOS + 1];
	uint64_t rng = 0x243f6a8885a308d3ull;

	memset(model, 0, sizeof(model));
	for (int op = 0; op < N_OPS; op++) {
		rng ^= rng >> 12;
		rng ^= rng << 25;
		rng ^= rng >> 27;
		uint64_t r = rng * 0x2545f4914f6cdd1dull;
		/* Sparse, large inode numbers as well as small ones. */
		uint64_t idx = (r >> 8) % N_INOS + 1;
		uint64_t ino = idx * 0x9e3779b97f4a7c15ull | 1;
		if (r % 3) {
			inode_table_ref(t, ino);
			model[idx]++;
		} else {
			uint64_t n = (r >> 40) % 3 + 1;
			uint64_t want = model[idx] > n ? model[idx] - n : 0;
			uint64_t got = inode_table_unref(t, ino, n);
			if (got != want)
				fail_msg("op %d: unref(%llu, %llu) = %llu, "
					 "want %llu",
					 op, (unsigned long long)ino,
					 (unsigned long long)n,
					 (unsigned long long)got,
					 (unsigned long long)want);
			model[idx] = want;
		}
		if (op % 10000 == 9999)
			for (uint64_t i = 1; i <= N_INOS; i++) {
				uint64_t x = i * 0x9e3779b97f4a7c15ull | 1;
				if (inode_table_lookups(t, x) != model[i])
					fail_msg("op %d: ino %llu has %llu "
						 "lookups, want %llu",
						 op, (unsigned long long)x,
						 (unsigned long long)
						     inode_table_lookups(t, x),
						 (unsigned long long)model[i]);
			}
	}
}

/* The table at its fullest (767 of 1024 slots: one more would grow it),
 * emptied in random order with every remaining entry checked after each
 * removal. At this load probe chains are long and many wrap past the last
 * slot, which is where a backward shift has the most ways to go wrong. */
static void test_dense_removals(void **state)
{
	enum { N = 767, ROUNDS = 12 };
	static uint64_t inos[N], counts[N];
	uint64_t rng = 0x13198a2e03707344ull;

	for (int round = 0; round < ROUNDS; round++) {
		struct inode_table *t = inode_table_new();
		assert_non_null(t);
		for (int i = 0; i < N; i++) {
			rng ^= rng >> 12;
			rng ^= rng << 25;
			rng ^= rng >> 27;
			/* Distinct and non-zero: i + 1 in the low bits. */
			inos[i] = (rng * 0x2545f4914f6cdd1dull) << 10 |
				  (uint64_t)(i + 1);
			counts[i] = (uint64_t)(i % 3) + 1;
			for (uint64_t k = 0; k < counts[i]; k++)
				inode_table_ref(t, inos[i]);
		}
		/* Fisher-Yates: removal order. */
		for (int i = N - 1; i > 0; i--) {
			rng ^= rng >> 12;
			rng ^= rng << 25;
			rng ^= rng >> 27;
			int j = (int)((rng * 0x2545f4914f6cdd1dull) >> 33) %
				(i + 1);
			uint64_t x = inos[i], c = counts[i];
			inos[i] = inos[j];
			counts[i] = counts[j];
			inos[j] = x;
			counts[j] = c;
		}
		for (int r = 0; r < N; r++) {
			assert_int_equal(
			    inode_table_unref(t, inos[r], counts[r]), 0);
			assert_int_equal(inode_table_lookups(t, inos[r]), 0);
			for (int i = r + 1; i < N; i++) {
				uint64_t want = counts[i];
				if (inode_table_lookups(t, inos[i]) != want)
					fail_msg(
					    "round %d, after %d removals: "
					    "ino %#llx has %llu lookups, "
					    "want %llu",
					    round, r + 1,
					    (unsigned long long)inos[i],
					    (unsigned long long)
						inode_table_lookups(t, inos[i]),
					    (unsigned long long)want);
			}
		}
		inode_table_free(t);
	}
}

/* Paths from the names inodes were reached by: nested, renamed, unknown
 * once a parent is forgotten, and intact across growth and removals. */
static void test_paths(void **state)
{
	struct inode_table *t = *state;
	char p[64];

	assert_true(inode_table_path(t, 1, p, sizeof(p)));
	assert_string_equal(p, "/");
	inode_table_ref_named(t, 10, 1, "db");
	inode_table_ref_named(t, 11, 10, "a.log");
	assert_true(inode_table_path(t, 11, p, sizeof(p)));
	assert_string_equal(p, "/db/a.log");
	assert_false(inode_table_path(t, 11, p, 8)); /* too small */
	inode_table_renamed(t, 11, 1, "top");
	assert_true(inode_table_path(t, 11, p, sizeof(p)));
	assert_string_equal(p, "/top");
	inode_table_renamed(t, 99, 1, "nobody"); /* not held: ignored */
	assert_int_equal(inode_table_lookups(t, 99), 0);
	inode_table_ref_named(t, 12, 10, "b");
	for (uint64_t i = 1000; i < 5000; i++) /* grow, then shrink */
		inode_table_ref_named(t, i, 10, "x");
	for (uint64_t i = 1000; i < 5000; i++)
		inode_table_unref(t, i, 1);
	assert_true(inode_table_path(t, 12, p, sizeof(p)));
	assert_string_equal(p, "/db/b");
	inode_table_unref(t, 10, 1);
	assert_false(inode_table_path(t, 12, p, sizeof(p))); /* parent gone */
	assert_false(inode_table_path(t, 77, p, sizeof(p)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_ref_unref_counts, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_many_grow_and_remove, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_random_against_model, t_setup,
					    t_teardown),
	    cmocka_unit_test(test_dense_removals),
	    cmocka_unit_test_setup_teardown(test_paths, t_setup, t_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
