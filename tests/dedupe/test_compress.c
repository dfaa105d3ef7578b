/* compress: the compression accounting of the inline dedupe.
 *
 * dedupe/compress.c: a block's kept size is LZ4's or zstd's (level 1)
 * output, or the block's own size when it does not shrink (keep any) or
 * does not halve (keep half). Expected sizes come from calling LZ4 and
 * zstd directly, not from the function under test.
 *
 * dedupe/csize.c through dedupe_resolve and dedupe_block_unref, on a fresh
 * metadata store: a new block's size is recorded once (a duplicate adds
 * nothing), the total survives a commit and a reopen, drops when the last
 * reference goes, and no record is left once every block is freed; with
 * compression off nothing is recorded; a damaged size record is an EIO.
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
#include <lz4.h>
#include <zstd.h>

#include "common/block.h"
#include "common/stats.h"
#include "dedupe/blocks.h"
#include "dedupe/compress.h"
#include "dedupe/csize.h"
#include "dedupe/dedupe.h"
#include "dedupe/fingerprint.h"
#include "tests/common/t_tmpdir.h"

/* ---- the size rule ------------------------------------------------------ */

/* Bytes from a fixed xorshift: incompressible to LZ4 and zstd. */
static void t_random(uint8_t *b, size_t n, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = (uint8_t)x;
	}
}

/* A block whose first @random_pct % is random, the rest one byte. */
static void t_mixed(uint8_t *b, unsigned random_pct, uint64_t seed)
{
	size_t n = (size_t)BLOCK_BYTES * random_pct / 100;
	t_random(b, n, seed);
	memset(b + n, 'x', BLOCK_BYTES - n);
}

static uint32_t t_lz4(const uint8_t *b)
{
	static char out[LZ4_COMPRESSBOUND(BLOCK_BYTES)];
	int n = LZ4_compress_default((const char *)b, out, BLOCK_BYTES,
				     (int)sizeof(out));
	assert_true(n > 0);
	return (uint32_t)n;
}

static uint32_t t_zstd(const uint8_t *b)
{
	static uint8_t out[BLOCK_BYTES * 2];
	size_t n = ZSTD_compress(out, sizeof(out), b, BLOCK_BYTES, 1);
	assert_false(ZSTD_isError(n));
	return (uint32_t)n;
}

static uint32_t t_size(enum dedupe_compress kind, enum dedupe_keep keep,
		       const uint8_t *b)
{
	static uint8_t out[BLOCK_BYTES * 2];
	const struct dedupe_compression c = {kind, keep};
	assert_true(dedupe_compress_bound(BLOCK_BYTES) <= sizeof(out));
	return dedupe_compressed_size(&c, b, BLOCK_BYTES, out, NULL);
}

static void test_size_rule(void **state)
{
	uint8_t b[BLOCK_BYTES];
	ZSTD_CCtx *z = ZSTD_createCCtx();
	uint8_t out[BLOCK_BYTES * 2];
	const struct dedupe_compression zc = {DEDUPE_COMPRESS_ZSTD,
					      DEDUPE_KEEP_ANY};

	/* Random: stored whole by either compressor. */
	t_random(b, sizeof(b), 1);
	assert_int_equal(t_size(DEDUPE_COMPRESS_LZ4, DEDUPE_KEEP_ANY, b),
			 BLOCK_BYTES);
	assert_int_equal(t_size(DEDUPE_COMPRESS_ZSTD, DEDUPE_KEEP_ANY, b),
			 BLOCK_BYTES);
	/* Compression off: whole. */
	t_mixed(b, 10, 2);
	assert_int_equal(t_size(DEDUPE_COMPRESS_NONE, DEDUPE_KEEP_ANY, b),
			 BLOCK_BYTES);
	/* 10% random: well under half, kept compressed either way. */
	assert_int_equal(t_size(DEDUPE_COMPRESS_LZ4, DEDUPE_KEEP_ANY, b),
			 t_lz4(b));
	assert_int_equal(t_size(DEDUPE_COMPRESS_LZ4, DEDUPE_KEEP_HALF, b),
			 t_lz4(b));
	assert_int_equal(t_size(DEDUPE_COMPRESS_ZSTD, DEDUPE_KEEP_HALF, b),
			 t_zstd(b));
	/* A reused context gives what a fresh one does. */
	assert_int_equal(dedupe_compressed_size(&zc, b, BLOCK_BYTES, out, z),
			 t_zstd(b));
	/* 70% random: shrinks, but not to half: vSAN keeps it whole. */
	t_mixed(b, 70, 3);
	assert_true(t_lz4(b) < BLOCK_BYTES && t_lz4(b) > BLOCK_BYTES / 2);
	assert_int_equal(t_size(DEDUPE_COMPRESS_LZ4, DEDUPE_KEEP_ANY, b),
			 t_lz4(b));
	assert_int_equal(t_size(DEDUPE_COMPRESS_LZ4, DEDUPE_KEEP_HALF, b),
			 BLOCK_BYTES);
	ZSTD_freeCCtx(z);
	(void)state;
}

/* ---- the sizes recorded with the blocks --------------------------------- */

struct t_ctx {
	char dir[64];
	struct metastore *ms;
	MDB_txn *txn;
	struct ms_counters c;
	struct dedupe_stats tally;
	struct dedupe_compression comp;
	struct dedupe_env env;
};

static void t_begin(struct t_ctx *t)
{
	assert_int_equal(metastore_txn_begin(t->ms, true, &t->txn), 0);
	assert_int_equal(metastore_counters_get(t->ms, t->txn, &t->c), 0);
	t->env = (struct dedupe_env){.ms = t->ms,
				     .txn = t->txn,
				     .c = &t->c,
				     .verify = false,
				     .tally = &t->tally,
				     .compress = &t->comp};
}

static void t_commit(struct t_ctx *t)
{
	assert_int_equal(metastore_counters_put(t->ms, t->txn, &t->c), 0);
	assert_int_equal(metastore_txn_commit(t->txn), 0);
	t->txn = NULL;
}

static int t_setup(void **state)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char err[256] = "";
	if (!t)
		return -1;
	if (t_tmpdir(t->dir, sizeof(t->dir), "compress") ||
	    metastore_open(t->dir, 0, true, false, &t->ms, err, sizeof(err))) {
		print_error("store: %s\n", err);
		free(t);
		return -1;
	}
	t->comp =
	    (struct dedupe_compression){DEDUPE_COMPRESS_LZ4, DEDUPE_KEEP_ANY};
	t_begin(t);
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

static struct dedupe_csize_total t_total(struct t_ctx *t)
{
	struct dedupe_csize_total tot;
	assert_int_equal(dedupe_csize_total(t->ms, t->txn, &tot), 0);
	return tot;
}

/* Resolve @b (really fingerprinted); the outcome. */
static int t_write(struct t_ctx *t, const uint8_t *b, uint64_t *pblk)
{
	struct fingerprint fp;
	assert_int_equal(fingerprint_block(b, &fp), 0);
	int r = dedupe_resolve(&t->env, b, &fp, pblk);
	assert_true(r >= 0);
	return r;
}

static void t_unref(struct t_ctx *t, uint64_t pblk, bool want_freed)
{
	bool freed;
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, pblk, &freed),
			 0);
	assert_int_equal(freed, want_freed);
}

/* Records of the meta table whose key starts "csize:" (the total too). */
static unsigned t_csize_records(struct t_ctx *t)
{
	MDB_cursor *cur;
	MDB_val k = {6, "csize:"}, v;
	unsigned n = 0;
	assert_int_equal(
	    mdb_cursor_open(t->txn, metastore_dbi(t->ms, MS_META), &cur), 0);
	int rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
	while (rc == 0 && k.mv_size >= 6 && !memcmp(k.mv_data, "csize:", 6)) {
		n++;
		rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
	}
	mdb_cursor_close(cur);
	return n;
}

static void test_sizes_follow_refs(void **state)
{
	struct t_ctx *t = *state;
	uint8_t a[BLOCK_BYTES], r[BLOCK_BYTES];
	uint64_t pa, pa2, pr;

	t_mixed(a, 10, 4);
	t_random(r, sizeof(r), 5);
	assert_int_equal(t_write(t, a, &pa), DEDUPE_NEW);
	assert_int_equal(t_write(t, a, &pa2), DEDUPE_SHARED);
	assert_int_equal(pa2, pa);
	assert_int_equal(t_write(t, r, &pr), DEDUPE_NEW);
	struct dedupe_csize_total tot = t_total(t);
	assert_int_equal(tot.blocks, 2);
	assert_int_equal(tot.bytes, t_lz4(a) + BLOCK_BYTES);

	/* Survives the commit and a reopen of the store. */
	t_commit(t);
	metastore_close(t->ms);
	char err[256];
	assert_int_equal(
	    metastore_open(t->dir, 0, true, false, &t->ms, err, sizeof(err)),
	    0);
	t_begin(t);
	tot = t_total(t);
	assert_int_equal(tot.bytes, t_lz4(a) + BLOCK_BYTES);

	/* The first unref of a shared block keeps it; the last drops it. */
	t_unref(t, pa, false);
	assert_int_equal(t_total(t).bytes, t_lz4(a) + BLOCK_BYTES);
	t_unref(t, pa, true);
	tot = t_total(t);
	assert_int_equal(tot.blocks, 1);
	assert_int_equal(tot.bytes, BLOCK_BYTES);
	t_unref(t, pr, true);
	tot = t_total(t);
	assert_int_equal(tot.blocks, 0);
	assert_int_equal(tot.bytes, 0);
	assert_int_equal(t_csize_records(t), 1); /* the total alone */
}

static void test_off_records_nothing(void **state)
{
	struct t_ctx *t = *state;
	uint8_t a[BLOCK_BYTES];
	uint64_t pa;

	t->env.compress = NULL;
	t_mixed(a, 10, 6);
	assert_int_equal(t_write(t, a, &pa), DEDUPE_NEW);
	t->comp.kind = DEDUPE_COMPRESS_NONE;
	t->env.compress = &t->comp;
	t_mixed(a, 20, 7);
	assert_int_equal(t_write(t, a, &pa), DEDUPE_NEW);
	assert_int_equal(t_csize_records(t), 0);
	assert_int_equal(t_total(t).blocks, 0);
	t_unref(t, pa, true);
	assert_int_equal(t_csize_records(t), 0);
}

static void test_set_range(void **state)
{
	struct t_ctx *t = *state;
	assert_int_equal(dedupe_csize_set(t->ms, t->txn, 7, 0), -EINVAL);
	assert_int_equal(dedupe_csize_set(t->ms, t->txn, 7, BLOCK_BYTES + 1),
			 -EINVAL);
	assert_int_equal(dedupe_csize_set(t->ms, t->txn, 7, BLOCK_BYTES), 0);
	/* Set again (a size fsck left behind): replaced, not added. */
	assert_int_equal(dedupe_csize_set(t->ms, t->txn, 7, 100), 0);
	struct dedupe_csize_total tot = t_total(t);
	assert_int_equal(tot.blocks, 1);
	assert_int_equal(tot.bytes, 100);
}

/* A size record with a changed byte fails its seal: an EIO, counted. */
static void test_damaged_record(void **state)
{
	struct t_ctx *t = *state;
	uint8_t a[BLOCK_BYTES];
	uint64_t pa;

	t_mixed(a, 10, 8);
	assert_int_equal(t_write(t, a, &pa), DEDUPE_NEW);
	char key[32];
	snprintf(key, sizeof(key), "csize:%016llx",
		 (unsigned long long)(pa / MS_BLOCK_EXTENT));
	MDB_val k = {strlen(key), key}, v;
	MDB_dbi dbi = metastore_dbi(t->ms, MS_META);
	assert_int_equal(mdb_get(t->txn, dbi, &k, &v), 0);
	uint8_t copy[512];
	assert_true(v.mv_size <= sizeof(copy));
	memcpy(copy, v.mv_data, v.mv_size);
	copy[pa % MS_BLOCK_EXTENT * 2] ^= 1;
	v.mv_data = copy;
	assert_int_equal(mdb_put(t->txn, dbi, &k, &v, 0), 0);
	uint64_t before = metastore_damage_count(t->ms);
	bool freed;
	assert_int_equal(dedupe_block_unref(t->ms, t->txn, &t->c, pa, &freed),
			 -EIO);
	assert_true(metastore_damage_count(t->ms) > before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_size_rule),
	    cmocka_unit_test_setup_teardown(test_sizes_follow_refs, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_off_records_nothing, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_set_range, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_damaged_record, t_setup,
					    t_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
