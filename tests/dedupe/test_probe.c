/* probe: a request's blocks looked up in one sorted pass
 * (dedupe_probe, dedupe_index_probe) then resolved in file order
 * (dedupe_resolve_probed), against the block-by-block path
 * (dedupe_resolve), each on its own fresh metadata store with a fake
 * read-back.
 *
 * Pinned here: the sorted pass answers what a walk per SHA-1 answers, on
 * an index of many leaf pages (the page at hand, the next one, a seek),
 * an empty one and one of a single item; and a request mixing new blocks,
 * duplicates of stored ones, duplicates inside the request, zero blocks,
 * collisions (a stored twin, a twin earlier in the request, a stored
 * collision pair), and a block freed in the middle of the request, ends
 * with the same outcomes, the same pblks (new ones consecutive in file
 * order), the same refcounts, counters and tallies either way, with
 * verify on and off, and fails with -ENOSPC at the same block when the
 * store may not grow. The same again with the new blocks' index items
 * batched (env.batch: indexed before each walk and at the end, as the data
 * path does), which also ends with the same index, item for item.
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
#include "common/stats.h"
#include "meta/metastore.h"
#include "dedupe/blocks.h"
#include "dedupe/dedupe.h"
#include "dedupe/index.h"
#include "tests/common/t_tmpdir.h"

#define T_STORED 640 /* pblks the fake backing store holds */
#define T_OLD 300    /* blocks stored before the request */

struct t_ctx {
	char dir[64];
	struct metastore *ms;
	MDB_txn *txn;
	struct ms_counters c;
	struct dedupe_stats tally;
	struct dedupe_env env;
	uint8_t (*stored)[BLOCK_BYTES]; /* the fake backing store */
	uint64_t full_at; /* may_alloc says no at this many unique blocks */
};

static int t_read(void *ctx, uint64_t pblk, void *buf)
{
	struct t_ctx *t = ctx;
	assert_true(pblk < T_STORED);
	memcpy(buf, t->stored[pblk], BLOCK_BYTES);
	return 1;
}

static bool t_may_alloc(void *ctx, uint64_t unique_blocks)
{
	struct t_ctx *t = ctx;
	return unique_blocks < t->full_at;
}

static struct t_ctx *t_open(bool verify)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char err[256] = "";
	assert_non_null(t);
	t->stored = calloc(T_STORED, BLOCK_BYTES);
	assert_non_null(t->stored);
	assert_int_equal(t_tmpdir(t->dir, sizeof(t->dir), "probe"), 0);
	if (metastore_open(t->dir, 0, true, false, &t->ms, err, sizeof(err)))
		fail_msg("store: %s", err);
	assert_int_equal(metastore_txn_begin(t->ms, true, &t->txn), 0);
	assert_int_equal(metastore_counters_get(t->ms, t->txn, &t->c), 0);
	t->full_at = UINT64_MAX;
	t->env = (struct dedupe_env){.ms = t->ms,
				     .txn = t->txn,
				     .c = &t->c,
				     .verify = verify,
				     .read = t_read,
				     .may_alloc = t_may_alloc,
				     .ctx = t,
				     .tally = &t->tally};
	return t;
}

static void t_close(struct t_ctx *t)
{
	metastore_txn_abort(t->txn);
	metastore_close(t->ms);
	t_rmtree(t->dir);
	free(t->stored);
	free(t);
}

static uint64_t t_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A SHA-1 for @id: pseudo-random, so the index's pages fill as with real
 * data (tests pick it, to make collisions on purpose). */
static void t_sha1(uint64_t id, uint8_t sha1[FINGERPRINT_SHA1_LEN])
{
	for (size_t i = 0; i < FINGERPRINT_SHA1_LEN; i++)
		sha1[i] = (uint8_t)(t_mix(id * 32 + i / 8) >> (8 * (i % 8)));
}

/* A block of kind @kind ('d': the bytes of @id under its SHA-1; 'c': other
 * bytes under @id's SHA-1, a collision; 'z': zeros). */
struct t_blk {
	char kind;
	uint64_t id;
};

static struct fingerprint t_make(struct t_blk k, uint8_t *b)
{
	struct fingerprint fp = {.zero = k.kind == 'z', .xxh3 = k.id};
	memset(b, 0, BLOCK_BYTES);
	if (fp.zero)
		return fp;
	uint64_t content = k.kind == 'c' ? k.id + 1000000 : k.id;
	for (size_t i = 0; i < BLOCK_BYTES; i += 8) {
		uint64_t v = t_mix(content * 4096 + i);
		memcpy(b + i, &v, 8);
	}
	t_sha1(k.id, fp.sha1);
	return fp;
}

/* Resolve @k alone (the block-by-block path); a new block's bytes go to
 * the fake store. */
static int t_resolve(struct t_ctx *t, struct t_blk k, bool probed, bool known,
		     uint64_t *pblk)
{
	uint8_t b[BLOCK_BYTES];
	struct fingerprint fp = t_make(k, b);
	int r = probed ? dedupe_resolve_probed(&t->env, b, &fp, known, pblk)
		       : dedupe_resolve(&t->env, b, &fp, pblk);
	if (r == DEDUPE_NEW) {
		assert_true(*pblk < T_STORED);
		memcpy(t->stored[*pblk], b, BLOCK_BYTES);
	}
	return r;
}

/* The store before the request: T_OLD blocks, then a collision twin of
 * block 5 (its SHA-1, other bytes) beside it. */
static void t_prefill(struct t_ctx *t)
{
	uint64_t p;
	for (uint64_t id = 1; id <= T_OLD; id++)
		assert_int_equal(
		    t_resolve(t, (struct t_blk){'d', id}, false, true, &p),
		    DEDUPE_NEW);
	assert_int_equal(t_resolve(t, (struct t_blk){'c', 5}, false, true, &p),
			 DEDUPE_NEW);
}

/* The request, in file order. FREE is not a block: the block of id 250
 * loses its only ref there (as an overwrite in the same request does), so
 * the 'd' 250 after it finds nothing. */
#define FREE ((struct t_blk){'f', 250})
static const struct t_blk t_request[] = {
    {'d', 1001}, {'d', 10},   {'z', 0},	   {'d', 1002}, {'d', 1001},
    {'c', 7},	 {'d', 1003}, {'d', 1002}, {'z', 0},	{'d', 200},
    {'c', 1001}, {'c', 5},    {'d', 1004}, FREE,	{'d', 250},
    {'d', 299},	 {'c', 1001}, {'d', 1005}, {'d', 10},	{'d', 5},
    {'d', 1006}, {'d', 1003}, {'z', 0},	   {'d', 1007},
};
#define T_N (sizeof(t_request) / sizeof(t_request[0]))
#define T_MAX 256 /* blocks in a request: a 1 MiB write */

/* The request being run: t_request, or a generated one. */
static struct t_blk t_req[T_MAX];
static size_t t_req_n;

struct t_result {
	int outcome[T_MAX];
	uint64_t pblk[T_MAX];
	uint64_t tally[DEDUPE_COUNTER_COUNT];
	uint32_t refs[T_STORED];
	struct ms_counters c;
	uint8_t items[T_STORED][MS_FP_ITEM_LEN]; /* fpindex, in order */
	size_t nitems;
};

/* Every fpindex item, in the index's order. */
static void t_items(struct t_ctx *t, struct t_result *res)
{
	MDB_cursor *cur;
	assert_int_equal(
	    mdb_cursor_open(t->txn, metastore_dbi(t->ms, MS_FPINDEX), &cur), 0);
	MDB_val k, v;
	res->nitems = 0;
	for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		assert_int_equal(v.mv_size, MS_FP_ITEM_LEN);
		assert_true(res->nitems < T_STORED);
		memcpy(res->items[res->nitems++], v.mv_data, MS_FP_ITEM_LEN);
	}
	mdb_cursor_close(cur);
}

/* Run the request on @t, block by block or after one probe (@batch: the
 * new items batched, indexed at the end); stop at the first error (its
 * outcome recorded). */
static void t_run(struct t_ctx *t, bool probed, struct t_result *res,
		  struct dedupe_index_batch *batch)
{
	struct fingerprint fps[T_MAX];
	bool known[T_MAX];
	uint8_t b[BLOCK_BYTES];
	for (size_t i = 0; i < t_req_n; i++) {
		fps[i] = t_make(t_req[i], b);
		/* FREE's slot is probed as a block no one looks for */
		fps[i].zero |= t_req[i].kind == 'f';
	}
	if (probed)
		assert_int_equal(dedupe_probe(&t->env, fps, t_req_n, known), 0);
	t->env.batch = batch;
	memset(res, 0, sizeof(*res));
	for (size_t i = 0; i < t_req_n; i++) {
		if (t_req[i].kind == 'f') {
			bool freed;
			assert_int_equal(dedupe_block_unref(t->ms, t->txn,
							    &t->c, t_req[i].id,
							    &freed),
					 0);
			assert_true(freed);
			continue;
		}
		res->outcome[i] =
		    t_resolve(t, t_req[i], probed, probed ? known[i] : true,
			      &res->pblk[i]);
		if (res->outcome[i] < 0)
			break;
	}
	assert_int_equal(dedupe_flush(&t->env), 0);
	assert_int_equal(batch ? batch->n : 0, 0);
	t_items(t, res);
	for (unsigned i = 0; i < DEDUPE_COUNTER_COUNT; i++)
		res->tally[i] = dedupe_stats_get(&t->tally, i);
	for (uint64_t p = 1; p < T_STORED; p++) {
		struct ms_block blk;
		int r = dedupe_block_get(t->ms, t->txn, p, &blk);
		assert_true(r == 0 || r == -ENOENT);
		res->refs[p] = r ? 0 : blk.refs;
	}
	res->c = t->c;
}

/* The request three ways (block by block, probed, probed with batched
 * index items), from the same store; the results are equal. */
static void t_both(bool verify, uint64_t full_at, struct t_result *out)
{
	struct t_result *res = calloc(3, sizeof(*res));
	assert_non_null(res);
	static uint8_t items[T_MAX][MS_FP_ITEM_LEN];
	for (int way = 0; way < 3; way++) {
		struct dedupe_index_batch b = {items[0], 0, T_MAX};
		struct t_ctx *t = t_open(true); /* the stored twin needs it */
		t_prefill(t);
		t->env.verify = verify;
		memset(&t->tally, 0, sizeof(t->tally));
		t->full_at = full_at;
		t_run(t, way > 0, &res[way], way == 2 ? &b : NULL);
		t_close(t);
	}
	for (int way = 1; way < 3; way++) {
		assert_memory_equal(res[0].outcome, res[way].outcome,
				    sizeof(res[0].outcome));
		assert_memory_equal(res[0].pblk, res[way].pblk,
				    sizeof(res[0].pblk));
		assert_memory_equal(res[0].tally, res[way].tally,
				    sizeof(res[0].tally));
		assert_memory_equal(res[0].refs, res[way].refs,
				    sizeof(res[0].refs));
		assert_memory_equal(&res[0].c, &res[way].c, sizeof(res[0].c));
		assert_int_equal(res[0].nitems, res[way].nitems);
		assert_memory_equal(res[0].items, res[way].items,
				    res[0].nitems * MS_FP_ITEM_LEN);
	}
	*out = res[2];
	free(res);
}

static void t_use_request(void)
{
	memcpy(t_req, t_request, sizeof(t_request));
	t_req_n = T_N;
}

/* A 1 MiB request drawn from @seed: zeros, stored blocks, repeats of its
 * own earlier blocks, collisions with stored blocks, new blocks, and
 * stored block 77 freed half way and written again after. */
static void t_gen_request(uint64_t seed)
{
	size_t news = 0;
	for (size_t i = 0; i < T_MAX; i++) {
		uint64_t x = t_mix(seed * 1000 + i), pick = x >> 32;
		unsigned roll = x % 100;
		uint64_t stored = 1 + pick % (T_OLD - 1);
		stored += stored >= 77; /* 77 only at the end */
		if (roll < 15)
			t_req[i] = (struct t_blk){'z', 0};
		else if (roll < 35)
			t_req[i] = (struct t_blk){'d', stored};
		else if (roll < 50 && news)
			t_req[i] = (struct t_blk){'d', 2000 + pick % news};
		else if (roll < 55)
			t_req[i] = (struct t_blk){'c', stored};
		else
			t_req[i] = (struct t_blk){'d', 2000 + news++};
	}
	t_req[T_MAX / 2] = (struct t_blk){'f', 77};
	t_req[T_MAX - 10] = (struct t_blk){'d', 77};
	t_req_n = T_MAX;
}

/* The tally row named @name. */
static uint64_t t_tally(const struct t_result *r, const char *name)
{
	for (unsigned i = 0; i < DEDUPE_COUNTER_COUNT; i++)
		if (!strcmp(dedupe_counter_defs[i].name, name))
			return r->tally[i];
	fail_msg("no counter %s", name);
	return 0;
}

static void test_probe_same_as_block_by_block(void **state)
{
	(void)state;
	struct t_result *r = malloc(sizeof(*r));
	assert_non_null(r);
	t_use_request();
	t_both(true, UINT64_MAX, r);
	/* What the request should do, not only the same both ways. */
	uint64_t next = T_OLD + 2; /* after the blocks and 5's twin */
	for (size_t i = 0; i < T_N; i++)
		if (r->outcome[i] == DEDUPE_NEW)
			assert_int_equal(r->pblk[i], next++); /* file order */
	assert_int_equal(r->outcome[2], DEDUPE_HOLE);
	assert_int_equal(r->pblk[2], 0);
	assert_int_equal(r->outcome[1], DEDUPE_SHARED); /* stored */
	assert_int_equal(r->pblk[1], 10);
	assert_int_equal(r->outcome[4], DEDUPE_SHARED); /* in the request */
	assert_int_equal(r->pblk[4], r->pblk[0]);
	assert_int_equal(r->refs[r->pblk[0]], 2);
	assert_int_equal(r->outcome[5], DEDUPE_NEW);  /* twin of stored 7 */
	assert_int_equal(r->outcome[10], DEDUPE_NEW); /* twin of 1001 */
	assert_int_equal(r->pblk[16], r->pblk[10]);   /* and its repeat */
	assert_int_equal(r->pblk[11], T_OLD + 1);     /* 5's stored twin */
	assert_int_equal(r->pblk[19], 5);
	assert_int_equal(r->outcome[14], DEDUPE_NEW); /* 250 was freed */
	assert_int_not_equal(r->pblk[14], 250);
	assert_int_equal(r->refs[250], 0);
	assert_int_equal(t_tally(r, "zero_blocks"), 3);
	assert_int_equal(t_tally(r, "unique_writes"), 10);
	assert_int_equal(t_tally(r, "duplicate_hits"), 10);
	/* 7's twin, 1001's twin twice (new, then past 1001 to itself), 5's
	 * twin past 5; 5 itself matches its first candidate */
	assert_int_equal(t_tally(r, "verify_mismatches"), 4);
	free(r);
}

static void test_probe_same_with_verify_off(void **state)
{
	(void)state;
	struct t_result *r = malloc(sizeof(*r));
	assert_non_null(r);
	t_use_request();
	t_both(false, UINT64_MAX, r);
	assert_int_equal(r->pblk[5], 7); /* the SHA-1 trusted */
	assert_int_equal(t_tally(r, "verify_reads"), 0);
	free(r);
}

static void test_probe_same_enospc(void **state)
{
	(void)state;
	struct t_result *r = malloc(sizeof(*r));
	assert_non_null(r);
	/* Room for the stored blocks and the request's first two new. */
	t_use_request();
	t_both(true, T_OLD + 1 + 2, r);
	assert_int_equal(r->outcome[5], -ENOSPC); /* 7's twin, the third */
	free(r);
}

/* Generated 1 MiB requests: the same both ways, new blocks in file
 * order. */
static void test_probe_same_on_generated_requests(void **state)
{
	(void)state;
	struct t_result *r = malloc(sizeof(*r));
	assert_non_null(r);
	for (uint64_t seed = 1; seed <= 4; seed++) {
		t_gen_request(seed);
		t_both(seed % 2, UINT64_MAX, r);
		uint64_t next = T_OLD + 2, news = 0;
		for (size_t i = 0; i < t_req_n; i++)
			if (r->outcome[i] == DEDUPE_NEW) {
				assert_int_equal(r->pblk[i], next++);
				news++;
			}
		assert_true(news > T_MAX / 4);
		assert_int_equal(r->outcome[T_MAX - 10], DEDUPE_NEW);
	}
	free(r);
}

static int t_cmp_sha1(const void *a, const void *b)
{
	return memcmp(a, b, FINGERPRINT_SHA1_LEN);
}

static int t_count(void *ctx, uint64_t pblk)
{
	(void)pblk;
	(*(unsigned *)ctx)++;
	return 0;
}

/* The probe's answers against a walk per SHA-1, on @items indexed SHA-1s
 * (every 7th twice, as collision twins are); the queries, sorted, are
 * half indexed SHA-1s (some asked twice), half not, and both ends: @nq
 * of them (at most 600). */
static void t_probe_vs_walk(unsigned items, unsigned nq)
{
	struct t_ctx *t = t_open(true);
	uint8_t sha1[FINGERPRINT_SHA1_LEN];
	for (unsigned i = 0; i < items; i++) {
		t_sha1(i, sha1);
		assert_int_equal(dedupe_index_add(t->ms, t->txn, sha1, i + 1),
				 0);
		if (i % 7 == 0)
			assert_int_equal(dedupe_index_add(t->ms, t->txn, sha1,
							  i + 1 + items),
					 0);
	}
	const unsigned Q = nq;
	static uint8_t q[600][FINGERPRINT_SHA1_LEN];
	const uint8_t *qp[600];
	bool found[600];
	assert_true(Q >= 2 && Q <= 600 && Q % 2 == 0);
	for (unsigned i = 0; i < Q - 2; i++)
		t_sha1(i % 2 ? (i / 2 * 11) % (items ? items : 1) : 1000000 + i,
		       q[i]);
	memset(q[Q - 2], 0, FINGERPRINT_SHA1_LEN);
	memset(q[Q - 1], 0xff, FINGERPRINT_SHA1_LEN);
	qsort(q, Q, sizeof(q[0]), t_cmp_sha1);
	for (unsigned i = 0; i < Q; i++)
		qp[i] = q[i];
	assert_int_equal(dedupe_index_probe(t->ms, t->txn, qp, Q, found), 0);
	unsigned hits = 0;
	for (unsigned i = 0; i < Q; i++) {
		unsigned n = 0;
		assert_int_equal(
		    dedupe_index_walk(t->ms, t->txn, q[i], t_count, &n), 0);
		assert_int_equal(found[i], n > 0);
		hits += found[i];
	}
	/* the odd queries are indexed SHA-1s, the rest not */
	assert_int_equal(hits, items ? (Q - 2) / 2 : 0);
	t_close(t);
}

/* Thousands of items: many leaf pages, so the pass stays on a page and
 * steps to the next one (600 queries: about a dozen a page), or seeks
 * past it (20 queries: a few pages apart). */
static void test_index_probe_many_pages(void **state)
{
	(void)state;
	t_probe_vs_walk(5000, 600);
	t_probe_vs_walk(5000, 20);
}

/* One item lives in its node, not in a page of duplicates. */
static void test_index_probe_one_item(void **state)
{
	(void)state;
	t_probe_vs_walk(1, 600);
}

static void test_index_probe_empty(void **state)
{
	(void)state;
	t_probe_vs_walk(0, 600);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_index_probe_many_pages),
	    cmocka_unit_test(test_index_probe_one_item),
	    cmocka_unit_test(test_index_probe_empty),
	    cmocka_unit_test(test_probe_same_as_block_by_block),
	    cmocka_unit_test(test_probe_same_with_verify_off),
	    cmocka_unit_test(test_probe_same_enospc),
	    cmocka_unit_test(test_probe_same_on_generated_requests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
