/* The replica's side (replication/replica.h) on a store made with one
 * file of one block X:
 *   - verdicts from its own state: X's pblk with X's checksums: have;
 *     X's pblk with other checksums: conflict (it still uses it); a free
 *     pblk with X's SHA-1 and XXH3: local (copied, checked by SHA-1); a
 *     free pblk with unknown bytes: need
 *   - a needed block damaged in transit: refused (EILSEQ), nothing written
 *   - a metadata message that deletes what the replica lacks: refused in
 *     one transaction, the replica unchanged
 *   - a fingerprint naming pblk 0: a bad message, the parse ends there
 *   - the right bytes: written, the local copy made; read back equal
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/block.h"
#include "dedupe/fingerprint.h"
#include "repl_test.h"
#include "replication/replica.h"
#include "store/datapath.h"
#include "tiers/backing.h"

struct ctx {
	struct t_store s;
	uint64_t xpblk; /* the block of file "x" */
	uint8_t x[BLOCK_BYTES], y[BLOCK_BYTES];
	struct replica *rp;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	t_newdir(c->s.dir);
	t_store_open(&c->s);
	t_file(&c->s, "x", 1, 0x10);
	size_t got;
	assert_int_equal(datapath_read_map(c->s.st, t_lookup(&c->s, "x"), 0,
					   BLOCK_BYTES, c->x, &got, &c->xpblk),
			 0);
	assert_true(c->xpblk > 0);
	t_store_close(&c->s);
	memset(c->y, 0x77, sizeof(c->y));
	char err[512];
	if (replica_open(c->s.dir, &c->rp, err, sizeof(err)))
		fail_msg("replica_open: %s", err);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	replica_close(c->rp);
	t_rmtree(c->s.dir);
	free(c);
	return 0;
}

static void fp(struct wbuf *b, uint64_t pblk, const uint8_t *bytes)
{
	uint8_t sha[FINGERPRINT_SHA1_LEN];
	assert_int_equal(fingerprint_sha1(bytes, BLOCK_BYTES, sha), 0);
	wbuf_u64(b, pblk);
	wbuf_u64(b, fingerprint_xxh3(bytes));
	wbuf_u8(b, 1);
	wbuf_put(b, sha, REPL_SHA_LEN);
}

/* Items: X at its pblk, Y at X's pblk, X at a free pblk, Y at another. */
static void four_fps(struct ctx *c, struct wbuf *fps)
{
	wbuf_u8(fps, 0);
	wbuf_u64(fps, 4);
	fp(fps, c->xpblk, c->x);
	fp(fps, c->xpblk, c->y);
	fp(fps, c->xpblk + 10, c->x);
	fp(fps, c->xpblk + 11, c->y);
}

static void test_verdicts(void **state)
{
	struct ctx *c = *state;
	struct wbuf fps = {0}, v = {0};
	struct replica_tally t;
	char err[512];
	four_fps(c, &fps);
	assert_int_equal(replica_fps(c->rp, &fps, &v, &t, err, sizeof(err)), 0);
	assert_int_equal(v.len, 4);
	assert_int_equal(v.p[0], REPL_HAVE);
	assert_int_equal(v.p[1], REPL_CONFLICT);
	assert_int_equal(v.p[2], REPL_LOCAL);
	assert_int_equal(v.p[3], REPL_NEED);
	assert_true(t.have == 1 && t.conflict == 1 && t.local == 1 &&
		    t.need == 1);
	wbuf_free(&fps);
	wbuf_free(&v);
}

/* The verdicts of X at a free pblk (local) and Y at another (need). */
static void two_fps(struct ctx *c)
{
	struct wbuf fps = {0}, v = {0};
	struct replica_tally t;
	char err[512];
	wbuf_u8(&fps, 0);
	wbuf_u64(&fps, 2);
	fp(&fps, c->xpblk + 10, c->x);
	fp(&fps, c->xpblk + 11, c->y);
	assert_int_equal(replica_fps(c->rp, &fps, &v, &t, err, sizeof(err)), 0);
	assert_true(t.local == 1 && t.need == 1);
	wbuf_free(&fps);
	wbuf_free(&v);
}

static void blocks_msg(struct ctx *c, struct wbuf *b, const uint8_t *bytes)
{
	wbuf_u64(b, 1);
	wbuf_u64(b, c->xpblk + 11);
	wbuf_put(b, bytes, BLOCK_BYTES);
}

static void read_pblk(struct ctx *c, uint64_t pblk, uint8_t *buf)
{
	struct backing *bk;
	char err[512];
	assert_int_equal(backing_open(c->s.dir, &bk, err, sizeof(err)), 0);
	struct backing_dev dev = backing_dev(bk);
	struct backing_io io = {pblk, buf};
	assert_int_equal(dev.ops->read(dev.ctx, &io, 1), 0);
	backing_close(bk);
}

static void test_damaged_in_transit_is_refused(void **state)
{
	struct ctx *c = *state;
	struct wbuf b = {0};
	char err[512];
	uint8_t bad[BLOCK_BYTES], got[BLOCK_BYTES];
	two_fps(c);
	memcpy(bad, c->y, sizeof(bad));
	bad[100] ^= 1;
	blocks_msg(c, &b, bad);
	assert_int_equal(replica_blocks(c->rp, &b, err, sizeof(err)), -EILSEQ);
	assert_non_null(strstr(err, "checksum"));
	read_pblk(c, c->xpblk + 11, got);
	assert_memory_not_equal(got, bad, BLOCK_BYTES);
	read_pblk(c, c->xpblk + 10, got); /* nor the local copy made */
	assert_memory_not_equal(got, c->x, BLOCK_BYTES);
	wbuf_free(&b);
}

static void test_blocks_written_and_copied(void **state)
{
	struct ctx *c = *state;
	struct wbuf b = {0};
	char err[512];
	uint8_t got[BLOCK_BYTES];
	two_fps(c);
	blocks_msg(c, &b, c->y);
	assert_int_equal(replica_blocks(c->rp, &b, err, sizeof(err)), 0);
	read_pblk(c, c->xpblk + 11, got);
	assert_memory_equal(got, c->y, BLOCK_BYTES);
	read_pblk(c, c->xpblk + 10, got);
	assert_memory_equal(got, c->x, BLOCK_BYTES);
	wbuf_free(&b);
}

static void test_bad_meta_leaves_replica_unchanged(void **state)
{
	struct ctx *c = *state;
	struct wbuf m = {0};
	char err[512];
	uint64_t ino = 1;
	/* Delete the root inode, then a pending key the replica lacks. */
	wbuf_u8(&m, 0);
	wbuf_u64(&m, 2);
	wbuf_u8(&m, REPL_OP_DEL);
	wbuf_u8(&m, MS_INODES);
	wbuf_u32(&m, 8);
	wbuf_put(&m, &ino, 8);
	wbuf_u32(&m, 0);
	uint64_t nothere = 999;
	wbuf_u8(&m, REPL_OP_DEL);
	wbuf_u8(&m, MS_PENDING);
	wbuf_u32(&m, 8);
	wbuf_put(&m, &nothere, 8);
	wbuf_u32(&m, 0);
	assert_int_equal(replica_commit(c->rp, &m, err, sizeof(err)), -EPROTO);
	/* A truncated message: refused too. */
	m.len -= 3;
	assert_int_equal(replica_commit(c->rp, &m, err, sizeof(err)), -EPROTO);
	replica_close(c->rp);
	c->rp = NULL;
	t_store_open(&c->s);
	assert_true(t_file_is(&c->s, "x", 1, 0x10));
	t_store_close(&c->s);
	assert_int_equal(replica_open(c->s.dir, &c->rp, err, sizeof(err)), 0);
	wbuf_free(&m);
}

/* Found by tests/fuzz/fuzz_replica: a pblk 0 before more items ends the
 * parse (it read past a bad message). */
static void test_bad_pblk_ends_parse(void **state)
{
	struct ctx *c = *state;
	struct wbuf fps = {0}, v = {0};
	struct replica_tally t;
	char err[512];
	wbuf_u8(&fps, 0);
	wbuf_u64(&fps, 2);
	fp(&fps, 0, c->x);
	fp(&fps, c->xpblk, c->x);
	assert_int_equal(replica_fps(c->rp, &fps, &v, &t, err, sizeof(err)),
			 -EPROTO);
	assert_non_null(strstr(err, "bad message"));
	wbuf_free(&fps);
	wbuf_free(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_verdicts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_damaged_in_transit_is_refused,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_blocks_written_and_copied,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(
		test_bad_meta_leaves_replica_unchanged, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_pblk_ends_parse, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
