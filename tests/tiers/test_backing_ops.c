/* struct backing_ops as a seam: one contract, checked on the real store
 * (tiers/backing.c) and on the in-memory fake alike, and the faulty
 * wrapper (t_backing.h) failing the Nth call of either, reached only
 * through the ops table, as the data path reaches the store. */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "t_backing.h"

#define CB ((uint64_t)BACKING_CHUNK_BLOCKS)

/* ---- helpers ----------------------------------------------------------- */

struct t_real {
	char dir[64];
	struct backing *b;
};

static void t_real_open(struct t_real *r)
{
	char err[256];

	snprintf(r->dir, sizeof(r->dir), "/tmp/arraysim-backing-ops-XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	if (backing_open(r->dir, &r->b, err, sizeof(err)))
		fail_msg("backing_open: %s", err);
}

static int t_rm(const char *path, const struct stat *st, int flag,
		struct FTW *ftw)
{
	return remove(path);
}

static void t_real_close(struct t_real *r)
{
	backing_close(r->b);
	nftw(r->dir, t_rm, 8, FTW_DEPTH | FTW_PHYS);
}

/* Block contents: a function of (pblk, generation). */
static void t_fill(unsigned char *buf, uint64_t pblk, unsigned gen)
{
	for (unsigned i = 0; i < BLOCK_BYTES; i++)
		buf[i] = (unsigned char)(pblk * 31 + gen * 7 + i);
}

/* Write @pblk with generation @gen through @d: the call's result. */
static int t_put(struct backing_dev d, uint64_t pblk, unsigned gen)
{
	static unsigned char buf[BLOCK_BYTES] __attribute__((aligned(4096)));
	struct backing_io io = {pblk, buf};

	t_fill(buf, pblk, gen);
	return d.ops->write(d.ctx, &io, 1);
}

/* Read @pblk through @d and check it holds generation @gen (-1: zeros). */
static void t_expect(struct backing_dev d, uint64_t pblk, int gen)
{
	static unsigned char buf[BLOCK_BYTES] __attribute__((aligned(4096)));
	static unsigned char want[BLOCK_BYTES];
	struct backing_io io = {pblk, buf};

	assert_int_equal(d.ops->read(d.ctx, &io, 1), 0);
	if (gen < 0)
		memset(want, 0, sizeof(want));
	else
		t_fill(want, pblk, (unsigned)gen);
	if (memcmp(buf, want, BLOCK_BYTES))
		fail_msg("pblk %llu: not generation %d",
			 (unsigned long long)pblk, gen);
}

/* What any struct backing_ops device promises (tiers/backing.h). */
static void t_contract(struct backing_dev d)
{
	static unsigned char bufs[3][BLOCK_BYTES]
	    __attribute__((aligned(4096)));
	const uint64_t p[] = {1, CB - 1, CB}; /* across a chunk boundary */
	struct backing_io ios[3], zero = {0, bufs[0]};

	for (unsigned i = 0; i < 3; i++) {
		ios[i] = (struct backing_io){p[i], bufs[i]};
		t_fill(bufs[i], p[i], 1);
	}
	assert_int_equal(d.ops->write(d.ctx, ios, 3), 0);
	for (unsigned i = 0; i < 3; i++)
		t_expect(d, p[i], 1);
	t_expect(d, 7, -1); /* never written: zeros */
	assert_int_equal(t_put(d, CB - 1, 2), 0);
	t_expect(d, CB - 1, 2);
	t_expect(d, CB, 1);
	assert_int_equal(d.ops->sync(d.ctx), 0);
	assert_int_equal(d.ops->read(d.ctx, &zero, 1), -EINVAL);
	assert_int_equal(d.ops->write(d.ctx, &zero, 1), -EINVAL);
	assert_int_equal(d.ops->read(d.ctx, ios, 0), 0);
}

/* ---- tests --------------------------------------------------------------- */

static void test_contract_real(void **state)
{
	struct t_real r;

	t_real_open(&r);
	t_contract(backing_dev(r.b));
	t_real_close(&r);
}

static void test_contract_mem(void **state)
{
	struct t_mem *m = t_mem_new();

	assert_non_null(m);
	t_contract(t_mem_dev(m));
	t_mem_free(m);
}

/* Nothing armed: every call passes through. */
static void test_faulty_unarmed(void **state)
{
	struct t_mem *m = t_mem_new();
	struct t_faulty f = {.lower = t_mem_dev(m), .err = -EIO};
	struct backing_dev d = t_faulty_dev(&f);

	t_contract(d);
	assert_int_equal(f.failed, 0);
	assert_int_equal(f.calls, t_mem_calls(m, 0) + t_mem_calls(m, 1) +
				      t_mem_calls(m, 2));
	t_mem_free(m);
}

/* The 2nd call fails once and never reaches the store; the 3rd passes. */
static void test_faulty_nth_once(void **state)
{
	struct t_mem *m = t_mem_new();
	struct t_faulty f = {.lower = t_mem_dev(m), .nth = 2, .err = -EIO};
	struct backing_dev d = t_faulty_dev(&f);

	assert_int_equal(t_put(d, 5, 1), 0);
	assert_int_equal(t_put(d, 6, 1), -EIO);
	assert_int_equal(t_mem_calls(m, 1), 1);
	t_expect(d, 6, -1); /* the failed write left nothing */
	t_expect(d, 5, 1);
	assert_int_equal(t_put(d, 6, 2), 0);
	t_expect(d, 6, 2);
	assert_int_equal(f.calls, 6);
	assert_int_equal(f.failed, 1);
	t_mem_free(m);
}

/* From the 3rd call on, every call of the real store fails with
 * -ENOSPC, sync included; what was written before stays. */
static void test_faulty_persist_real(void **state)
{
	struct t_real r;
	struct t_faulty f = {.nth = 3, .persist = true, .err = -ENOSPC};
	struct backing_dev d;
	struct backing_io io = {9, NULL};
	static unsigned char buf[BLOCK_BYTES] __attribute__((aligned(4096)));

	t_real_open(&r);
	f.lower = backing_dev(r.b);
	d = t_faulty_dev(&f);
	io.buf = buf;
	assert_int_equal(t_put(d, 9, 1), 0);
	assert_int_equal(d.ops->sync(d.ctx), 0);
	assert_int_equal(t_put(d, 9, 2), -ENOSPC);
	assert_int_equal(d.ops->read(d.ctx, &io, 1), -ENOSPC);
	assert_int_equal(d.ops->sync(d.ctx), -ENOSPC);
	assert_int_equal(f.failed, 3);
	t_expect(f.lower, 9, 1); /* below the wrapper: generation 1 */
	t_real_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_contract_real),
	    cmocka_unit_test(test_contract_mem),
	    cmocka_unit_test(test_faulty_unarmed),
	    cmocka_unit_test(test_faulty_nth_once),
	    cmocka_unit_test(test_faulty_persist_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
