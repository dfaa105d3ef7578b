/* dedupe-scan's engine (dedupe/scan.c) on trees with known answers.
 *
 * The generated tree (scan_gen.c) has repeats inside and across files,
 * written zeros and holes, short tails, an empty file, a file of several
 * chunks, a hard link, a symlink, a FIFO and an unreadable file; its
 * expected figures come from comparing atom tuples, not from SHA-1. As
 * root the scan runs with effective uid nobody so that the mode-000 file
 * really is unreadable.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <lz4.h>
#include <zstd.h>

#include "common/prng.h"
#include "dedupe/scan.h"
#include "scan_gen.h"

#define NOBODY 65534

static const uint32_t sizes[] = {4096, 8192, 16384, 32768};
#define NSIZES 4

struct fixture {
	char root[64];
	struct gen_expect exp[NSIZES];
};

static int rm_one(const char *p, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(p);
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	if (!fx)
		return -1;
	snprintf(fx->root, sizeof(fx->root), "/tmp/arraysim-scan.XXXXXX");
	const struct gen_opts o = {.unreadable = true, .special = true};
	if (!mkdtemp(fx->root) ||
	    gen_tree(fx->root, &o, sizes, NSIZES, fx->exp))
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	nftw(fx->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(fx);
	return 0;
}

/* Scan @root as a user who cannot read mode-000 files. */
static void scan_unprivileged(struct scan_config *cfg, struct scan_result *res)
{
	bool root = geteuid() == 0;
	if (root)
		assert_int_equal(seteuid(NOBODY), 0);
	int r = scan_run(cfg, res);
	if (root)
		assert_int_equal(seteuid(0), 0);
	assert_int_equal(r, 0);
}

static void check_size(const struct scan_size_result *z,
		       const struct gen_expect *e)
{
	assert_int_equal(z->block_size, e->block_size);
	assert_int_equal(z->blocks, e->blocks);
	assert_int_equal(z->zero_blocks, e->zero_blocks);
	assert_int_equal(z->data_blocks, e->data_blocks);
	assert_int_equal(z->unique_blocks, e->unique_blocks);
	assert_int_equal(z->sample_shift, 0);
	for (int r = 0; r < SCAN_HIST_ROWS; r++) {
		if (z->hist[r].blocks != e->hist_blocks[r] ||
		    z->hist[r].refs != e->hist_refs[r])
			fail_msg("%u-byte blocks, refcount row %d: %llu blocks "
				 "%llu refs, expected %llu %llu",
				 e->block_size, r,
				 (unsigned long long)z->hist[r].blocks,
				 (unsigned long long)z->hist[r].refs,
				 (unsigned long long)e->hist_blocks[r],
				 (unsigned long long)e->hist_refs[r]);
	}
}

/* The test's own sanity: the tree has what it claims to have. */
static void test_tree_has_every_case(void **state)
{
	struct fixture *fx = *state;
	const struct gen_expect *e = &fx->exp[0];
	assert_true(e->zero_blocks > 300);
	assert_true(e->unique_blocks < e->data_blocks);
	assert_true(fx->exp[3].unique_blocks < fx->exp[3].data_blocks);
	assert_true(e->hist_blocks[0] > 0 && e->hist_blocks[2] > 0);
}

static void test_exact_every_size(void **state)
{
	struct fixture *fx = *state;
	const char *paths[] = {fx->root};
	struct scan_config cfg = {.paths = paths,
				  .npaths = 1,
				  .nsizes = NSIZES,
				  .threads = 2,
				  .unit_bytes = 1 << 20};
	memcpy(cfg.block_size, sizes, sizeof(sizes));
	struct scan_result res;
	scan_unprivileged(&cfg, &res);

	assert_int_equal(res.files, fx->exp[0].files);
	assert_int_equal(res.logical_bytes, fx->exp[0].logical_bytes);
	assert_int_equal(res.dirs, 3);
	assert_int_equal(res.hard_links, 1);
	assert_int_equal(res.symlinks, 1);
	assert_int_equal(res.special, 1);
	assert_int_equal(res.unreadable, 1);
	assert_int_equal(res.n_unreadable_paths, 1);
	char want[128];
	snprintf(want, sizeof(want), "%s/%s", fx->root, GEN_UNREADABLE);
	assert_string_equal(res.unreadable_paths[0], want);
	assert_int_equal(res.nsizes, NSIZES);
	for (int i = 0; i < NSIZES; i++)
		check_size(&res.size[i], &fx->exp[i]);
	scan_result_free(&res);
}

/* One size at a time, one thread, pread instead of io_uring, default
 * units: the same figures. */
static void test_same_figures_any_way(void **state)
{
	struct fixture *fx = *state;
	const char *paths[] = {fx->root};
	for (int i = 0; i < NSIZES; i++) {
		struct scan_config cfg = {.paths = paths,
					  .npaths = 1,
					  .nsizes = 1,
					  .threads = 1,
					  .no_uring = i % 2 == 0};
		cfg.block_size[0] = sizes[i];
		struct scan_result res;
		scan_unprivileged(&cfg, &res);
		check_size(&res.size[0], &fx->exp[i]);
		scan_result_free(&res);
	}
}

/* Scan @n paths at 4 KiB with the default threads, as whoever we are. */
static void scan_4k(const char **paths, int n, struct scan_result *res)
{
	struct scan_config cfg = {.paths = paths, .npaths = n, .nsizes = 1};
	cfg.block_size[0] = 4096;
	assert_int_equal(scan_run(&cfg, res), 0);
}

/* Hard links: naming both the file and its link counts the data once. */
static void test_hard_link_named_twice(void **state)
{
	struct fixture *fx = *state;
	char a[128], b[128];
	snprintf(a, sizeof(a), "%s/a.txt", fx->root);
	snprintf(b, sizeof(b), "%s/sub/a-link.txt", fx->root);
	const char *paths[] = {a, b};
	struct scan_result res;
	scan_4k(paths, 2, &res);
	assert_int_equal(res.files, 1);
	assert_int_equal(res.hard_links, 1);
	/* a.txt: 1 2 3 1 2 3 0 0 4 5 (6,100): 11 blocks, 2 zero, 6 unique */
	assert_int_equal(res.size[0].blocks, 11);
	assert_int_equal(res.size[0].zero_blocks, 2);
	assert_int_equal(res.size[0].unique_blocks, 6);
	scan_result_free(&res);

	/* Overlapping PATHs: the root and a file in it; read once. */
	paths[1] = fx->root;
	struct scan_config cfg = {.paths = paths, .npaths = 2, .nsizes = 1};
	cfg.block_size[0] = 4096;
	scan_unprivileged(&cfg, &res);
	assert_int_equal(res.files, fx->exp[0].files);
	assert_int_equal(res.size[0].blocks, fx->exp[0].blocks);
	assert_int_equal(res.size[0].unique_blocks, fx->exp[0].unique_blocks);
	scan_result_free(&res);
}

/* A PATH that is a symlink to a directory is followed (as find -H), and
 * inside it, links are not. */
static void test_path_through_symlink(void **state)
{
	struct fixture *fx = *state;
	char sub[128], link[128];
	snprintf(sub, sizeof(sub), "%s/sub", fx->root);
	snprintf(link, sizeof(link), "%s/sub-link", fx->root);
	assert_int_equal(symlink(sub, link), 0);
	const char *paths[] = {link};
	struct scan_result res;
	scan_4k(paths, 1, &res);
	unlink(link);
	assert_int_equal(res.unreadable, 0);
	assert_int_equal(res.dirs, 1);
	/* sub/b.txt and sub/a-link.txt: a.txt itself is not in the walk */
	assert_int_equal(res.files, 2);
	assert_int_equal(res.size[0].blocks, 22);
	assert_int_equal(res.size[0].unique_blocks, 6);
	scan_result_free(&res);
}

/* Every duplicate is credited to one directory and one extension. */
static void test_where_sums(void **state)
{
	struct fixture *fx = *state;
	const char *paths[] = {fx->root};
	struct scan_config cfg = {.paths = paths,
				  .npaths = 1,
				  .nsizes = 2,
				  .block_size = {4096, 16384}};
	struct scan_result res;
	scan_unprivileged(&cfg, &res);
	for (int k = 0; k < 2; k++) {
		uint64_t dd = 0, db = 0, ed = 0, eb = 0;
		for (size_t i = 0; i < res.n_dirs_g; i++)
			dd += res.dirs_g[i].dup[k],
			    db += res.dirs_g[i].blocks[k];
		for (size_t i = 0; i < res.n_exts; i++)
			ed += res.exts[i].dup[k], eb += res.exts[i].blocks[k];
		const struct scan_size_result *z = &res.size[k];
		assert_int_equal(dd, z->data_blocks - z->unique_blocks);
		assert_int_equal(ed, z->data_blocks - z->unique_blocks);
		assert_int_equal(db, z->data_blocks);
		assert_int_equal(eb, z->data_blocks);
	}
	bool txt = false;
	for (size_t i = 0; i < res.n_exts; i++)
		txt |= !strcmp(res.exts[i].name, "txt") &&
		       res.exts[i].blocks[0] == 18;
	assert_true(txt); /* a.txt and sub/b.txt; the link not again */
	scan_result_free(&res);
}

/* --max-memory: a file of 2 x 24000 distinct 512-byte blocks, scanned with
 * the smallest index allowed, must be sampled; every kept fingerprint has
 * its exact refcount (2), and the estimate of unique is within the bound
 * the scan states (checked at 3 sd: the data is fixed, so this is not a
 * coin toss that may fail one run in twenty). */
static void test_sampled_estimate(void **state)
{
	struct fixture *fx = *state;
	enum { U = 24000, BS = 512 };
	char path[128];
	snprintf(path, sizeof(path), "%s/sampled.bin", fx->root);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	uint8_t *buf = malloc((size_t)U * BS);
	assert_non_null(buf);
	for (size_t i = 0; i < (size_t)U * BS / 8; i++) {
		uint64_t v = (i / (BS / 8) + 1) * PRNG_GOLDEN ^ i;
		memcpy(buf + 8 * i, &v, 8);
	}
	assert_int_equal(write(fd, buf, (size_t)U * BS), (ssize_t)U * BS);
	assert_int_equal(write(fd, buf, (size_t)U * BS), (ssize_t)U * BS);
	close(fd);
	free(buf);

	const char *paths[] = {path};
	struct scan_config cfg = {.paths = paths,
				  .npaths = 1,
				  .nsizes = 1,
				  .block_size = {BS},
				  .threads = 2,
				  .max_memory = scan_index_min_bytes()};
	struct scan_result res;
	assert_int_equal(scan_run(&cfg, &res), 0);
	unlink(path);
	const struct scan_size_result *z = &res.size[0];
	assert_int_equal(z->blocks, 2 * U);
	assert_int_equal(z->data_blocks, 2 * U);
	assert_true(z->sample_shift >= 2);
	assert_int_equal(z->unique_blocks,
			 z->sampled_unique << z->sample_shift);
	assert_int_equal(z->unique_blocks, z->hist[1].blocks);
	for (int r = 0; r < SCAN_HIST_ROWS; r++)
		if (r != 1)
			assert_int_equal(z->hist[r].blocks, 0);
	assert_int_equal(z->hist[1].refs, 2 * z->hist[1].blocks);
	double p = ldexp(1.0, -(int)z->sample_shift);
	double sd = sqrt(U * p * (1 - p)) / p;
	double err = fabs((double)z->unique_blocks - U);
	if (err > 3 * sd)
		fail_msg("unique estimated %llu, is %d (sd %.0f)",
			 (unsigned long long)z->unique_blocks, U, sd);
	assert_true(fabs(z->unique_err95 - 1.96 * sd / U) <
		    0.2 * 1.96 * sd / U);
	assert_true(z->index_peak_bytes <=
		    scan_index_min_bytes() + scan_index_min_bytes() / 100);
	scan_result_free(&res);
}

/* Compression is of unique blocks, once each: three copies of a
 * compressible block and one random block that does not shrink (stored
 * as is, as an array would). */
static void test_compression_of_unique_blocks(void **state)
{
	struct fixture *fx = *state;
	enum { BS = 4096 };
	static uint8_t blk[4][BS];
	char path[128];
	for (int i = 0; i < BS; i++)
		blk[0][i] = (uint8_t) "compressible "[i % 13];
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < BS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		blk[3][i] = (uint8_t)x;
	}
	memcpy(blk[1], blk[0], BS);
	memcpy(blk[2], blk[0], BS);
	snprintf(path, sizeof(path), "%s/compress.bin", fx->root);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, blk, sizeof(blk)), (ssize_t)sizeof(blk));
	close(fd);

	char out[2 * BS];
	int lz =
	    LZ4_compress_default((const char *)blk[0], out, BS, sizeof(out));
	size_t zs = ZSTD_compress(out, sizeof(out), blk[0], BS, 1);
	assert_true(lz > 0 && lz < BS / 4 && !ZSTD_isError(zs) && zs < BS / 4);
	const uint64_t want[] = {0, (uint64_t)lz + BS, zs + BS};
	const char *paths[] = {path};
	for (int c = SCAN_COMPRESS_LZ4; c <= SCAN_COMPRESS_ZSTD; c++) {
		struct scan_config cfg = {.paths = paths,
					  .npaths = 1,
					  .nsizes = 1,
					  .block_size = {BS},
					  .compress = c};
		struct scan_result res;
		assert_int_equal(scan_run(&cfg, &res), 0);
		const struct scan_size_result *z = &res.size[0];
		assert_int_equal(z->unique_blocks, 2);
		assert_int_equal(z->compressed_bytes, want[c]);
		/* refcount 2-3 row: the compressible block, referenced 3x */
		assert_int_equal(z->hist[1].csize, want[c] - BS);
		assert_int_equal(z->hist[1].ref_csize, 3 * (want[c] - BS));
		assert_int_equal(z->hist[0].csize, BS);
		scan_result_free(&res);
	}
	unlink(path);
}

static void test_parse_block_sizes(void **state)
{
	static const char *const bad[] = {"",
					  ",",
					  "4K,",
					  ",4K",
					  "4K,,8K",
					  "3K",
					  "256",
					  "2M",
					  "4Q",
					  "12K",
					  "4K,8K,16K,32K,64K,128K,256K,512K,1M",
					  "-4K"};
	uint32_t out[SCAN_MAX_SIZES];
	int n = -1;
	assert_int_equal(scan_parse_block_sizes("16K,4K,8K,4K", out, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(out[0], 4096);
	assert_int_equal(out[1], 8192);
	assert_int_equal(out[2], 16384);
	assert_int_equal(scan_parse_block_sizes("512,1M", out, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(out[1], 1u << 20);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		n = -1;
		if (scan_parse_block_sizes(bad[i], out, &n) != -EINVAL ||
		    n != -1)
			fail_msg("'%s' was accepted", bad[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree_has_every_case),
	    cmocka_unit_test(test_exact_every_size),
	    cmocka_unit_test(test_same_figures_any_way),
	    cmocka_unit_test(test_hard_link_named_twice),
	    cmocka_unit_test(test_path_through_symlink),
	    cmocka_unit_test(test_where_sums),
	    cmocka_unit_test(test_sampled_estimate),
	    cmocka_unit_test(test_compression_of_unique_blocks),
	    cmocka_unit_test(test_parse_block_sizes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
