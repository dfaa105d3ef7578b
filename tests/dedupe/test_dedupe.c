/* dedupe: the inline dedupe decision (dedupe/dedupe.h) on a fresh
 * metadata store, with a fake read-back: an array of "stored" blocks the
 * test fills as dedupe_resolve hands out new ones, and can corrupt.
 *
 * Pinned here: a zero block is a hole and touches nothing; a first block
 * is new; a repeat with verify on is read back once and shared; a
 * candidate with other bytes under the same SHA-1 (a collision) is
 * counted and kept apart, and the data gets its own block beside it;
 * with verify off the read-back is never called and the SHA-1 trusted;
 * bytes the caller still holds are compared without counting a read; a
 * read-back error fails the write; a store that may not grow refuses new
 * blocks but still shares known ones.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/block.h"
#include "meta/metastore.h"
#include "dedupe/dedupe.h"
#include "dedupe/blocks.h"
#include "tests/common/t_tmpdir.h"

#define T_BLOCKS 8

struct t_ctx {
	char dir[64];
	struct metastore *ms;
	MDB_txn *txn;
	struct ms_counters c;
	struct dedupe_stats tally;
	struct dedupe_env env;
	uint8_t stored[T_BLOCKS][BLOCK_BYTES]; /* the fake backing store */
	unsigned reads;			       /* read-back calls */
	int read_result;		       /* 1: "read", 0: "in memory" */
	int read_fail;			       /* -errno to fail with */
	bool full;			       /* may_alloc says no */
};

static int t_read(void *ctx, uint64_t pblk, void *buf)
{
	struct t_ctx *t = ctx;
	t->reads++;
	if (t->read_fail)
		return t->read_fail;
	assert_true(pblk < T_BLOCKS);
	memcpy(buf, t->stored[pblk], BLOCK_BYTES);
	return t->read_result;
}

static bool t_may_alloc(void *ctx, uint64_t unique_blocks)
{
	struct t_ctx *t = ctx;
	return !t->full;
}

static int t_setup(void **state)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char err[256] = "";
	if (!t)
		return -1;
	if (t_tmpdir(t->dir, sizeof(t->dir), "dedupe") ||
	    metastore_open(t->dir, 0, true, false, &t->ms, err, sizeof(err)) ||
	    metastore_txn_begin(t->ms, true, &t->txn) ||
	    metastore_counters_get(t->ms, t->txn, &t->c)) {
		print_error("store: %s\n", err);
		return -1;
	}
	t->read_result = 1;
	t->env = (struct dedupe_env){.ms = t->ms,
				     .txn = t->txn,
				     .c = &t->c,
				     .verify = true,
				     .read = t_read,
				     .may_alloc = t_may_alloc,
				     .ctx = t,
				     .tally = &t->tally};
	*state = t;
	return 0;
}

static int t_teardown(void **state)
{
	struct t_ctx *t = *state;
	metastore_txn_abort(t->txn);
	metastore_close(t->ms);
	t_rmtree(t->dir);
	free(t);
	return 0;
}

/* A block of @byte, fingerprinted with SHA-1 @tag repeated: tests pick
 * the SHA-1 to make collisions on purpose. */
static struct fingerprint t_block(uint8_t *b, uint8_t byte, uint8_t tag)
{
	struct fingerprint fp = {.xxh3 = byte};
	memset(b, byte, BLOCK_BYTES);
	memset(fp.sha1, tag, sizeof(fp.sha1));
	return fp;
}

/* Resolve @data; a new block's bytes go to the fake store. */
static int t_resolve(struct t_ctx *t, const uint8_t *data,
		     const struct fingerprint *fp, uint64_t *pblk)
{
	int r = dedupe_resolve(&t->env, data, fp, pblk);
	if (r == DEDUPE_NEW) {
		assert_true(*pblk > 0 && *pblk < T_BLOCKS);
		memcpy(t->stored[*pblk], data, BLOCK_BYTES);
	}
	return r;
}

static uint32_t t_refs(struct t_ctx *t, uint64_t pblk)
{
	struct ms_block b;
	assert_int_equal(dedupe_block_get(t->ms, t->txn, pblk, &b), 0);
	return b.refs;
}

static void test_zero_block_is_hole(void **state)
{
	struct t_ctx *t = *state;
	static uint8_t z[BLOCK_BYTES];
	struct fingerprint fp = {.zero = true};
	uint64_t pblk = 99;
	assert_int_equal(t_resolve(t, z, &fp, &pblk), DEDUPE_HOLE);
	assert_int_equal(pblk, 0);
	assert_int_equal(t->tally.zero_blocks, 1);
	assert_int_equal(t->c.unique_blocks, 0);
	assert_int_equal(t->reads, 0);
}

static void test_repeat_is_verified_and_shared(void **state)
{
	struct t_ctx *t = *state;
	uint8_t a[BLOCK_BYTES];
	struct fingerprint fp = t_block(a, 'a', 1);
	uint64_t p1, p2;
	assert_int_equal(t_resolve(t, a, &fp, &p1), DEDUPE_NEW);
	assert_int_equal(t->tally.unique_writes, 1);
	assert_int_equal(t->reads, 0); /* nothing to compare with */
	assert_int_equal(t_resolve(t, a, &fp, &p2), DEDUPE_SHARED);
	assert_int_equal(p2, p1);
	assert_int_equal(t_refs(t, p1), 2);
	assert_int_equal(t->reads, 1);
	assert_int_equal(t->tally.verify_reads, 1);
	assert_int_equal(t->tally.duplicate_hits, 1);
	assert_int_equal(t->tally.verify_mismatches, 0);
	assert_int_equal(t->c.unique_blocks, 1);
}

static void test_collision_kept_apart(void **state)
{
	struct t_ctx *t = *state;
	uint8_t a[BLOCK_BYTES], b[BLOCK_BYTES];
	struct fingerprint fa = t_block(a, 'a', 7), fb = t_block(b, 'b', 7);
	uint64_t pa, pb, p;
	assert_int_equal(t_resolve(t, a, &fa, &pa), DEDUPE_NEW);
	/* Same SHA-1, other bytes: a collision, and a block of its own. */
	assert_int_equal(t_resolve(t, b, &fb, &pb), DEDUPE_NEW);
	assert_int_not_equal(pb, pa);
	assert_int_equal(t->tally.verify_mismatches, 1);
	assert_int_equal(t_refs(t, pa), 1);
	assert_int_equal(t->c.unique_blocks, 2);
	/* Each twin dedupes against its own bytes: b walks past a. */
	assert_int_equal(t_resolve(t, b, &fb, &p), DEDUPE_SHARED);
	assert_int_equal(p, pb);
	assert_int_equal(t->tally.verify_mismatches, 2);
	assert_int_equal(t_resolve(t, a, &fa, &p), DEDUPE_SHARED);
	assert_int_equal(p, pa);
	assert_int_equal(t->tally.verify_mismatches, 2);
	assert_int_equal(t_refs(t, pa), 2);
	assert_int_equal(t_refs(t, pb), 2);
}

static void test_verify_mismatch_on_corrupt_store(void **state)
{
	struct t_ctx *t = *state;
	uint8_t a[BLOCK_BYTES];
	struct fingerprint fp = t_block(a, 'a', 3);
	uint64_t p1, p2;
	assert_int_equal(t_resolve(t, a, &fp, &p1), DEDUPE_NEW);
	t->stored[p1][100] ^= 1; /* the stored copy rotted */
	assert_int_equal(t_resolve(t, a, &fp, &p2), DEDUPE_NEW);
	assert_int_not_equal(p2, p1);
	assert_int_equal(t->tally.verify_mismatches, 1);
	assert_int_equal(t->tally.duplicate_hits, 0);
	assert_int_equal(t_refs(t, p1), 1);
}

static void test_verify_off_trusts_sha1(void **state)
{
	struct t_ctx *t = *state;
	uint8_t a[BLOCK_BYTES], b[BLOCK_BYTES];
	struct fingerprint fa = t_block(a, 'a', 5), fb = t_block(b, 'b', 5);
	uint64_t pa, p;
	t->env.verify = false;
	t->env.read = NULL; /* never called */
	assert_int_equal(t_resolve(t, a, &fa, &pa), DEDUPE_NEW);
	assert_int_equal(t_resolve(t, b, &fb, &p), DEDUPE_SHARED);
	assert_int_equal(p, pa); /* the risk verify-on-match removes */
	assert_int_equal(t->reads, 0);
	assert_int_equal(t->tally.verify_reads, 0);
	assert_int_equal(t->tally.verify_mismatches, 0);
	assert_int_equal(t_refs(t, pa), 2);
}

static void test_bytes_in_memory_not_a_read(void **state)
{
	struct t_ctx *t = *state;
	uint8_t a[BLOCK_BYTES];
	struct fingerprint fp = t_block(a, 'a', 9);
	uint64_t p1, p2;
	t->read_result = 0; /* the caller holds them: no read back */
	assert_int_equal(t_resolve(t, a, &fp, &p1), DEDUPE_NEW);
	assert_int_equal(t_resolve(t, a, &fp, &p2), DEDUPE_SHARED);
	assert_int_equal(p2, p1);
	assert_int_equal(t->reads, 1);
	assert_int_equal(t->tally.verify_reads, 0);
}

static void test_read_back_error_fails(void **state)
{
	struct t_ctx *t = *state;
	uint8_t a[BLOCK_BYTES];
	struct fingerprint fp = t_block(a, 'a', 4);
	uint64_t p1, p2;
	assert_int_equal(t_resolve(t, a, &fp, &p1), DEDUPE_NEW);
	t->read_fail = -EIO;
	assert_int_equal(t_resolve(t, a, &fp, &p2), -EIO);
	assert_int_equal(t_refs(t, p1), 1);
	assert_int_equal(t->tally.duplicate_hits, 0);
	assert_int_equal(t->tally.verify_mismatches, 0);
}

static void test_full_store_still_shares(void **state)
{
	struct t_ctx *t = *state;
	uint8_t a[BLOCK_BYTES], b[BLOCK_BYTES];
	struct fingerprint fa = t_block(a, 'a', 2), fb = t_block(b, 'b', 6);
	uint64_t pa, p;
	assert_int_equal(t_resolve(t, a, &fa, &pa), DEDUPE_NEW);
	t->full = true;
	assert_int_equal(t_resolve(t, b, &fb, &p), -ENOSPC);
	assert_int_equal(t->c.unique_blocks, 1);
	assert_int_equal(t_resolve(t, a, &fa, &p), DEDUPE_SHARED);
	assert_int_equal(p, pa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, t_setup, t_teardown)
	    T(test_zero_block_is_hole),
	    T(test_repeat_is_verified_and_shared),
	    T(test_collision_kept_apart),
	    T(test_verify_mismatch_on_corrupt_store),
	    T(test_verify_off_trusts_sha1),
	    T(test_bytes_in_memory_not_a_read),
	    T(test_read_back_error_fails),
	    T(test_full_store_still_shares),
#undef T
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
