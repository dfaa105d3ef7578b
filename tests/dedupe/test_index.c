/* index: block records, refcounts, the fingerprint index and the block
 * allocator, on a fresh metadata store in a temporary directory.
 *
 * Each test opens its own store and a write transaction with the counters
 * record read into t->c; the dedupe functions change only t->c, so a test
 * that commits stores t->c first (t_commit), as the data path does.
 *
 * The lifecycle pinned here (dedupe/blocks.h, dedupe/index.h):
 *   new -> refs 1, indexed;  ref/unref;  unref to 0 -> out of `blocks` and
 *   `fpindex`, into `pending` (not `freemap`);  metastore_sync -> `freemap`;
 *   dedupe_block_new takes the lowest free pblk before growing next_pblk.
 * And the packed format (meta/metastore.h): 80 slots a `blocks` record,
 * deleted when its last slot empties; 25-byte fpindex items (sha1 +
 * 40-bit pblk) under one key, a freed block's item found by its 4-byte
 * sha1_head.
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
#include <unistd.h>

#include <cmocka.h>

#include "meta/metastore.h"
#include "dedupe/blocks.h"
#include "dedupe/index.h"
#include "tests/common/t_tmpdir.h"

struct t_store {
	char dir[64];
	struct metastore *ms;
	MDB_txn *txn; /* open write transaction, or NULL */
	struct ms_counters c;
};

static void t_begin(struct t_store *t)
{
	assert_int_equal(metastore_txn_begin(t->ms, true, &t->txn), 0);
	assert_int_equal(metastore_counters_get(t->ms, t->txn, &t->c), 0);
}

/* Store the counters and commit, as a data-path transaction does. */
static void t_commit(struct t_store *t)
{
	assert_int_equal(metastore_counters_put(t->ms, t->txn, &t->c), 0);
	assert_int_equal(metastore_txn_commit(t->txn), 0);
	t->txn = NULL;
}

static int t_setup(void **state)
{
	struct t_store *t = calloc(1, sizeof(*t));
	char err[256] = "";

	if (!t)
		return -1;
	if (t_tmpdir(t->dir, sizeof(t->dir), "index")) {
		free(t);
		return -1;
	}
	if (metastore_open(t->dir, 0, true, false, &t->ms, err, sizeof(err))) {
		print_error("metastore_open: %s\n", err);
		t_rmtree(t->dir);
		free(t);
		return -1;
	}
	*state = t;
	t_begin(t);
	return 0;
}

static int t_teardown(void **state)
{
	struct t_store *t = *state;

	metastore_txn_abort(t->txn);
	metastore_close(t->ms);
	t_rmtree(t->dir);
	free(t);
	return 0;
}

/* A fingerprint whose SHA-1 is @tag repeated and whose XXH3 is @x. */
static struct fingerprint t_fp(uint8_t tag, uint64_t x)
{
	struct fingerprint fp = {.xxh3 = x, .zero = false};
	memset(fp.sha1, tag, sizeof(fp.sha1));
	return fp;
}

/* Is @pblk a key of table @tab? */
static bool t_in_table(struct t_store *t, enum ms_table tab, uint64_t pblk)
{
	MDB_val k = {sizeof(pblk), &pblk}, v;
	int rc = mdb_get(t->txn, metastore_dbi(t->ms, tab), &k, &v);
	if (rc && rc != MDB_NOTFOUND)
		fail_msg("mdb_get: %s", mdb_strerror(rc));
	return rc == 0;
}

static size_t t_table_entries(struct t_store *t, enum ms_table tab)
{
	MDB_stat st;
	assert_int_equal(mdb_stat(t->txn, metastore_dbi(t->ms, tab), &st), 0);
	return st.ms_entries;
}

/* The pblks indexed under @sha1, in walk order. */
struct t_cands {
	uint64_t pblk[8];
	unsigned n;
	unsigned stop_after; /* return 1 after this many; 0: never */
	int fail_with;	     /* return this on the first call; 0: never */
};

static int t_collect(void *ctx, uint64_t pblk)
{
	struct t_cands *cs = ctx;
	if (cs->fail_with)
		return cs->fail_with;
	if (cs->n == 8)
		fail_msg("more than 8 candidates");
	cs->pblk[cs->n++] = pblk;
	return cs->stop_after && cs->n == cs->stop_after ? 1 : 0;
}

static struct t_cands t_walk(struct t_store *t, const struct fingerprint *fp)
{
	struct t_cands cs = {0};
	assert_int_equal(
	    dedupe_index_walk(t->ms, t->txn, fp->sha1, t_collect, &cs), 0);
	return cs;
}

static uint32_t t_refs(struct t_store *t, uint64_t pblk)
{
	struct ms_block b;
	assert_int_equal(dedupe_block_get(t->ms, t->txn, pblk, &b), 0);
	return b.refs;
}

static void test_new_block(void **state)
{
	struct t_store *t = *state;
	struct fingerprint fp = t_fp(0x11, 0xabcdef0123456789ull);
	struct ms_block b;
	uint64_t pblk = 0;

	assert_int_equal(t->c.unique_blocks, 0);
	assert_int_equal(t->c.next_pblk, 1); /* pblk 0 is the hole marker */
	struct t_cands cs = t_walk(t, &fp);
	assert_int_equal(cs.n, 0);

	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fp, &pblk), 0);
	assert_int_equal(pblk, 1);
	assert_int_equal(t->c.next_pblk, 2);
	assert_int_equal(t->c.unique_blocks, 1);

	assert_int_equal(dedupe_block_get(t->ms, t->txn, pblk, &b), 0);
	assert_int_equal(b.refs, 1);
	assert_int_equal(b.xxh3, fp.xxh3);
	assert_memory_equal(b.sha1_head, fp.sha1, sizeof(b.sha1_head));

	cs = t_walk(t, &fp);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.pblk[0], pblk);

	/* Another SHA-1 finds nothing, and gets the next block. */
	struct fingerprint other = t_fp(0x22, 1);
	cs = t_walk(t, &other);
	assert_int_equal(cs.n, 0);
	uint64_t p2 = 0;
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &other, &p2),
			 0);
	assert_int_equal(p2, 2);
	assert_int_equal(t->c.unique_blocks, 2);

	/* Survives a commit. */
	t_commit(t);
	t_begin(t);
	assert_int_equal(t->c.unique_blocks, 2);
	assert_int_equal(t->c.next_pblk, 3);
	cs = t_walk(t, &fp);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.pblk[0], 1);
	assert_int_equal(t_refs(t, 2), 1);
}

static void test_ref_unref_counts(void **state)
{
	struct t_store *t = *state;
	struct fingerprint fp = t_fp(0x33, 3);
	uint64_t pblk;
	bool freed = true;

	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fp, &pblk), 0);
	assert_int_equal(dedupe_block_ref(t->ms, t->txn, pblk), 0);
	assert_int_equal(dedupe_block_ref(t->ms, t->txn, pblk), 0);
	assert_int_equal(t_refs(t, pblk), 3);
	/* Refs are not blocks: unique_blocks counts the block once. */
	assert_int_equal(t->c.unique_blocks, 1);

	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, pblk, &freed),
			 0);
	assert_false(freed);
	assert_int_equal(t_refs(t, pblk), 2);
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, pblk, &freed),
			 0);
	assert_false(freed);
	assert_int_equal(t_refs(t, pblk), 1);
	assert_int_equal(t->c.unique_blocks, 1);
	/* Still indexed while referenced. */
	assert_int_equal(t_walk(t, &fp).n, 1);
	assert_false(t_in_table(t, MS_PENDING, pblk));
}

static void test_unref_to_zero_goes_pending(void **state)
{
	struct t_store *t = *state;
	struct fingerprint fp = t_fp(0x44, 4);
	struct ms_block b;
	uint64_t pblk;
	bool freed = false;

	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fp, &pblk), 0);
	assert_int_equal(dedupe_block_ref(t->ms, t->txn, pblk), 0);
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, pblk, &freed),
			 0);
	assert_false(freed);
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, pblk, &freed),
			 0);
	assert_true(freed);

	assert_int_equal(dedupe_block_get(t->ms, t->txn, pblk, &b), -ENOENT);
	assert_int_equal(t_walk(t, &fp).n, 0);
	assert_int_equal(t_table_entries(t, MS_FPINDEX), 0);
	assert_true(t_in_table(t, MS_PENDING, pblk));
	assert_false(t_in_table(t, MS_FREEMAP, pblk));
	assert_int_equal(t->c.unique_blocks, 0);
	/* The high-water mark does not move back. */
	assert_int_equal(t->c.next_pblk, pblk + 1);

	/* A freed block is gone: another unref or ref is -ENOENT. */
	freed = true;
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, pblk, &freed),
			 -ENOENT);
	assert_false(freed);
	assert_int_equal(dedupe_block_ref(t->ms, t->txn, pblk), -ENOENT);
	assert_int_equal(t->c.unique_blocks, 0);
}

/* Pending blocks are not reused before a sync; after it they are, lowest
 * first, and only then does next_pblk grow again. */
static void test_sync_releases_and_allocator_reuses(void **state)
{
	struct t_store *t = *state;
	uint64_t p[4], q;
	bool freed;

	for (int i = 0; i < 4; i++) {
		struct fingerprint fp = t_fp((uint8_t)(0x50 + i), (uint64_t)i);
		assert_int_equal(
		    dedupe_block_new(t->ms, t->txn, &t->c, &fp, &p[i]), 0);
		assert_int_equal(p[i], (uint64_t)i + 1);
	}
	/* Free 3 then 2: the order of freeing must not matter. */
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, 3, &freed),
			 0);
	assert_true(freed);
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, 2, &freed),
			 0);
	assert_true(freed);
	assert_int_equal(t->c.unique_blocks, 2);

	/* Before a sync, the freed blocks may still be what the durable
	 * state points at: a new block must not take them. */
	struct fingerprint f5 = t_fp(0x60, 5);
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &f5, &q), 0);
	assert_int_equal(q, 5);
	t_commit(t);

	t_begin(t);
	assert_true(t_in_table(t, MS_PENDING, 2));
	assert_true(t_in_table(t, MS_PENDING, 3));
	assert_int_equal(t_table_entries(t, MS_FREEMAP), 0);
	metastore_txn_abort(t->txn);
	t->txn = NULL;

	assert_int_equal(metastore_sync(t->ms), 0);

	t_begin(t);
	assert_int_equal(t_table_entries(t, MS_PENDING), 0);
	assert_int_equal(t_table_entries(t, MS_FREEMAP), 2);
	assert_true(t_in_table(t, MS_FREEMAP, 2));
	assert_true(t_in_table(t, MS_FREEMAP, 3));
	assert_int_equal(t->c.next_pblk, 6);

	struct fingerprint fa = t_fp(0x70, 7), fb = t_fp(0x71, 8),
			   fc = t_fp(0x72, 9);
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fa, &q), 0);
	assert_int_equal(q, 2);
	assert_false(t_in_table(t, MS_FREEMAP, 2));
	assert_int_equal(t_refs(t, 2), 1);
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fb, &q), 0);
	assert_int_equal(q, 3);
	assert_int_equal(t->c.next_pblk, 6); /* reuse did not grow it */
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fc, &q), 0);
	assert_int_equal(q, 6);
	assert_int_equal(t->c.next_pblk, 7);
	assert_int_equal(t_table_entries(t, MS_FREEMAP), 0);
	/* The reused block is indexed under its new SHA-1 only. */
	struct t_cands cs = t_walk(t, &fa);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.pblk[0], 2);
	struct fingerprint old2 = t_fp(0x51, 1);
	assert_int_equal(t_walk(t, &old2).n, 0);
	assert_int_equal(t->c.unique_blocks, 6); /* 1, 2, 3, 4, 5, 6 */
}

/* A sync with nothing pending changes nothing. */
static void test_sync_without_pending(void **state)
{
	struct t_store *t = *state;
	struct fingerprint fp = t_fp(0x80, 1);
	uint64_t pblk;

	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fp, &pblk), 0);
	t_commit(t);
	assert_int_equal(metastore_sync(t->ms), 0);
	t_begin(t);
	assert_int_equal(t_table_entries(t, MS_FREEMAP), 0);
	assert_int_equal(t_refs(t, pblk), 1);
	assert_int_equal(t->c.next_pblk, 2);
}

/* Two blocks with one SHA-1 (what verify-on-match makes of a collision):
 * both indexed, lowest first; freeing one leaves the other. */
static void test_collision_both_indexed(void **state)
{
	struct t_store *t = *state;
	struct fingerprint fa = t_fp(0x9d, 0xaaaa), fb = t_fp(0x9d, 0xbbbb);
	uint64_t pa, pb, filler;
	bool freed;

	/* A block in between, so the twins are not simply 1 and 2. */
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fa, &pa), 0);
	struct fingerprint ff = t_fp(0x01, 1);
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &ff, &filler),
			 0);
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fb, &pb), 0);
	assert_int_not_equal(pa, pb);
	assert_int_equal(t->c.unique_blocks, 3);

	struct t_cands cs = t_walk(t, &fa);
	assert_int_equal(cs.n, 2);
	assert_int_equal(cs.pblk[0], pa);
	assert_int_equal(cs.pblk[1], pb);

	/* The walk stops where the callback says so ... */
	struct t_cands stop = {.stop_after = 1};
	assert_int_equal(
	    dedupe_index_walk(t->ms, t->txn, fa.sha1, t_collect, &stop), 1);
	assert_int_equal(stop.n, 1);
	assert_int_equal(stop.pblk[0], pa);
	/* ... and passes a callback's error through. */
	struct t_cands failing = {.fail_with = -EIO};
	assert_int_equal(
	    dedupe_index_walk(t->ms, t->txn, fa.sha1, t_collect, &failing),
	    -EIO);

	/* Freeing the first twin keeps the second indexed, with its own
	 * record intact. */
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, pa, &freed),
			 0);
	assert_true(freed);
	cs = t_walk(t, &fb);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.pblk[0], pb);
	struct ms_block b;
	assert_int_equal(dedupe_block_get(t->ms, t->txn, pb, &b), 0);
	assert_int_equal(b.refs, 1);
	assert_int_equal(b.xxh3, 0xbbbb);
	assert_int_equal(t->c.unique_blocks, 2);

	/* And the other way round, after a commit. */
	t_commit(t);
	t_begin(t);
	uint64_t pa2;
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fa, &pa2), 0);
	assert_int_not_equal(pa2, pa); /* pa is pending, not free */
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, pb, &freed),
			 0);
	assert_true(freed);
	cs = t_walk(t, &fa);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.pblk[0], pa2);
}

static void test_missing_block(void **state)
{
	struct t_store *t = *state;
	struct ms_block b;
	bool freed = true;

	assert_int_equal(dedupe_block_get(t->ms, t->txn, 1, &b), -ENOENT);
	assert_int_equal(dedupe_block_get(t->ms, t->txn, 12345, &b), -ENOENT);
	assert_int_equal(dedupe_block_ref(t->ms, t->txn, 7), -ENOENT);
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, 7, &freed),
			 -ENOENT);
	assert_false(freed);
	assert_int_equal(t->c.unique_blocks, 0);
	assert_int_equal(t_table_entries(t, MS_PENDING), 0);
}

/* Nothing of an aborted transaction remains. */
static void test_abort_leaves_nothing(void **state)
{
	struct t_store *t = *state;
	struct fingerprint fp = t_fp(0xa0, 1);
	uint64_t pblk;

	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fp, &pblk), 0);
	metastore_txn_abort(t->txn);
	t->txn = NULL;
	t_begin(t);
	assert_int_equal(t->c.unique_blocks, 0);
	assert_int_equal(t->c.next_pblk, 1);
	assert_int_equal(t_walk(t, &fp).n, 0);
	struct ms_block b;
	assert_int_equal(dedupe_block_get(t->ms, t->txn, pblk, &b), -ENOENT);
}

/* MS_BLOCK_EXTENT (80) pblks share a record: 86 blocks are 2 records
 * (pblk 0's slot stays free); freeing every block of the second deletes
 * it. */
static void test_records_pack(void **state)
{
	struct t_store *t = *state;
	const unsigned n = MS_BLOCK_EXTENT + 6;
	uint64_t p[MS_BLOCK_EXTENT + 6];
	for (unsigned i = 0; i < n; i++) {
		struct fingerprint fp = t_fp((uint8_t)(i + 1), i);
		assert_int_equal(
		    dedupe_block_new(t->ms, t->txn, &t->c, &fp, &p[i]), 0);
		assert_int_equal(p[i], i + 1);
	}
	assert_int_equal(t_table_entries(t, MS_BLOCKS), 2);
	assert_int_equal(t_table_entries(t, MS_FPINDEX), n);
	assert_int_equal(t_refs(t, MS_BLOCK_EXTENT), 1);
	struct ms_block b;
	assert_int_equal(dedupe_block_get(t->ms, t->txn, 0, &b), -ENOENT);
	assert_int_equal(dedupe_block_get(t->ms, t->txn, n + 1, &b), -ENOENT);
	assert_int_equal(dedupe_block_get(t->ms, t->txn, 200, &b), -ENOENT);
	bool freed;
	for (uint64_t q = MS_BLOCK_EXTENT; q <= n; q++) {
		assert_int_equal(
		    dedupe_block_unref(t->ms, t->txn, &t->c, q, &freed), 0);
		assert_true(freed);
	}
	assert_int_equal(t_table_entries(t, MS_BLOCKS), 1);
	assert_int_equal(t_table_entries(t, MS_FPINDEX), MS_BLOCK_EXTENT - 1);
	assert_int_equal(t_refs(t, MS_BLOCK_EXTENT - 1), 1);
	assert_int_equal(dedupe_block_get(t->ms, t->txn, MS_BLOCK_EXTENT, &b),
			 -ENOENT);
	assert_int_equal(t->c.unique_blocks, MS_BLOCK_EXTENT - 1);
}

/* Blocks whose SHA-1s share the first 4 bytes (and the key byte): each
 * is found by its own SHA-1 only, and freeing one drops only its item. */
static void test_shared_head(void **state)
{
	struct t_store *t = *state;
	struct fingerprint f[3];
	uint64_t p[3];
	for (unsigned i = 0; i < 3; i++) {
		f[i] = t_fp(0x5a, i);
		f[i].sha1[MS_FP_SHA1_LEN - 1] = (uint8_t)(9 - i);
		assert_int_equal(
		    dedupe_block_new(t->ms, t->txn, &t->c, &f[i], &p[i]), 0);
	}
	for (unsigned i = 0; i < 3; i++) {
		struct t_cands cs = t_walk(t, &f[i]);
		assert_int_equal(cs.n, 1);
		assert_int_equal(cs.pblk[0], p[i]);
	}
	bool freed;
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, p[1], &freed),
			 0);
	assert_true(freed);
	assert_int_equal(t_walk(t, &f[1]).n, 0);
	assert_int_equal(t_walk(t, &f[0]).pblk[0], p[0]);
	assert_int_equal(t_walk(t, &f[2]).pblk[0], p[2]);
	assert_int_equal(t_table_entries(t, MS_FPINDEX), 2);
}

/* A block whose item is gone cannot be freed: the tables disagree. */
static void test_unindexed_block_is_eio(void **state)
{
	struct t_store *t = *state;
	struct fingerprint fp = t_fp(0x77, 1);
	uint64_t pblk;
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fp, &pblk), 0);
	uint8_t item[MS_FP_ITEM_LEN] = {0};
	memcpy(item, fp.sha1, MS_FP_SHA1_LEN);
	ms_put_pblk(item + MS_FP_SHA1_LEN, pblk);
	MDB_val k = {1, (uint8_t[]){0}}, v = {sizeof(item), item};
	ms_seal(MS_FPINDEX, &k, item, sizeof(item));
	assert_int_equal(
	    mdb_del(t->txn, metastore_dbi(t->ms, MS_FPINDEX), &k, &v), 0);
	bool freed;
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, pblk, &freed),
			 -EIO);
	assert_false(freed);
}

/* fpindex items hold 40-bit pblks: the allocator stops there. */
static void test_pblk_limit(void **state)
{
	struct t_store *t = *state;
	struct fingerprint fp = t_fp(0x42, 1);
	uint64_t pblk;
	t->c.next_pblk = MS_PBLK_LIMIT - 1;
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fp, &pblk), 0);
	assert_int_equal(pblk, MS_PBLK_LIMIT - 1);
	struct t_cands cs = t_walk(t, &fp);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.pblk[0], MS_PBLK_LIMIT - 1);
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fp, &pblk),
			 -ENOSPC);
	assert_int_equal(t->c.next_pblk, MS_PBLK_LIMIT);
}

/* A blocks record changed many times in one transaction is sealed once,
 * at its commit, whole (meta/metastore_defer.c); an aborted transaction's
 * changes leave the record as committed; more records than the notes hold
 * are sealed at once, and all of them are whole after the commit. */
static void test_block_seal_at_commit(void **state)
{
	struct t_store *t = *state;
	struct fingerprint fp = t_fp(0x51, 3);
	uint64_t pblk;
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fp, &pblk), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(dedupe_block_ref(t->ms, t->txn, pblk), 0);
	bool freed;
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, pblk, &freed),
			 0);
	assert_int_equal(metastore_txn_commit(t->txn), 0);
	assert_int_equal(metastore_txn_begin(t->ms, true, &t->txn), 0);
	uint64_t key = pblk / MS_BLOCK_EXTENT;
	MDB_val k = {sizeof(key), &key}, v;
	MDB_dbi dbi = metastore_dbi(t->ms, MS_BLOCKS);
	assert_int_equal(mdb_get(t->txn, dbi, &k, &v), 0);
	assert_true(ms_sealed(MS_BLOCKS, &k, &v));
	struct ms_block b;
	assert_int_equal(dedupe_block_get(t->ms, t->txn, pblk, &b), 0);
	assert_int_equal(b.refs, 5);

	assert_int_equal(dedupe_block_ref(t->ms, t->txn, pblk), 0);
	metastore_txn_abort(t->txn);
	assert_int_equal(metastore_txn_begin(t->ms, true, &t->txn), 0);
	assert_int_equal(dedupe_block_get(t->ms, t->txn, pblk, &b), 0);
	assert_int_equal(b.refs, 5);

	/* 700 records in one transaction: past the 512 notes. */
	enum { NREC = 700 };
	static uint64_t p[NREC];
	for (unsigned i = 0; i < NREC; i++) {
		struct fingerprint f = t_fp(0x60, i + 1);
		f.sha1[1] = (uint8_t)i;
		f.sha1[2] = (uint8_t)(i >> 8);
		t->c.next_pblk = (uint64_t)(i + 10) * MS_BLOCK_EXTENT;
		assert_int_equal(
		    dedupe_block_new(t->ms, t->txn, &t->c, &f, &p[i]), 0);
		assert_int_equal(dedupe_block_ref(t->ms, t->txn, p[i]), 0);
	}
	assert_int_equal(metastore_txn_commit(t->txn), 0);
	assert_int_equal(metastore_txn_begin(t->ms, true, &t->txn), 0);
	for (unsigned i = 0; i < NREC; i++) {
		assert_int_equal(dedupe_block_get(t->ms, t->txn, p[i], &b), 0);
		assert_int_equal(b.refs, 2);
	}
}

/* A `blocks` record with any byte of its value or key flipped is -EIO to
 * a reader and to a change (ref), counted; never another block's slot. */
static void test_block_record_seal(void **state)
{
	struct t_store *t = *state;
	struct fingerprint fp = t_fp(0x31, 7);
	uint64_t pblk;
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fp, &pblk), 0);
	/* Sealed at the commit (meta/metastore_defer.c), checked in the
	 * transactions after it. */
	assert_int_equal(metastore_txn_commit(t->txn), 0);
	assert_int_equal(metastore_txn_begin(t->ms, true, &t->txn), 0);
	MDB_dbi dbi = metastore_dbi(t->ms, MS_BLOCKS);
	uint64_t key = pblk / MS_BLOCK_EXTENT;
	MDB_val k = {sizeof(key), &key}, v;
	assert_int_equal(mdb_get(t->txn, dbi, &k, &v), 0);
	uint8_t rec[MS_BLOCK_REC_LEN];
	assert_int_equal(v.mv_size, sizeof(rec));
	memcpy(rec, v.mv_data, sizeof(rec));
	MDB_val nv = {sizeof(rec), rec};
	struct ms_block b;
	for (size_t i = 0; i < sizeof(rec); i++) {
		rec[i] ^= 0x01;
		assert_int_equal(mdb_put(t->txn, dbi, &k, &nv, 0), 0);
		assert_int_equal(dedupe_block_get(t->ms, t->txn, pblk, &b),
				 -EIO);
		rec[i] ^= 0x01;
	}
	assert_int_equal(dedupe_block_ref(t->ms, t->txn, pblk), -EIO);
	assert_int_equal(mdb_put(t->txn, dbi, &k, &nv, 0), 0);
	assert_int_equal(dedupe_block_get(t->ms, t->txn, pblk, &b), 0);
	/* The key: the record moved to another 80 blocks. */
	for (unsigned bit = 0; bit < 56; bit += 7) { /* pblk stays < 2^64 */
		uint64_t other = key ^ (1ull << bit);
		MDB_val ok = {sizeof(other), &other};
		assert_int_equal(mdb_put(t->txn, dbi, &ok, &nv, 0), 0);
		assert_int_equal(dedupe_block_get(t->ms, t->txn,
						  other * MS_BLOCK_EXTENT +
						      pblk % MS_BLOCK_EXTENT,
						  &b),
				 -EIO);
		assert_int_equal(mdb_del(t->txn, dbi, &ok, NULL), 0);
	}
	assert_int_equal(metastore_damage_count(t->ms), sizeof(rec) + 1 + 8);
}

/* A fingerprint item with any byte flipped is never a dedupe candidate:
 * a lookup under the SHA-1 it now claims skips it, counted. */
static void test_fp_item_seal(void **state)
{
	struct t_store *t = *state;
	struct fingerprint fp = t_fp(0x42, 9);
	uint64_t pblk;
	assert_int_equal(dedupe_block_new(t->ms, t->txn, &t->c, &fp, &pblk), 0);
	MDB_dbi dbi = metastore_dbi(t->ms, MS_FPINDEX);
	uint8_t item[MS_FP_ITEM_LEN];
	memcpy(item, fp.sha1, MS_FP_SHA1_LEN);
	ms_put_pblk(item + MS_FP_SHA1_LEN, pblk);
	MDB_val k = {1, (uint8_t[]){0}}, v = {sizeof(item), item};
	ms_seal(MS_FPINDEX, &k, item, sizeof(item));
	assert_int_equal(t_walk(t, &fp).n, 1);
	for (size_t i = 0; i < sizeof(item); i++) {
		assert_int_equal(mdb_del(t->txn, dbi, &k, &v), 0);
		item[i] ^= 0x80;
		assert_int_equal(mdb_put(t->txn, dbi, &k, &v, 0), 0);
		struct fingerprint claim = fp;
		memcpy(claim.sha1, item, MS_FP_SHA1_LEN);
		uint64_t before = metastore_damage_count(t->ms);
		assert_int_equal(t_walk(t, &claim).n, 0);
		assert_int_equal(metastore_damage_count(t->ms), before + 1);
		assert_int_equal(mdb_del(t->txn, dbi, &k, &v), 0);
		item[i] ^= 0x80;
		assert_int_equal(mdb_put(t->txn, dbi, &k, &v, 0), 0);
	}
	assert_int_equal(t_walk(t, &fp).n, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_new_block, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_ref_unref_counts, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_unref_to_zero_goes_pending,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(
		test_sync_releases_and_allocator_reuses, t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_sync_without_pending, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_collision_both_indexed,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_missing_block, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_abort_leaves_nothing, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_records_pack, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_shared_head, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_unindexed_block_is_eio,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_block_record_seal, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_block_seal_at_commit, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_fp_item_seal, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_pblk_limit, t_setup,
					    t_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
