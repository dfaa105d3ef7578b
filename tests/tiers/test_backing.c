/* tiers/backing: chunk files through io_uring.
 *
 * Each test gets a fresh store under $TMPDIR. Blocks hold bytes from a
 * seeded xorshift stream keyed by pblk, so any block can be checked
 * without keeping a copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/prng.h"
#include "tiers/backing.h"

#define BS BLOCK_BYTES
#define CB ((uint64_t)BACKING_CHUNK_BLOCKS)

struct t_store {
	char dir[64];
	struct backing *b;
	struct backing_dev dev;
};

/* ---- helpers ----------------------------------------------------------- */

/* Block contents: a function of (pblk, generation). */
static void t_fill(void *buf, uint64_t pblk, unsigned gen)
{
	uint64_t x = pblk * PRNG_GOLDEN + gen + 1, *p = buf;

	for (unsigned i = 0; i < BS / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = x;
	}
}

static void t_check(const void *buf, uint64_t pblk, unsigned gen)
{
	char want[BS];

	t_fill(want, pblk, gen);
	if (memcmp(buf, want, BS) != 0)
		fail_msg("pblk %llu gen %u: wrong contents",
			 (unsigned long long)pblk, gen);
}

static void t_check_zero(const void *buf, uint64_t pblk)
{
	static const char zero[BS];

	if (memcmp(buf, zero, BS) != 0)
		fail_msg("pblk %llu: expected zeros", (unsigned long long)pblk);
}

/* ios[i] = { pblks[i], bufs + i * BS } */
static struct backing_io *t_ios(const uint64_t *pblks, unsigned n, char **bufs)
{
	struct backing_io *ios = calloc(n, sizeof(*ios));

	*bufs = aligned_alloc(4096, (size_t)n * BS);
	assert_non_null(ios);
	assert_non_null(*bufs);
	for (unsigned i = 0; i < n; i++)
		ios[i] = (struct backing_io){pblks[i], *bufs + (size_t)i * BS};
	return ios;
}

/* Write pblks[] with generation @gen, read them back in reverse order
 * into fresh buffers and check. */
static void t_write_read(struct t_store *s, const uint64_t *pblks, unsigned n,
			 unsigned gen)
{
	char *wb, *rb;
	struct backing_io *w = t_ios(pblks, n, &wb);
	uint64_t *rev = malloc(n * sizeof(*rev));
	struct backing_io *r;

	for (unsigned i = 0; i < n; i++) {
		t_fill(w[i].buf, pblks[i], gen);
		rev[i] = pblks[n - 1 - i];
	}
	assert_int_equal(s->dev.ops->write(s->dev.ctx, w, n), 0);
	r = t_ios(rev, n, &rb);
	memset(rb, 0xaa, (size_t)n * BS);
	assert_int_equal(s->dev.ops->read(s->dev.ctx, r, n), 0);
	for (unsigned i = 0; i < n; i++)
		t_check(r[i].buf, rev[i], gen);
	free(rev);
	free(r);
	free(rb);
	free(w);
	free(wb);
}

static int t_rm(const char *path, const struct stat *st, int flag,
		struct FTW *ftw)
{
	return remove(path);
}

static int t_setup(void **state)
{
	struct t_store *s = calloc(1, sizeof(*s));
	const char *tmp = getenv("TMPDIR");
	char err[256];

	snprintf(s->dir, sizeof(s->dir), "%s/backing-XXXXXX",
		 tmp && strlen(tmp) < 40 ? tmp : "/tmp");
	if (!mkdtemp(s->dir))
		return -1;
	if (backing_open(s->dir, &s->b, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	s->dev = backing_dev(s->b);
	*state = s;
	return 0;
}

static int t_teardown(void **state)
{
	struct t_store *s = *state;

	backing_close(s->b);
	nftw(s->dir, t_rm, 16, FTW_DEPTH | FTW_PHYS);
	free(s);
	return 0;
}

/* ---- tests ------------------------------------------------------------- */

static void test_scattered(void **state)
{
	static const uint64_t p[] = {7, 1, 1000, 5, 300000, 3 * CB + 2, 2};

	t_write_read(*state, p, sizeof(p) / sizeof(p[0]), 0);
	/* Overwrite in place. */
	t_write_read(*state, p, sizeof(p) / sizeof(p[0]), 1);
}

static void test_adjacent_across_chunk(void **state)
{
	struct t_store *s = *state;
	const uint64_t p[] = {CB - 2, CB + 1, CB - 1, CB, CB - 3};
	char path[128];
	struct stat st;

	t_write_read(s, p, 5, 0);
	snprintf(path, sizeof(path), "%s/data/chunk-000000", s->dir);
	assert_int_equal(stat(path, &st), 0);
	/* The last block of chunk 0 is its last 4 KiB. */
	assert_int_equal(st.st_size, (off_t)(CB * BS));
	snprintf(path, sizeof(path), "%s/data/chunk-000001", s->dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, (off_t)(2 * BS));
	assert_true(st.st_mode == (S_IFREG | 0600));
}

static void test_unwritten_reads_zero(void **state)
{
	struct t_store *s = *state;
	const uint64_t wp[] = {10};
	/* 5: a hole; 9..12: one run that ends past EOF (short read, then
	 * EOF); 2 * CB: a chunk file that has never been written. */
	const uint64_t rp[] = {5, 9, 10, 11, 12, 2 * CB};
	char *wb, *rb;
	struct backing_io *w = t_ios(wp, 1, &wb), *r = t_ios(rp, 6, &rb);

	t_fill(wb, 10, 0);
	assert_int_equal(s->dev.ops->write(s->dev.ctx, w, 1), 0);
	memset(rb, 0xaa, 6 * BS);
	assert_int_equal(s->dev.ops->read(s->dev.ctx, r, 6), 0);
	for (unsigned i = 0; i < 6; i++) {
		if (rp[i] == 10)
			t_check(r[i].buf, 10, 0);
		else
			t_check_zero(r[i].buf, rp[i]);
	}
	free(w);
	free(wb);
	free(r);
	free(rb);
}

static void test_pblk_zero_invalid(void **state)
{
	struct t_store *s = *state;
	const uint64_t p[] = {3, 0, 4};
	char *b;
	struct backing_io *ios = t_ios(p, 3, &b);

	memset(b, 0x55, 3 * BS);
	assert_int_equal(s->dev.ops->write(s->dev.ctx, ios, 3), -EINVAL);
	assert_int_equal(s->dev.ops->read(s->dev.ctx, ios + 1, 1), -EINVAL);
	/* Rejected before any I/O: pblk 3 was not written. */
	assert_int_equal(s->dev.ops->read(s->dev.ctx, ios, 1), 0);
	t_check_zero(ios[0].buf, 3);
	assert_int_equal(s->dev.ops->read(s->dev.ctx, ios, 0), 0);
	free(ios);
	free(b);
}

/* More runs than the ring has entries, and a run longer than the kernel's
 * iovec limit, in shuffled order. */
static void test_big_batch(void **state)
{
	enum { SPARSE = 700, DENSE = 2500, N = SPARSE + DENSE };
	uint64_t *p = malloc(N * sizeof(*p)), x = 42;

	for (unsigned i = 0; i < SPARSE; i++)
		p[i] = 1 + 2 * (uint64_t)i; /* every other block: 700 runs */
	for (unsigned i = 0; i < DENSE; i++)
		p[SPARSE + i] = CB - 1000 + i; /* one run across a chunk */
	for (unsigned i = N - 1; i > 0; i--) {
		unsigned j;
		uint64_t t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (unsigned)(x % (i + 1));
		t = p[i];
		p[i] = p[j];
		p[j] = t;
	}
	t_write_read(*state, p, N, 3);
	free(p);
}

struct t_worker {
	struct t_store *s;
	unsigned id;
	int err;
};

/* 4 threads on interleaved pblks: adjacent blocks of one chunk belong to
 * different threads, so chunk opens and dirty flags are shared. */
static void *t_worker_run(void *arg)
{
	enum { THREADS = 4, BATCH = 16, ROUNDS = 30 };
	struct t_worker *w = arg;
	struct backing_io ios[BATCH];
	static __thread char bufs[BATCH][BS] __attribute__((aligned(4096)));

	for (unsigned round = 0; round < ROUNDS && !w->err; round++) {
		for (unsigned i = 0; i < BATCH; i++) {
			/* Rounds alternate between chunk 0 and chunk 5. */
			uint64_t base = round % 2 ? 5 * CB : 1;
			uint64_t pblk =
			    base + ((round / 2) * BATCH + i) * THREADS + w->id;

			ios[i] = (struct backing_io){pblk, bufs[i]};
			t_fill(bufs[i], pblk, w->id);
		}
		w->err = w->s->dev.ops->write(w->s->dev.ctx, ios, BATCH);
		if (w->err)
			break;
		memset(bufs, 0, sizeof(bufs));
		w->err = w->s->dev.ops->read(w->s->dev.ctx, ios, BATCH);
		for (unsigned i = 0; i < BATCH && !w->err; i++) {
			char want[BS];

			t_fill(want, ios[i].pblk, w->id);
			if (memcmp(want, bufs[i], BS))
				w->err = -EILSEQ;
		}
		if (!w->err && round % 7 == 0)
			w->err = w->s->dev.ops->sync(w->s->dev.ctx);
	}
	return NULL;
}

static void test_threads(void **state)
{
	struct t_worker w[4];
	pthread_t th[4];

	for (unsigned i = 0; i < 4; i++) {
		w[i] = (struct t_worker){.s = *state, .id = i};
		assert_int_equal(
		    pthread_create(&th[i], NULL, t_worker_run, &w[i]), 0);
	}
	for (unsigned i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].err, 0);
	}
}

static void test_sync_and_reopen(void **state)
{
	struct t_store *s = *state;
	const uint64_t p[] = {1, 2, 3, 4 * CB + 9};
	char err[256];
	char *b;
	struct backing_io *ios = t_ios(p, 4, &b);

	assert_int_equal(s->dev.ops->sync(s->dev.ctx), 0); /* nothing dirty */
	assert_int_equal(backing_bytes_on_disk(s->b), 0);
	for (unsigned i = 0; i < 4; i++)
		t_fill(ios[i].buf, p[i], 7);
	assert_int_equal(s->dev.ops->write(s->dev.ctx, ios, 4), 0);
	assert_int_equal(s->dev.ops->sync(s->dev.ctx), 0);
	assert_int_equal(s->dev.ops->sync(s->dev.ctx), 0);
	assert_true(backing_bytes_on_disk(s->b) >= 4 * BS);

	backing_close(s->b);
	s->b = NULL;
	assert_int_equal(backing_open(s->dir, &s->b, err, sizeof(err)), 0);
	s->dev = backing_dev(s->b);
	/* Counted from the directory, before any chunk is opened again. */
	assert_true(backing_bytes_on_disk(s->b) >= 4 * BS);
	memset(b, 0, 4 * BS);
	assert_int_equal(s->dev.ops->read(s->dev.ctx, ios, 4), 0);
	for (unsigned i = 0; i < 4; i++)
		t_check(ios[i].buf, p[i], 7);
	free(ios);
	free(b);
}

static void test_open_errors(void **state)
{
	struct t_store *s = *state;
	struct backing *b = (struct backing *)&b;
	char path[128], err[256] = "";
	int fd;

	/* A store whose parent is a regular file. */
	snprintf(path, sizeof(path), "%s/file", s->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	strcat(path, "/store");
	assert_int_equal(backing_open(path, &b, err, sizeof(err)), -ENOTDIR);
	assert_null(b);
	assert_non_null(strstr(err, "backing store "));
	assert_non_null(strstr(err, path));
	assert_null(strchr(err, '\n'));

	/* The store itself a regular file: STORE/data can't be made. */
	snprintf(path, sizeof(path), "%s/file", s->dir);
	assert_int_equal(backing_open(path, &b, err, sizeof(err)), -ENOTDIR);

	/* Root walks through permissions; check them only when not root. */
	if (geteuid() != 0) {
		snprintf(path, sizeof(path), "%s/ro", s->dir);
		assert_int_equal(mkdir(path, 0500), 0);
		assert_int_equal(backing_open(path, &b, err, sizeof(err)),
				 -EACCES);
		assert_non_null(strstr(err, "Permission denied"));
		chmod(path, 0700);
	}
	backing_close(NULL); /* no-op */
}

/* A full device: -ENOSPC comes through as -ENOSPC, not -EIO. */
static void test_enospc(void **state)
{
	struct t_store *s = *state;
	const uint64_t p[] = {1, 2, 3, 10};
	char path[128], *b;
	struct backing_io *ios = t_ios(p, 4, &b);

	/* chunk-000000 is /dev/full: writes fail, reads give zeros. */
	snprintf(path, sizeof(path), "%s/data/chunk-000000", s->dir);
	if (symlink("/dev/full", path) != 0)
		skip();
	memset(b, 0x11, 4 * BS);
	assert_int_equal(s->dev.ops->write(s->dev.ctx, ios, 4), -ENOSPC);
	assert_int_equal(s->dev.ops->read(s->dev.ctx, ios, 4), 0);
	t_check_zero(ios[3].buf, 10);
	free(ios);
	free(b);
}

/* A write cut short by the file size limit: the first part lands (short
 * write, resubmitted), the rest fails with -EFBIG. */
static void test_short_write_then_error(void **state)
{
	struct t_store *s = *state;
	const uint64_t p[] = {1, 2, 3, 4};
	struct rlimit old, lim;
	char *b;
	struct backing_io *ios = t_ios(p, 4, &b);

	for (unsigned i = 0; i < 4; i++)
		t_fill(ios[i].buf, p[i], 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 3 * BS; /* blocks 1 and 2 fit, 3 and 4 don't */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(s->dev.ops->write(s->dev.ctx, ios, 4), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);

	memset(b, 0, 4 * BS);
	assert_int_equal(s->dev.ops->read(s->dev.ctx, ios, 4), 0);
	t_check(ios[0].buf, 1, 0);
	t_check(ios[1].buf, 2, 0);
	t_check_zero(ios[2].buf, 3);
	/* The chunk was written in part: sync must still cover it. */
	assert_int_equal(s->dev.ops->sync(s->dev.ctx), 0);
	free(ios);
	free(b);
}

/* A chunk file that can't be opened fails the call, once, cleanly. */
static void test_chunk_open_error(void **state)
{
	struct t_store *s = *state;
	const uint64_t p[] = {1, CB + 1};
	char path[128], *b;
	struct backing_io *ios = t_ios(p, 2, &b);

	snprintf(path, sizeof(path), "%s/data/chunk-000001", s->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	memset(b, 0, 2 * BS);
	assert_int_equal(s->dev.ops->write(s->dev.ctx, ios, 2), -EISDIR);
	assert_int_equal(s->dev.ops->read(s->dev.ctx, ios + 1, 1), -EISDIR);
	assert_int_equal(s->dev.ops->write(s->dev.ctx, ios, 1), 0);
	free(ios);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_scattered, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_adjacent_across_chunk, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_unwritten_reads_zero, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_pblk_zero_invalid, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_big_batch, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_threads, t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_sync_and_reopen, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_open_errors, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_enospc, t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_short_write_then_error,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_chunk_open_error, t_setup,
					    t_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
