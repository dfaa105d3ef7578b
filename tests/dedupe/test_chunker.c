/* chunker: cutting a byte range into aligned 4 KiB spans.
 *
 * Every test walks the chunker to the end and checks, besides the spans it
 * names, the invariants every caller of chunker_next() relies on:
 *   - spans are in file order, consecutive logical blocks, none empty;
 *   - each span lies inside one block (blk_off + len <= 4096);
 *   - buf_off of each span is the sum of the lengths before it, and the
 *     lengths add up to the range's length;
 *   - file offset of a span (lblk * 4096 + blk_off) is offset + buf_off;
 *   - the number of spans is chunker_count(offset, len).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "dedupe/chunker.h"

#define T_MAX_SPANS 300

struct t_walk {
	struct chunk_span s[T_MAX_SPANS];
	unsigned n;
};

/* Run the chunker over [off, off+len), checking the invariants above. */
static void t_walk(uint64_t off, size_t len, struct t_walk *w)
{
	struct chunker c;
	struct chunk_span sp;
	size_t total = 0;

	memset(w, 0, sizeof(*w));
	chunker_init(&c, off, len);
	while (chunker_next(&c, &sp)) {
		if (w->n == T_MAX_SPANS)
			fail_msg("chunker(%llu, %zu): more than %u spans",
				 (unsigned long long)off, len, T_MAX_SPANS);
		assert_true(sp.len >= 1);
		assert_true(sp.blk_off + sp.len <= BLOCK_BYTES);
		assert_int_equal(sp.buf_off, total);
		assert_int_equal(sp.lblk * BLOCK_BYTES + sp.blk_off,
				 off + sp.buf_off);
		if (w->n) {
			assert_int_equal(sp.lblk, w->s[w->n - 1].lblk + 1);
			/* Only the first span can start inside a block. */
			assert_int_equal(sp.blk_off, 0);
		}
		total += sp.len;
		w->s[w->n++] = sp;
	}
	assert_int_equal(total, len);
	assert_int_equal(w->n, chunker_count(off, len));
	/* Exhausted stays exhausted. */
	assert_false(chunker_next(&c, &sp));
}

static void t_span(const struct chunk_span *s, uint64_t lblk, uint32_t blk_off,
		   uint32_t len, size_t buf_off)
{
	assert_int_equal(s->lblk, lblk);
	assert_int_equal(s->blk_off, blk_off);
	assert_int_equal(s->len, len);
	assert_int_equal(s->buf_off, buf_off);
}

static void test_len_zero(void **state)
{
	struct t_walk w;

	t_walk(0, 0, &w);
	assert_int_equal(w.n, 0);
	t_walk(12345, 0, &w);
	assert_int_equal(w.n, 0);
	assert_int_equal(chunker_count(0, 0), 0);
	assert_int_equal(chunker_count(BLOCK_BYTES * 7 + 3, 0), 0);
}

static void test_exactly_one_block(void **state)
{
	struct t_walk w;

	t_walk(0, BLOCK_BYTES, &w);
	assert_int_equal(w.n, 1);
	t_span(&w.s[0], 0, 0, BLOCK_BYTES, 0);
	assert_true(chunk_span_whole(&w.s[0]));

	t_walk(5 * BLOCK_BYTES, BLOCK_BYTES, &w);
	assert_int_equal(w.n, 1);
	t_span(&w.s[0], 5, 0, BLOCK_BYTES, 0);
	assert_true(chunk_span_whole(&w.s[0]));
}

static void test_aligned_many(void **state)
{
	struct t_walk w;

	t_walk(3 * BLOCK_BYTES, 8 * BLOCK_BYTES, &w);
	assert_int_equal(w.n, 8);
	for (unsigned i = 0; i < 8; i++) {
		t_span(&w.s[i], 3 + i, 0, BLOCK_BYTES, (size_t)i * BLOCK_BYTES);
		assert_true(chunk_span_whole(&w.s[i]));
	}
}

static void test_within_one_block(void **state)
{
	struct t_walk w;

	t_walk(BLOCK_BYTES + 100, 200, &w);
	assert_int_equal(w.n, 1);
	t_span(&w.s[0], 1, 100, 200, 0);
	assert_false(chunk_span_whole(&w.s[0]));

	/* One byte, at the first and at the last byte of a block. */
	t_walk(2 * BLOCK_BYTES, 1, &w);
	assert_int_equal(w.n, 1);
	t_span(&w.s[0], 2, 0, 1, 0);
	t_walk(3 * BLOCK_BYTES - 1, 1, &w);
	assert_int_equal(w.n, 1);
	t_span(&w.s[0], 2, BLOCK_BYTES - 1, 1, 0);

	/* Up to the end of the block exactly. */
	t_walk(BLOCK_BYTES + 1, BLOCK_BYTES - 1, &w);
	assert_int_equal(w.n, 1);
	t_span(&w.s[0], 1, 1, BLOCK_BYTES - 1, 0);
	assert_false(chunk_span_whole(&w.s[0]));
}

static void test_unaligned_head(void **state)
{
	struct t_walk w;

	/* Starts 1000 bytes into block 0, ends on the boundary of block 3. */
	t_walk(1000, 3 * BLOCK_BYTES - 1000, &w);
	assert_int_equal(w.n, 3);
	t_span(&w.s[0], 0, 1000, BLOCK_BYTES - 1000, 0);
	t_span(&w.s[1], 1, 0, BLOCK_BYTES, BLOCK_BYTES - 1000);
	t_span(&w.s[2], 2, 0, BLOCK_BYTES, 2 * BLOCK_BYTES - 1000);
	assert_false(chunk_span_whole(&w.s[0]));
	assert_true(chunk_span_whole(&w.s[2]));
}

static void test_tail(void **state)
{
	struct t_walk w;

	/* Aligned start, 2 whole blocks and 10 bytes of a third. */
	t_walk(4 * BLOCK_BYTES, 2 * BLOCK_BYTES + 10, &w);
	assert_int_equal(w.n, 3);
	t_span(&w.s[0], 4, 0, BLOCK_BYTES, 0);
	t_span(&w.s[1], 5, 0, BLOCK_BYTES, BLOCK_BYTES);
	t_span(&w.s[2], 6, 0, 10, 2 * BLOCK_BYTES);
	assert_false(chunk_span_whole(&w.s[2]));
}

static void test_head_and_tail(void **state)
{
	struct t_walk w;

	/* Crosses one boundary with a partial block each side. */
	t_walk(BLOCK_BYTES - 1, 2, &w);
	assert_int_equal(w.n, 2);
	t_span(&w.s[0], 0, BLOCK_BYTES - 1, 1, 0);
	t_span(&w.s[1], 1, 0, 1, 1);

	/* Head, 3 whole, tail. */
	t_walk(10 * BLOCK_BYTES + 4000, 96 + 3 * BLOCK_BYTES + 5, &w);
	assert_int_equal(w.n, 5);
	t_span(&w.s[0], 10, 4000, 96, 0);
	t_span(&w.s[1], 11, 0, BLOCK_BYTES, 96);
	t_span(&w.s[2], 12, 0, BLOCK_BYTES, 96 + BLOCK_BYTES);
	t_span(&w.s[3], 13, 0, BLOCK_BYTES, 96 + 2 * BLOCK_BYTES);
	t_span(&w.s[4], 14, 0, 5, 96 + 3 * BLOCK_BYTES);
}

static void test_spans_many_blocks(void **state)
{
	struct t_walk w;
	/* 1 MiB less one byte each side, from one byte before a 1 MiB mark. */
	uint64_t off = (1ull << 20) - 1;
	size_t len = (1u << 20) + 2;

	t_walk(off, len, &w);
	assert_int_equal(w.n, 258);
	t_span(&w.s[0], 255, BLOCK_BYTES - 1, 1, 0);
	for (unsigned i = 1; i < 257; i++)
		t_span(&w.s[i], 255 + i, 0, BLOCK_BYTES,
		       1 + (size_t)(i - 1) * BLOCK_BYTES);
	t_span(&w.s[257], 512, 0, 1, len - 1);
}

/* Every (offset, len) with offset in the first two blocks and len up to
 * three blocks, in steps that hit each boundary case, keeps the
 * invariants (checked in t_walk) and a closed-form count. */
static void test_sweep_invariants(void **state)
{
	static const uint64_t offs[] = {0, 1, 2, 511, 4095, 4096, 4097, 8191};
	static const size_t lens[] = {1,    2,	  4094, 4095,  4096,  4097,
				      8191, 8192, 8193, 12287, 12288, 12289};
	struct t_walk w;

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
		for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			uint64_t off = offs[i];
			size_t len = lens[j];
			uint64_t want =
			    (off + len + BLOCK_BYTES - 1) / BLOCK_BYTES -
			    off / BLOCK_BYTES;
			t_walk(off, len, &w);
			if (w.n != want)
				fail_msg("chunker(%llu, %zu): %u spans, want "
					 "%llu",
					 (unsigned long long)off, len, w.n,
					 (unsigned long long)want);
		}
}

static void test_count_edges(void **state)
{
	assert_int_equal(chunker_count(0, 1), 1);
	assert_int_equal(chunker_count(0, BLOCK_BYTES), 1);
	assert_int_equal(chunker_count(0, BLOCK_BYTES + 1), 2);
	assert_int_equal(chunker_count(1, BLOCK_BYTES - 1), 1);
	assert_int_equal(chunker_count(1, BLOCK_BYTES), 2);
	assert_int_equal(chunker_count(BLOCK_BYTES - 1, 1), 1);
	assert_int_equal(chunker_count(BLOCK_BYTES - 1, 2), 2);
	assert_int_equal(chunker_count(BLOCK_BYTES, BLOCK_BYTES), 1);
	assert_int_equal(chunker_count(BLOCK_BYTES, 2 * BLOCK_BYTES), 2);
	assert_int_equal(chunker_count(BLOCK_BYTES + 1, 2 * BLOCK_BYTES), 3);
	/* 1 MiB aligned is 256 blocks; shifted by a byte, 257. */
	assert_int_equal(chunker_count(1 << 20, 1 << 20), 256);
	assert_int_equal(chunker_count((1 << 20) + 1, 1 << 20), 257);
	/* Far into a large file: only the position inside a block counts. */
	uint64_t far = 1ull << 40;
	assert_int_equal(chunker_count(far, BLOCK_BYTES), 1);
	assert_int_equal(chunker_count(far + 4000, 200), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_len_zero),
	    cmocka_unit_test(test_exactly_one_block),
	    cmocka_unit_test(test_aligned_many),
	    cmocka_unit_test(test_within_one_block),
	    cmocka_unit_test(test_unaligned_head),
	    cmocka_unit_test(test_tail),
	    cmocka_unit_test(test_head_and_tail),
	    cmocka_unit_test(test_spans_many_blocks),
	    cmocka_unit_test(test_sweep_invariants),
	    cmocka_unit_test(test_count_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
