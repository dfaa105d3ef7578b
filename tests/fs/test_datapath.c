/* datapath: file data through block maps, inline dedupe and the backing
 * store, on a datastore opened with fs_open() in a temporary directory (no
 * FUSE involved).
 *
 * What the data path promises, and how each test checks it:
 *   - bytes read back are the bytes written: every test compares with a
 *     shadow copy of the file kept in memory;
 *   - the counters tell the truth: live_blocks is the number of non-zero
 *     4 KiB blocks of the files (zero blocks are holes), unique_blocks the
 *     number of distinct non-zero contents (with verify-on-match on);
 *   - freed blocks wait in `pending` until a sync, then get reused;
 *   - a stored block that fails its checksum reads as -EIO, never as
 *     wrong bytes;
 *   - verify-on-match keeps SHA-1-colliding blocks apart (and, with it off,
 *     does not: that risk is pinned too).
 *
 * Each test gets a fresh store, so the first block stored is pblk 1 and
 * fs->stats starts at zero.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/block.h"
#include "meta/metastore.h"
#include "common/prng.h"
#include "dedupe/blocks.h"
#include "dedupe/chunker.h"
#include "store/blockmap.h"
#include "store/datapath.h"
#include "tiers/array.h"
#include "tiers/backing.h"
#include "fs/fs_open.h"
#include "store/namespace.h"
#include "store/store_i.h"
#include "tests/common/t_tmpdir.h"

#ifndef TEST_DATA_DIR
#error "TEST_DATA_DIR must name tests/integration/data"
#endif

#define KiB 1024u
#define MiB (1024u * KiB)

struct t_ctx {
	char dir[64];
	struct fs fs;
	unsigned nfiles;
};

/* ---- setup ------------------------------------------------------------- */

static int t_open(void **state, bool verify)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	struct fs_config cfg = {.seed = 1, .verify = verify};

	if (!t || t_fs_open(t->dir, sizeof(t->dir), "dp", &t->fs, &cfg)) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int t_setup(void **state)
{
	return t_open(state, true);
}

static int t_setup_noverify(void **state)
{
	return t_open(state, false);
}

static int t_teardown(void **state)
{
	struct t_ctx *t = *state;

	t_fs_close(t->dir, &t->fs);
	free(t);
	return 0;
}

/* ---- helpers ----------------------------------------------------------- */

/* A new empty regular file, linked in the root as "fN". */
static uint64_t t_new_file(struct t_ctx *t)
{
	struct fs *fs = &t->fs;
	struct store_txn x;
	struct ms_inode in, root;
	uint64_t ino;
	char name[32];

	snprintf(name, sizeof(name), "f%u", t->nfiles++);
	assert_int_equal(store_txn_begin(fs->st, &x), 0);
	assert_int_equal(ns_inode_new(store_ms(fs->st), x.txn, &x.c,
				      S_IFREG | 0644, 0, 0, 0, 1, &ino, &in),
			 0);
	assert_int_equal(ns_inode_get(store_ms(fs->st), x.txn, 1, &root), 0);
	assert_int_equal(
	    ns_dirent_add(store_ms(fs->st), x.txn, 1, &root, name, ino), 0);
	assert_int_equal(ns_inode_put(store_ms(fs->st), x.txn, 1, &root), 0);
	assert_int_equal(store_txn_commit(&x), 0);
	return ino;
}

static struct ms_counters t_counters(struct t_ctx *t)
{
	MDB_txn *txn;
	struct ms_counters c;

	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	assert_int_equal(metastore_counters_get(store_ms(t->fs.st), txn, &c),
			 0);
	metastore_txn_abort(txn);
	return c;
}

static struct ms_inode t_inode(struct t_ctx *t, uint64_t ino)
{
	MDB_txn *txn;
	struct ms_inode in;

	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	assert_int_equal(ns_inode_get(store_ms(t->fs.st), txn, ino, &in), 0);
	metastore_txn_abort(txn);
	return in;
}

static size_t t_table_entries(struct t_ctx *t, enum ms_table tab)
{
	MDB_txn *txn;
	MDB_stat st;

	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	assert_int_equal(
	    mdb_stat(txn, metastore_dbi(store_ms(t->fs.st), tab), &st), 0);
	metastore_txn_abort(txn);
	return st.ms_entries;
}

/* The pblk logical block @lblk of @ino maps to (0: hole), read straight
 * from its bmap extent. */
static uint64_t t_pblk_of(struct t_ctx *t, uint64_t ino, uint64_t lblk)
{
	MDB_txn *txn;
	uint8_t kb[16];
	uint64_t pblk = 0;

	ms_put_be64(kb, ino);
	ms_put_be64(kb + 8, lblk / BMAP_EXTENT_BLOCKS);
	MDB_val k = {sizeof(kb), kb}, v;
	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	int rc =
	    mdb_get(txn, metastore_dbi(store_ms(t->fs.st), MS_BMAP), &k, &v);
	if (rc == 0) {
		assert_int_equal(v.mv_size, MS_BMAP_VALUE_LEN);
		assert_true(ms_sealed(MS_BMAP, &k, &v));
		pblk = ms_get_pblk((const uint8_t *)v.mv_data +
				   (lblk % BMAP_EXTENT_BLOCKS) * MS_PBLK_BYTES);
	} else {
		assert_int_equal(rc, MDB_NOTFOUND);
	}
	metastore_txn_abort(txn);
	return pblk;
}

static uint32_t t_refs(struct t_ctx *t, uint64_t pblk)
{
	MDB_txn *txn;
	struct ms_block b;

	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	int r = dedupe_block_get(store_ms(t->fs.st), txn, pblk, &b);
	metastore_txn_abort(txn);
	return r == 0 ? b.refs : 0;
}

static void t_write(struct t_ctx *t, uint64_t ino, uint64_t off,
		    const void *buf, size_t len)
{
	bool drop_setid = false; /* a privileged writer */
	int r = datapath_write(t->fs.st, ino, off, buf, len, &drop_setid, NULL);
	if (r)
		fail_msg("datapath_write(ino %llu, off %llu, len %zu) = %d",
			 (unsigned long long)ino, (unsigned long long)off, len,
			 r);
}

/* Read [off, off+len) and compare with @want (@want_len bytes expected:
 * short at EOF); both ways: into a buffer of exactly @len bytes
 * (datapath_read), and into one of the whole blocks the range touches
 * (datapath_read_map, which FUSE reads use: the blocks land in place and
 * the bytes move to the front). */
static void t_expect(struct t_ctx *t, uint64_t ino, uint64_t off, size_t len,
		     const uint8_t *want, size_t want_len)
{
	size_t whole = (size_t)chunker_count(off, len) * BLOCK_BYTES;
	for (int map = 0; map < 2; map++) {
		size_t cap = map ? whole : len;
		uint8_t *got = malloc(cap ? cap : 1);
		size_t n = (size_t)-1;
		assert_non_null(got);
		int r = map ? datapath_read_map(t->fs.st, ino, off, len, got,
						&n, NULL)
			    : datapath_read(t->fs.st, ino, off, len, got, &n);
		if (r || n != want_len)
			fail_msg("%s(ino %llu, off %llu, len %zu) = %d, "
				 "%zu bytes; want 0, %zu",
				 map ? "datapath_read_map" : "datapath_read",
				 (unsigned long long)ino,
				 (unsigned long long)off, len, r, n, want_len);
		for (size_t i = 0; i < want_len; i++)
			if (got[i] != want[i])
				fail_msg("ino %llu byte %llu: 0x%02x, want "
					 "0x%02x (%s)",
					 (unsigned long long)ino,
					 (unsigned long long)(off + i), got[i],
					 want[i], map ? "map" : "read");
		free(got);
	}
}

static void t_truncate(struct t_ctx *t, uint64_t ino, uint64_t size)
{
	struct store_txn x;
	struct ms_inode in;

	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	assert_int_equal(ns_inode_get(store_ms(t->fs.st), x.txn, ino, &in), 0);
	int r = datapath_truncate(&x, ino, &in, size);
	if (r) {
		store_txn_abort(&x);
		fail_msg("datapath_truncate(%llu) = %d",
			 (unsigned long long)size, r);
	}
	assert_int_equal(ns_inode_put(store_ms(t->fs.st), x.txn, ino, &in), 0);
	assert_int_equal(store_txn_commit(&x), 0);
}

/* A punch goes in bounded transactions, as op_fallocate runs it. */
static void t_punch(struct t_ctx *t, uint64_t ino, uint64_t off, uint64_t len)
{
	bool more;
	do {
		struct store_txn x;
		struct ms_inode in;

		assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
		assert_int_equal(
		    ns_inode_get(store_ms(t->fs.st), x.txn, ino, &in), 0);
		int r = datapath_punch(&x, ino, &in, off, len, &more);
		if (r) {
			store_txn_abort(&x);
			fail_msg("datapath_punch(%llu, %llu) = %d",
				 (unsigned long long)off,
				 (unsigned long long)len, r);
		}
		assert_int_equal(
		    ns_inode_put(store_ms(t->fs.st), x.txn, ino, &in), 0);
		assert_int_equal(store_txn_commit(&x), 0);
	} while (more);
}

#define T_STAT(t, f) atomic_load(&(t)->fs.stats.dedupe.f)

/* Seeded (common/prng.h): every random test reproduces. */
static uint64_t t_rng;
static uint64_t t_rand(void)
{
	return prng_next(&t_rng);
}

/* A block whose every byte is @seed-derived and not all zero. */
static void t_pattern(uint8_t *b, unsigned seed)
{
	for (unsigned i = 0; i < BLOCK_BYTES; i++)
		b[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8) + 1u);
	b[0] = (uint8_t)(seed | 1u);
	b[1] = (uint8_t)(seed >> 8);
}

static bool t_block_zero(const uint8_t *b)
{
	for (unsigned i = 0; i < BLOCK_BYTES; i++)
		if (b[i])
			return false;
	return true;
}

/* live_blocks and unique_blocks as the shadow says they must be: non-zero
 * blocks, and distinct non-zero contents. */
static void t_expected_counts(const uint8_t *shadow, size_t size,
			      uint64_t *live, uint64_t *unique)
{
	size_t nblk = (size + BLOCK_BYTES - 1) / BLOCK_BYTES;
	*live = *unique = 0;
	for (size_t i = 0; i < nblk; i++) {
		const uint8_t *b = shadow + i * BLOCK_BYTES;
		if (t_block_zero(b))
			continue;
		++*live;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = memcmp(shadow + j * BLOCK_BYTES, b,
				      BLOCK_BYTES) == 0;
		*unique += !seen;
	}
}

static void t_read_data_file(const char *name, uint8_t *out)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/sha1-collision/%s", TEST_DATA_DIR,
		 name);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	ssize_t n = read(fd, out, BLOCK_BYTES);
	close(fd);
	if (n != (ssize_t)BLOCK_BYTES)
		fail_msg("%s: read %zd bytes, want %u", path, n, BLOCK_BYTES);
}

/* ---- tests ------------------------------------------------------------- */

/* 500 random writes (random offset, length from 1 byte to 5 blocks, random
 * bytes or one of a few repeated fills or zeros) in a 1 MiB region, against
 * a shadow buffer; then every byte, random windows, and the counters. */
static void test_random_writes_match_shadow(void **state)
{
	struct t_ctx *t = *state;
	const size_t region = 1 * MiB;
	uint8_t *shadow = calloc(1, region);
	uint8_t *buf = malloc(5 * BLOCK_BYTES + 1);
	uint64_t ino = t_new_file(t);
	size_t size = 0;

	assert_non_null(shadow);
	assert_non_null(buf);
	t_rng = 0x5eed0001;
	for (int w = 0; w < 500; w++) {
		uint64_t off = t_rand() % region;
		size_t len = (size_t)(t_rand() % (5 * BLOCK_BYTES)) + 1;
		if (off + len > region)
			len = region - off;
		unsigned kind = (unsigned)(t_rand() % 8);
		if (kind < 5) { /* random bytes */
			for (size_t i = 0; i < len; i++)
				buf[i] = (uint8_t)t_rand();
		} else if (kind < 7) { /* a few fills: duplicates */
			memset(buf, 0x41 + (int)(t_rand() % 3), len);
		} else { /* zeros: holes in the making */
			memset(buf, 0, len);
		}
		t_write(t, ino, off, buf, len);
		memcpy(shadow + off, buf, len);
		if (off + len > size)
			size = off + len;
	}
	assert_int_equal(t_inode(t, ino).size, size);

	/* Every byte, through one big unaligned read and block by block. */
	t_expect(t, ino, 0, region + 3 * BLOCK_BYTES, shadow, size);
	for (size_t off = 0; off < size; off += BLOCK_BYTES)
		t_expect(t, ino, off, BLOCK_BYTES, shadow + off,
			 size - off < BLOCK_BYTES ? size - off : BLOCK_BYTES);
	/* Random windows. */
	for (int i = 0; i < 200; i++) {
		uint64_t off = t_rand() % size;
		size_t len = (size_t)(t_rand() % (3 * BLOCK_BYTES)) + 1;
		size_t want = off + len > size ? size - off : len;
		t_expect(t, ino, off, len, shadow + off, want);
	}

	uint64_t live, unique;
	t_expected_counts(shadow, size, &live, &unique);
	struct ms_counters c = t_counters(t);
	assert_int_equal(c.live_blocks, live);
	assert_int_equal(c.unique_blocks, unique);
	assert_int_equal(t_inode(t, ino).nblocks, live);
	assert_int_equal(c.logical_bytes, size);
	free(buf);
	free(shadow);
}

/* Sum of refs over the `blocks` table: every reference is one non-hole
 * logical block, so this must equal live_blocks. *used: slots in use
 * (64 a record; refs 0 = free; no record is all free). */
static uint64_t t_sum_refs(struct t_ctx *t, uint64_t *used)
{
	MDB_txn *txn;
	MDB_cursor *cur;
	MDB_val k, v;
	uint64_t sum = 0;
	int rc;

	*used = 0;
	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	assert_int_equal(
	    mdb_cursor_open(txn, metastore_dbi(store_ms(t->fs.st), MS_BLOCKS),
			    &cur),
	    0);
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		struct ms_block b[MS_BLOCK_EXTENT];
		assert_int_equal(v.mv_size, sizeof(b) + MS_SEAL_LEN);
		assert_true(ms_sealed(MS_BLOCKS, &k, &v));
		memcpy(b, v.mv_data, sizeof(b));
		uint64_t in_rec = 0;
		for (unsigned i = 0; i < MS_BLOCK_EXTENT; i++) {
			in_rec += b[i].refs > 0;
			sum += b[i].refs;
		}
		assert_true(in_rec > 0);
		*used += in_rec;
	}
	assert_int_equal(rc, MDB_NOTFOUND);
	mdb_cursor_close(cur);
	metastore_txn_abort(txn);
	return sum;
}

/* Every invariant the shadow of one file fixes: its bytes (and EOF), its
 * size and nblocks, and the store's counters and refcounts. */
static void t_check_file(struct t_ctx *t, uint64_t ino, const uint8_t *shadow,
			 size_t size, size_t region)
{
	uint64_t live, unique;
	struct ms_counters c = t_counters(t);

	assert_int_equal(t_inode(t, ino).size, size);
	t_expect(t, ino, 0, region + BLOCK_BYTES, shadow, size);
	t_expected_counts(shadow, size, &live, &unique);
	assert_int_equal(t_inode(t, ino).nblocks, live);
	assert_int_equal(c.live_blocks, live);
	assert_int_equal(c.unique_blocks, unique);
	assert_int_equal(c.logical_bytes, size);
	uint64_t used;
	assert_int_equal(t_sum_refs(t, &used), live);
	assert_int_equal(used, unique);
	assert_int_equal(t_table_entries(t, MS_FPINDEX), unique);
}

/* Writes, truncates (down and up) and punches at random over 300 KiB (five
 * bmap extents), with syncs now and then so freed blocks get reused; the
 * whole file and every counter checked against the shadow after every
 * operation. */
static void test_random_ops_keep_invariants(void **state)
{
	struct t_ctx *t = *state;
	const size_t region = 300 * KiB;
	uint8_t *shadow = calloc(1, region);
	uint8_t *buf = malloc(8 * BLOCK_BYTES);
	uint64_t ino = t_new_file(t);
	size_t size = 0;

	assert_non_null(shadow);
	assert_non_null(buf);
	t_rng = 0x5eed0002;
	for (int op = 0; op < 300; op++) {
		unsigned kind = (unsigned)(t_rand() % 10);
		if (kind < 6 || size == 0) {
			uint64_t off = t_rand() % region;
			size_t len = (size_t)(t_rand() % (8 * BLOCK_BYTES)) + 1;
			if (off + len > region)
				len = region - off;
			/* Few distinct fills, so blocks dedupe and get
			 * freed while still shared. */
			unsigned fill = (unsigned)(t_rand() % 5);
			if (fill < 2)
				for (size_t i = 0; i < len; i++)
					buf[i] = (uint8_t)t_rand();
			else
				memset(buf, fill == 2 ? 0 : 0x60 + (int)fill,
				       len);
			t_write(t, ino, off, buf, len);
			memcpy(shadow + off, buf, len);
			if (off + len > size)
				size = off + len;
		} else if (kind < 8) {
			size_t to = (size_t)(t_rand() % (region + 1));
			if (to < size)
				memset(shadow + to, 0, size - to);
			t_truncate(t, ino, to);
			size = to;
		} else {
			uint64_t off = t_rand() % size;
			uint64_t len = t_rand() % (12 * BLOCK_BYTES) + 1;
			t_punch(t, ino, off, len);
			uint64_t end = off + len < size ? off + len : size;
			memset(shadow + off, 0, end - off);
		}
		if (op % 37 == 36)
			assert_int_equal(store_sync(t->fs.st), 0);
		t_check_file(t, ino, shadow, size, region);
	}
	free(buf);
	free(shadow);
}

static void test_short_tail_and_eof(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	uint8_t data[10000];
	uint8_t buf[BLOCK_BYTES];
	size_t got;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 13 + 5);
	t_write(t, ino, 0, data, sizeof(data));
	assert_int_equal(t_inode(t, ino).size, 10000);

	/* Everything, asked for more. */
	t_expect(t, ino, 0, 64 * KiB, data, 10000);
	/* An aligned read of the last, partial block is short. */
	t_expect(t, ino, 2 * BLOCK_BYTES, BLOCK_BYTES, data + 2 * BLOCK_BYTES,
		 10000 - 2 * BLOCK_BYTES);
	/* An unaligned read straddling EOF. */
	t_expect(t, ino, 9990, 100, data + 9990, 10);
	/* The last byte. */
	t_expect(t, ino, 9999, 1, data + 9999, 1);
	/* At and past EOF: 0 bytes, no error. */
	got = 77;
	assert_int_equal(datapath_read(t->fs.st, ino, 10000, 100, buf, &got),
			 0);
	assert_int_equal(got, 0);
	got = 77;
	assert_int_equal(datapath_read(t->fs.st, ino, 3 * BLOCK_BYTES,
				       BLOCK_BYTES, buf, &got),
			 0);
	assert_int_equal(got, 0);
	got = 77;
	assert_int_equal(
	    datapath_read(t->fs.st, ino, 1ull << 40, BLOCK_BYTES, buf, &got),
	    0);
	assert_int_equal(got, 0);
	/* A zero-length read. */
	got = 77;
	assert_int_equal(datapath_read(t->fs.st, ino, 0, 0, buf, &got), 0);
	assert_int_equal(got, 0);

	/* A short tail appended in place: the partial block grows. */
	t_write(t, ino, 10000, "tail", 4);
	assert_int_equal(t_inode(t, ino).size, 10004);
	uint8_t around[6] = {data[9998], data[9999], 't', 'a', 'i', 'l'};
	t_expect(t, ino, 9998, 10, around, sizeof(around));
	t_expect(t, ino, 0, 10000, data, 10000);
}

/* Unaligned writes across block boundaries, each a different shape. */
static void test_unaligned_across_boundaries(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	static uint8_t shadow[8 * BLOCK_BYTES];
	uint8_t buf[3 * BLOCK_BYTES];
	static const struct {
		uint64_t off;
		size_t len;
	} w[] = {
	    {BLOCK_BYTES - 1, 2},		      /* one byte either side */
	    {100, 200},				      /* inside one block */
	    {2 * BLOCK_BYTES - 10, BLOCK_BYTES + 20}, /* head, whole, tail */
	    {3 * BLOCK_BYTES + 1,
	     BLOCK_BYTES - 2},		    /* inside, touching neither edge */
	    {5 * BLOCK_BYTES, BLOCK_BYTES}, /* aligned, between others */
	    {4 * BLOCK_BYTES + 4000,
	     2 * BLOCK_BYTES},	      /* over the aligned one */
	    {0, 1},		      /* first byte */
	    {8 * BLOCK_BYTES - 1, 1}, /* last byte */
	};

	size_t size = 0;

	memset(shadow, 0, sizeof(shadow));
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		for (size_t j = 0; j < w[i].len; j++)
			buf[j] = (uint8_t)(0x10 * (i + 1) + j);
		t_write(t, ino, w[i].off, buf, w[i].len);
		memcpy(shadow + w[i].off, buf, w[i].len);
		if (w[i].off + w[i].len > size)
			size = w[i].off + w[i].len;
		assert_int_equal(t_inode(t, ino).size, size);
		/* After every write: the whole file, and the written range
		 * with a byte of context either side. */
		t_expect(t, ino, 0, sizeof(shadow), shadow, size);
		uint64_t lo = w[i].off ? w[i].off - 1 : 0;
		uint64_t hi = w[i].off + w[i].len + 1;
		t_expect(t, ino, lo, hi - lo, shadow + lo,
			 (hi < size ? hi : size) - lo);
	}
	assert_int_equal(t_inode(t, ino).size, sizeof(shadow));
	t_expect(t, ino, 0, sizeof(shadow), shadow, sizeof(shadow));
}

static void test_sparse_reads_zero_and_costs_nothing(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	uint8_t blk[BLOCK_BYTES], zeros[64 * KiB];
	const uint64_t far = 100ull * MiB;

	memset(zeros, 0, sizeof(zeros));
	t_pattern(blk, 1);
	t_write(t, ino, far, blk, BLOCK_BYTES);
	assert_int_equal(t_inode(t, ino).size, far + BLOCK_BYTES);

	struct ms_counters c = t_counters(t);
	assert_int_equal(c.live_blocks, 1);
	assert_int_equal(c.unique_blocks, 1);
	assert_int_equal(t_inode(t, ino).nblocks, 1);
	assert_int_equal(c.logical_bytes, far + BLOCK_BYTES);
	assert_int_equal(t_table_entries(t, MS_BMAP), 1);

	t_expect(t, ino, 0, sizeof(zeros), zeros, sizeof(zeros));
	t_expect(t, ino, far / 2 + 123, 5000, zeros, 5000);
	/* Hole then data in one read. */
	uint8_t want[2 * BLOCK_BYTES];
	memset(want, 0, BLOCK_BYTES);
	memcpy(want + BLOCK_BYTES, blk, BLOCK_BYTES);
	t_expect(t, ino, far - BLOCK_BYTES, 2 * BLOCK_BYTES, want,
		 2 * BLOCK_BYTES);
	t_expect(t, ino, far - 100, 200, want + BLOCK_BYTES - 100, 200);

	/* A sparse region between two writes: one byte at 0 and one at 1 MiB
	 * cost two blocks. */
	uint64_t ino2 = t_new_file(t);
	t_write(t, ino2, 0, "x", 1);
	t_write(t, ino2, MiB, "y", 1);
	c = t_counters(t);
	assert_int_equal(c.live_blocks, 3);
	assert_int_equal(t_inode(t, ino2).nblocks, 2);
	t_expect(t, ino2, 1, sizeof(zeros), zeros, sizeof(zeros));
}

/* What a write reports to the array model: blocks stored vs deduped
 * (here: one new block, three references to @p), then the file of
 * test_duplicates_share_blocks back as it was (@last: its last block). */
static void t_check_write_report(struct t_ctx *t, uint64_t ino,
				 const uint8_t *p, uint64_t last)
{
	uint8_t q2[BLOCK_BYTES], mixed[4 * BLOCK_BYTES];
	t_pattern(q2, 9);
	memcpy(mixed, p, BLOCK_BYTES);
	memcpy(mixed + BLOCK_BYTES, q2, BLOCK_BYTES);
	memcpy(mixed + 2 * BLOCK_BYTES, p, BLOCK_BYTES);
	memcpy(mixed + 3 * BLOCK_BYTES, p, BLOCK_BYTES);
	struct array_io io = {0};
	bool drop_setid = false;
	assert_int_equal(datapath_write(t->fs.st, ino, 5000 * BLOCK_BYTES,
					mixed, sizeof(mixed), &drop_setid, &io),
			 0);
	assert_int_equal(io.blocks_stored, 1);
	assert_int_equal(io.blocks_deduped, 3);
	t_truncate(t, ino, (last + 1) * BLOCK_BYTES); /* back as it was */
}

static void test_duplicates_share_blocks(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	static const uint64_t lblks[10] = {0,  3,   7,	 63,   64,
					   65, 200, 201, 1000, 4097};
	uint8_t p[BLOCK_BYTES], q[BLOCK_BYTES];

	t_pattern(p, 7);
	t_pattern(q, 8);
	for (int i = 0; i < 10; i++)
		t_write(t, ino, lblks[i] * BLOCK_BYTES, p, BLOCK_BYTES);

	struct ms_counters c = t_counters(t);
	assert_int_equal(c.unique_blocks, 1);
	assert_int_equal(c.live_blocks, 10);
	assert_int_equal(T_STAT(t, duplicate_hits), 9);
	assert_int_equal(T_STAT(t, unique_writes), 1);
	uint64_t pp = t_pblk_of(t, ino, lblks[0]);
	assert_int_not_equal(pp, 0);
	for (int i = 1; i < 10; i++)
		assert_int_equal(t_pblk_of(t, ino, lblks[i]), pp);
	assert_int_equal(t_refs(t, pp), 10);
	for (int i = 0; i < 10; i++)
		t_expect(t, ino, lblks[i] * BLOCK_BYTES, BLOCK_BYTES, p,
			 BLOCK_BYTES);

	/* Overwrite one copy: the shared block loses a ref, a new one
	 * appears; the other nine still read the old bytes. */
	t_write(t, ino, lblks[6] * BLOCK_BYTES, q, BLOCK_BYTES);
	c = t_counters(t);
	assert_int_equal(c.unique_blocks, 2);
	assert_int_equal(c.live_blocks, 10);
	assert_int_equal(t_refs(t, pp), 9);
	uint64_t pq = t_pblk_of(t, ino, lblks[6]);
	assert_int_not_equal(pq, pp);
	assert_int_equal(t_refs(t, pq), 1);
	t_expect(t, ino, lblks[6] * BLOCK_BYTES, BLOCK_BYTES, q, BLOCK_BYTES);
	for (int i = 0; i < 10; i++)
		if (i != 6)
			t_expect(t, ino, lblks[i] * BLOCK_BYTES, BLOCK_BYTES, p,
				 BLOCK_BYTES);

	/* A partial overwrite of a shared block (read-modify-write) splits
	 * that one copy only. */
	t_write(t, ino, lblks[1] * BLOCK_BYTES + 100, "zz", 2);
	uint8_t p2[BLOCK_BYTES];
	memcpy(p2, p, BLOCK_BYTES);
	memcpy(p2 + 100, "zz", 2);
	assert_int_equal(t_refs(t, pp), 8);
	t_expect(t, ino, lblks[1] * BLOCK_BYTES, BLOCK_BYTES, p2, BLOCK_BYTES);
	t_expect(t, ino, lblks[2] * BLOCK_BYTES, BLOCK_BYTES, p, BLOCK_BYTES);
	assert_int_equal(t_counters(t).unique_blocks, 3);

	t_check_write_report(t, ino, p, lblks[9]);
	assert_int_equal(t_refs(t, pp), 8);
	assert_int_equal(t_counters(t).unique_blocks, 3);

	/* Duplicates inside one write, and across files. */
	uint64_t ino2 = t_new_file(t);
	uint8_t big[4 * BLOCK_BYTES];
	for (int i = 0; i < 4; i++)
		memcpy(big + i * BLOCK_BYTES, i % 2 ? q : p, BLOCK_BYTES);
	t_write(t, ino2, 0, big, sizeof(big));
	c = t_counters(t);
	assert_int_equal(c.unique_blocks, 3);
	assert_int_equal(c.live_blocks, 14);
	assert_int_equal(t_refs(t, pp), 10);
	assert_int_equal(t_refs(t, pq), 3);
	t_expect(t, ino2, 0, sizeof(big), big, sizeof(big));
}

/* Within one write, a new block and its duplicate (no earlier copy). */
static void test_duplicates_within_one_write(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	uint8_t big[6 * BLOCK_BYTES];

	for (int i = 0; i < 6; i++)
		t_pattern(big + i * BLOCK_BYTES, 40 + i % 2);
	t_write(t, ino, 0, big, sizeof(big));
	struct ms_counters c = t_counters(t);
	assert_int_equal(c.unique_blocks, 2);
	assert_int_equal(c.live_blocks, 6);
	assert_int_equal(T_STAT(t, unique_writes), 2);
	assert_int_equal(T_STAT(t, duplicate_hits), 4);
	assert_int_equal(t_refs(t, t_pblk_of(t, ino, 0)), 3);
	t_expect(t, ino, 0, sizeof(big), big, sizeof(big));
}

static void test_truncate_drops_refs_and_zeroes_tail(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	uint8_t data[3 * BLOCK_BYTES], zeros[3 * BLOCK_BYTES];

	memset(zeros, 0, sizeof(zeros));
	for (int i = 0; i < 3; i++)
		t_pattern(data + i * BLOCK_BYTES, 20 + i);
	t_write(t, ino, 0, data, sizeof(data));
	/* Another file shares block 2: truncating must not free it. */
	uint64_t other = t_new_file(t);
	t_write(t, other, 0, data + 2 * BLOCK_BYTES, BLOCK_BYTES);
	uint64_t p2 = t_pblk_of(t, ino, 2);
	assert_int_equal(t_refs(t, p2), 2);
	struct ms_counters c = t_counters(t);
	assert_int_equal(c.unique_blocks, 3);
	assert_int_equal(c.live_blocks, 4);

	/* Down to 5000: block 2 goes (its ref with it), block 1 keeps 904
	 * bytes and zeros after them. */
	t_truncate(t, ino, 5000);
	assert_int_equal(t_inode(t, ino).size, 5000);
	assert_int_equal(t_inode(t, ino).nblocks, 2);
	assert_int_equal(t_refs(t, p2), 1);
	assert_int_equal(t_pblk_of(t, ino, 2), 0);
	c = t_counters(t);
	assert_int_equal(c.live_blocks, 3);
	/* A, the rebuilt B, and the other file's C; the old B is freed. */
	assert_int_equal(c.unique_blocks, 3);
	assert_int_equal(c.logical_bytes, 5000 + BLOCK_BYTES);
	t_expect(t, ino, 0, sizeof(data), data, 5000);

	/* Growing again shows zeros past the old end, not the old bytes. */
	t_truncate(t, ino, sizeof(data));
	assert_int_equal(t_inode(t, ino).size, sizeof(data));
	t_expect(t, ino, 0, 5000, data, 5000);
	t_expect(t, ino, 5000, sizeof(data) - 5000, zeros, sizeof(data) - 5000);
	assert_int_equal(t_counters(t).live_blocks, 3);
	/* A write past the zeros reads them back too (RMW of the edge). */
	t_write(t, ino, 2 * BLOCK_BYTES + 10, "end", 3);
	t_expect(t, ino, 5000, 2 * BLOCK_BYTES + 10 - 5000, zeros,
		 2 * BLOCK_BYTES + 10 - 5000);
	t_expect(t, ino, 2 * BLOCK_BYTES + 10, 3, (const uint8_t *)"end", 3);

	/* Down to a block boundary: no partial block to rebuild. */
	t_truncate(t, ino, BLOCK_BYTES);
	assert_int_equal(t_inode(t, ino).nblocks, 1);
	t_expect(t, ino, 0, sizeof(data), data, BLOCK_BYTES);
	c = t_counters(t);
	assert_int_equal(c.live_blocks, 2);
	assert_int_equal(c.unique_blocks, 2);
}

static void test_punch_drops_whole_blocks_zeroes_edges(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	static uint8_t shadow[8 * BLOCK_BYTES];

	for (int i = 0; i < 8; i++)
		t_pattern(shadow + i * BLOCK_BYTES, 60 + i);
	t_write(t, ino, 0, shadow, sizeof(shadow));
	uint64_t p2 = t_pblk_of(t, ino, 2), p3 = t_pblk_of(t, ino, 3);
	assert_int_equal(t_counters(t).live_blocks, 8);

	/* [1 block + 100, 4 blocks + 50): blocks 2 and 3 become holes,
	 * blocks 1 and 4 get zeroed edges. */
	uint64_t off = BLOCK_BYTES + 100, len = 3 * BLOCK_BYTES - 50;
	t_punch(t, ino, off, len);
	memset(shadow + off, 0, len);
	assert_int_equal(t_inode(t, ino).size, sizeof(shadow));
	assert_int_equal(t_pblk_of(t, ino, 2), 0);
	assert_int_equal(t_pblk_of(t, ino, 3), 0);
	assert_int_equal(t_refs(t, p2), 0);
	assert_int_equal(t_refs(t, p3), 0);
	struct ms_counters c = t_counters(t);
	assert_int_equal(c.live_blocks, 6);
	assert_int_equal(c.unique_blocks, 6);
	assert_int_equal(t_inode(t, ino).nblocks, 6);
	t_expect(t, ino, 0, sizeof(shadow), shadow, sizeof(shadow));

	/* Inside one block, not touching its edges. */
	t_punch(t, ino, 6 * BLOCK_BYTES + 10, 20);
	memset(shadow + 6 * BLOCK_BYTES + 10, 0, 20);
	t_expect(t, ino, 0, sizeof(shadow), shadow, sizeof(shadow));
	/* From a block's start, inside it. */
	t_punch(t, ino, 7 * BLOCK_BYTES, 30);
	memset(shadow + 7 * BLOCK_BYTES, 0, 30);
	t_expect(t, ino, 0, sizeof(shadow), shadow, sizeof(shadow));
	/* Past EOF: clipped, the size does not change. */
	t_punch(t, ino, 7 * BLOCK_BYTES + 4000, 10 * BLOCK_BYTES);
	memset(shadow + 7 * BLOCK_BYTES + 4000, 0, 96);
	assert_int_equal(t_inode(t, ino).size, sizeof(shadow));
	t_expect(t, ino, 0, sizeof(shadow) + BLOCK_BYTES, shadow,
		 sizeof(shadow));
	assert_int_equal(t_counters(t).live_blocks, 6);

	/* Whole shared blocks: the punched copies drop their refs only. */
	uint64_t ino2 = t_new_file(t);
	uint8_t p[BLOCK_BYTES], four[4 * BLOCK_BYTES];
	t_pattern(p, 99);
	for (int i = 0; i < 4; i++)
		memcpy(four + i * BLOCK_BYTES, p, BLOCK_BYTES);
	t_write(t, ino2, 0, four, sizeof(four));
	uint64_t pp = t_pblk_of(t, ino2, 0);
	assert_int_equal(t_refs(t, pp), 4);
	t_punch(t, ino2, BLOCK_BYTES, 2 * BLOCK_BYTES);
	assert_int_equal(t_refs(t, pp), 2);
	assert_int_equal(t_inode(t, ino2).nblocks, 2);
	memset(four + BLOCK_BYTES, 0, 2 * BLOCK_BYTES);
	t_expect(t, ino2, 0, sizeof(four), four, sizeof(four));
	c = t_counters(t);
	assert_int_equal(c.live_blocks, 8);
	assert_int_equal(c.unique_blocks, 7);
}

static void test_zero_blocks_become_holes(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	uint8_t zeros[2 * BLOCK_BYTES], blk[BLOCK_BYTES];

	memset(zeros, 0, sizeof(zeros));
	t_write(t, ino, 0, zeros, sizeof(zeros));
	struct ms_counters c = t_counters(t);
	assert_int_equal(c.live_blocks, 0);
	assert_int_equal(c.unique_blocks, 0);
	assert_int_equal(T_STAT(t, zero_blocks), 2);
	assert_int_equal(T_STAT(t, unique_writes), 0);
	assert_int_equal(t_inode(t, ino).size, 2 * BLOCK_BYTES);
	assert_int_equal(t_inode(t, ino).nblocks, 0);
	t_expect(t, ino, 0, sizeof(zeros), zeros, sizeof(zeros));

	/* A data block overwritten with zeros becomes a hole again. */
	t_pattern(blk, 5);
	t_write(t, ino, BLOCK_BYTES, blk, BLOCK_BYTES);
	uint64_t pb = t_pblk_of(t, ino, 1);
	assert_int_equal(t_counters(t).live_blocks, 1);
	t_write(t, ino, BLOCK_BYTES, zeros, BLOCK_BYTES);
	c = t_counters(t);
	assert_int_equal(c.live_blocks, 0);
	assert_int_equal(c.unique_blocks, 0);
	assert_int_equal(t_pblk_of(t, ino, 1), 0);
	assert_int_equal(t_refs(t, pb), 0);
	assert_int_equal(T_STAT(t, zero_blocks), 3);
	t_expect(t, ino, 0, sizeof(zeros), zeros, sizeof(zeros));

	/* Zeroing the only non-zero bytes of a block, unaligned. */
	t_write(t, ino, 100, "ab", 2);
	assert_int_equal(t_counters(t).live_blocks, 1);
	t_write(t, ino, 100, zeros, 2);
	assert_int_equal(t_counters(t).live_blocks, 0);
	assert_int_equal(t_counters(t).unique_blocks, 0);
	assert_int_equal(t_table_entries(t, MS_BMAP), 0);
	t_expect(t, ino, 0, sizeof(zeros), zeros, sizeof(zeros));
}

/* Delete everything: all blocks pending, nothing reused before a sync,
 * everything reused after it. */
static void test_delete_all_then_reuse_after_sync(void **state)
{
	struct t_ctx *t = *state;
	enum { N = 20 };
	uint64_t ino = t_new_file(t);
	static uint8_t data[N * BLOCK_BYTES];

	for (int i = 0; i < N; i++)
		t_pattern(data + i * BLOCK_BYTES, 100 + i);
	t_write(t, ino, 0, data, sizeof(data));
	struct ms_counters c = t_counters(t);
	assert_int_equal(c.unique_blocks, N);
	assert_int_equal(c.next_pblk, N + 1);

	t_truncate(t, ino, 0);
	c = t_counters(t);
	assert_int_equal(c.unique_blocks, 0);
	assert_int_equal(c.live_blocks, 0);
	assert_int_equal(c.logical_bytes, 0);
	assert_int_equal(t_inode(t, ino).nblocks, 0);
	assert_int_equal(t_table_entries(t, MS_PENDING), N);
	assert_int_equal(t_table_entries(t, MS_FREEMAP), 0);
	assert_int_equal(t_table_entries(t, MS_BLOCKS), 0);
	assert_int_equal(t_table_entries(t, MS_FPINDEX), 0);
	assert_int_equal(t_table_entries(t, MS_BMAP), 0);
	assert_int_equal(T_STAT(t, blocks_freed), N);

	/* Before a sync the freed blocks are off limits. */
	uint8_t blk[BLOCK_BYTES];
	t_pattern(blk, 500);
	uint64_t ino2 = t_new_file(t);
	t_write(t, ino2, 0, blk, BLOCK_BYTES);
	assert_int_equal(t_pblk_of(t, ino2, 0), N + 1);
	assert_int_equal(t_counters(t).next_pblk, N + 2);

	assert_int_equal(store_sync(t->fs.st), 0);
	assert_int_equal(t_table_entries(t, MS_PENDING), 0);
	assert_int_equal(t_table_entries(t, MS_FREEMAP), N);

	/* New contents take the freed blocks, lowest first; the high-water
	 * mark stays. */
	for (int i = 0; i < N; i++)
		t_pattern(data + i * BLOCK_BYTES, 200 + i);
	t_write(t, ino, 0, data, sizeof(data));
	c = t_counters(t);
	assert_int_equal(c.next_pblk, N + 2);
	assert_int_equal(c.unique_blocks, N + 1);
	assert_int_equal(t_table_entries(t, MS_FREEMAP), 0);
	for (int i = 0; i < N; i++)
		assert_int_equal(t_pblk_of(t, ino, (uint64_t)i),
				 (uint64_t)i + 1);
	t_expect(t, ino, 0, sizeof(data), data, sizeof(data));
	t_expect(t, ino2, 0, BLOCK_BYTES, blk, BLOCK_BYTES);
}

/* Flip one byte of @pblk in the backing store, behind the data path. */
static void t_corrupt(struct t_ctx *t, uint64_t pblk, size_t at)
{
	char path[256];
	uint8_t b;

	/* pblk n lives in chunk n / BACKING_CHUNK_BLOCKS at
	 * (n % BACKING_CHUNK_BLOCKS) * 4096 (tiers/backing.h). */
	assert_true(pblk < BACKING_CHUNK_BLOCKS);
	snprintf(path, sizeof(path), "%s/data/chunk-000000", t->dir);
	int fd = open(path, O_RDWR);
	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	off_t pos = (off_t)(pblk * BLOCK_BYTES + at);
	assert_int_equal(pread(fd, &b, 1, pos), 1);
	b ^= 0x01;
	assert_int_equal(pwrite(fd, &b, 1, pos), 1);
	close(fd);
}

static void test_checksum_mismatch_is_eio(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	uint8_t data[3 * BLOCK_BYTES], buf[3 * BLOCK_BYTES];
	size_t got;

	for (int i = 0; i < 3; i++)
		t_pattern(data + i * BLOCK_BYTES, 30 + i);
	t_write(t, ino, 0, data, sizeof(data));
	/* A fresh store: the three blocks are pblks 1, 2, 3. */
	for (uint64_t l = 0; l < 3; l++)
		assert_int_equal(t_pblk_of(t, ino, l), l + 1);
	t_expect(t, ino, 0, sizeof(data), data, sizeof(data));

	t_corrupt(t, t_pblk_of(t, ino, 1), 123);

	got = 77;
	assert_int_equal(
	    datapath_read(t->fs.st, ino, BLOCK_BYTES, BLOCK_BYTES, buf, &got),
	    -EIO);
	assert_int_equal(got, 0);
	assert_int_equal(T_STAT(t, checksum_errors), 1);

	/* The other blocks read fine and count nothing. */
	t_expect(t, ino, 0, BLOCK_BYTES, data, BLOCK_BYTES);
	t_expect(t, ino, 2 * BLOCK_BYTES, BLOCK_BYTES, data + 2 * BLOCK_BYTES,
		 BLOCK_BYTES);
	t_expect(t, ino, 100, BLOCK_BYTES - 200, data + 100, BLOCK_BYTES - 200);
	assert_int_equal(T_STAT(t, checksum_errors), 1);

	/* Any read touching the bad block fails, unaligned ones too. */
	got = 77;
	assert_int_equal(
	    datapath_read(t->fs.st, ino, BLOCK_BYTES - 1, 2, buf, &got), -EIO);
	assert_int_equal(got, 0);
	assert_int_equal(T_STAT(t, checksum_errors), 2);

	/* A partial write into the bad block cannot launder it: its
	 * read-modify-write fails too, and the map is unchanged. */
	bool drop_setid = false;
	assert_int_equal(datapath_write(t->fs.st, ino, BLOCK_BYTES + 10, "x", 1,
					&drop_setid, NULL),
			 -EIO);
	assert_int_equal(T_STAT(t, checksum_errors), 3);
	assert_int_equal(t_pblk_of(t, ino, 1), 2);

	/* A whole-block overwrite replaces it: readable again. */
	t_write(t, ino, BLOCK_BYTES, data + BLOCK_BYTES, BLOCK_BYTES);
	t_expect(t, ino, 0, sizeof(data), data, sizeof(data));
}

/* Verify-on-match with the SHAttered blocks: same SHA-1, other bytes, so
 * they must be stored apart. */
static void test_verify_keeps_collisions_apart(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	uint8_t a[BLOCK_BYTES], b[BLOCK_BYTES];

	t_read_data_file("block-a.bin", a);
	t_read_data_file("block-b.bin", b);
	assert_memory_not_equal(a, b, BLOCK_BYTES);

	t_write(t, ino, 0, a, BLOCK_BYTES);
	t_write(t, ino, 5 * BLOCK_BYTES, b, BLOCK_BYTES);
	t_expect(t, ino, 0, BLOCK_BYTES, a, BLOCK_BYTES);
	t_expect(t, ino, 5 * BLOCK_BYTES, BLOCK_BYTES, b, BLOCK_BYTES);
	assert_true(T_STAT(t, verify_mismatches) >= 1);
	assert_int_equal(T_STAT(t, duplicate_hits), 0);
	struct ms_counters c = t_counters(t);
	assert_int_equal(c.unique_blocks, 2);
	assert_int_equal(c.live_blocks, 2);

	/* More copies of each dedupe against the right twin. */
	t_write(t, ino, 9 * BLOCK_BYTES, a, BLOCK_BYTES);
	t_write(t, ino, 10 * BLOCK_BYTES, b, BLOCK_BYTES);
	assert_int_equal(t_pblk_of(t, ino, 9), t_pblk_of(t, ino, 0));
	assert_int_equal(t_pblk_of(t, ino, 10), t_pblk_of(t, ino, 5));
	assert_int_equal(T_STAT(t, duplicate_hits), 2);
	assert_int_equal(t_counters(t).unique_blocks, 2);

	/* Both in one write (the twin is still in the write batch). */
	uint64_t ino2 = t_new_file(t);
	uint8_t ab[2 * BLOCK_BYTES];
	memcpy(ab, b, BLOCK_BYTES);
	memcpy(ab + BLOCK_BYTES, a, BLOCK_BYTES);
	t_write(t, ino2, 0, ab, sizeof(ab));
	t_expect(t, ino2, 0, sizeof(ab), ab, sizeof(ab));

	/* One overwriting the other. */
	t_write(t, ino, 0, b, BLOCK_BYTES);
	t_expect(t, ino, 0, BLOCK_BYTES, b, BLOCK_BYTES);
	t_expect(t, ino, 9 * BLOCK_BYTES, BLOCK_BYTES, a, BLOCK_BYTES);
	t_expect(t, ino, 5 * BLOCK_BYTES, BLOCK_BYTES, b, BLOCK_BYTES);
	t_expect(t, ino, 10 * BLOCK_BYTES, BLOCK_BYTES, b, BLOCK_BYTES);
	assert_int_equal(t_counters(t).unique_blocks, 2);
}

/* With verify-on-match off the fingerprint is trusted: block-b dedupes
 * against block-a and reads back as block-a. This pins the documented risk
 * of --verify=off, not a behaviour anyone wants. */
static void test_noverify_trusts_sha1(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	uint8_t a[BLOCK_BYTES], b[BLOCK_BYTES];

	t_read_data_file("block-a.bin", a);
	t_read_data_file("block-b.bin", b);

	t_write(t, ino, 0, a, BLOCK_BYTES);
	t_write(t, ino, 5 * BLOCK_BYTES, b, BLOCK_BYTES);
	struct ms_counters c = t_counters(t);
	assert_int_equal(c.unique_blocks, 1);
	assert_int_equal(c.live_blocks, 2);
	assert_int_equal(T_STAT(t, duplicate_hits), 1);
	assert_int_equal(T_STAT(t, verify_reads), 0);
	assert_int_equal(t_pblk_of(t, ino, 5), t_pblk_of(t, ino, 0));
	t_expect(t, ino, 0, BLOCK_BYTES, a, BLOCK_BYTES);
	t_expect(t, ino, 5 * BLOCK_BYTES, BLOCK_BYTES, a,
		 BLOCK_BYTES); /* not b: the risk */
}

/* Regression: a truncate or punch of more blocks than one transaction
 * drops (4 extents of 64) must still drop every one of them, and leave no
 * orphan record behind once done. */
static bool t_is_orphan(struct t_ctx *t, uint64_t ino)
{
	MDB_txn *txn;
	MDB_val k = {sizeof(ino), &ino}, v;
	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	int rc =
	    mdb_get(txn, metastore_dbi(store_ms(t->fs.st), MS_ORPHANS), &k, &v);
	metastore_txn_abort(txn);
	return rc == 0;
}

static void test_big_truncate_and_punch_span_transactions(void **state)
{
	struct t_ctx *t = *state;
	const unsigned nblk = 10 * 64 + 7; /* more than 2 batches */
	uint8_t *buf = malloc((size_t)nblk * BLOCK_BYTES);
	assert_non_null(buf);
	for (unsigned i = 0; i < nblk; i++)
		t_pattern(buf + (size_t)i * BLOCK_BYTES, i + 1);
	uint64_t a = t_new_file(t), b = t_new_file(t);
	t_write(t, a, 0, buf, (size_t)nblk * BLOCK_BYTES);
	t_write(t, b, 0, buf, (size_t)nblk * BLOCK_BYTES);
	assert_int_equal(t_counters(t).live_blocks, 2 * nblk);

	t_truncate(t, a, 5); /* 5 bytes: one block stays */
	assert_int_equal(t_counters(t).live_blocks, nblk + 1);
	assert_false(t_is_orphan(t, a));
	t_expect(t, a, 0, BLOCK_BYTES, buf, 5); /* short: the file is 5 bytes */

	t_punch(t, b, BLOCK_BYTES, (uint64_t)(nblk - 2) * BLOCK_BYTES);
	assert_int_equal(t_counters(t).live_blocks, 1 + 2);
	t_expect(t, b, 0, BLOCK_BYTES, buf, BLOCK_BYTES);
	t_expect(t, b, (uint64_t)(nblk - 1) * BLOCK_BYTES, BLOCK_BYTES,
		 buf + (size_t)(nblk - 1) * BLOCK_BYTES, BLOCK_BYTES);
	uint8_t *zeros = calloc(nblk - 2, BLOCK_BYTES);
	assert_non_null(zeros);
	t_expect(t, b, BLOCK_BYTES, (size_t)(nblk - 2) * BLOCK_BYTES, zeros,
		 (size_t)(nblk - 2) * BLOCK_BYTES);
	free(zeros);
	/* b's first and last blocks, and a's first block cut to 5 bytes. */
	assert_int_equal(t_counters(t).unique_blocks, 3);
	free(buf);
}

/* A write prepared (its whole blocks hashed) before the inode lock is
 * taken completes its partial edge blocks at commit, from what they hold
 * then: a write that lands in between is not undone by stale edges. */
static void test_prepared_write_completes_edges_at_commit(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	static uint8_t a[3 * BLOCK_BYTES], b[2 * BLOCK_BYTES + 200],
	    c[3 * BLOCK_BYTES], want[3 * BLOCK_BYTES];
	memset(a, 'A', sizeof(a));
	memset(b, 'B', sizeof(b));
	memset(c, 'C', sizeof(c));
	t_write(t, ino, 0, a, sizeof(a));

	/* head partial (block 0), one whole block, tail partial (block 2) */
	struct dp_write w;
	assert_int_equal(datapath_write_prep(&w, 100, b, 2 * BLOCK_BYTES), 0);
	assert_int_equal(w.n, 3);
	t_write(t, ino, 0, c, sizeof(c)); /* lands between prep and commit */
	bool setid = false;
	assert_int_equal(datapath_write_commit(t->fs.st, &w, ino, &setid, NULL),
			 0);
	datapath_write_free(&w);

	memcpy(want, c, sizeof(want));
	memset(want + 100, 'B', 2 * BLOCK_BYTES);
	t_expect(t, ino, 0, sizeof(want), want, sizeof(want));
	/* the whole block hashed at prep deduped against nothing stale */
	uint8_t whole[BLOCK_BYTES];
	memset(whole, 'B', BLOCK_BYTES);
	t_write(t, ino, 4 * BLOCK_BYTES, whole, BLOCK_BYTES);
	assert_int_equal(t_pblk_of(t, ino, 4), t_pblk_of(t, ino, 1));
}

/* The one block-map codec (store/blockmap.h): what it encodes decodes back,
 * a record of the wrong size or with any byte of key or value flipped is
 * refused, and a written file's extent
 * reads through it as the map the independent t_pblk_of sees. */
static void test_blockmap_codec(void **state)
{
	struct t_ctx *t = *state;
	uint64_t pblk[BMAP_EXTENT_BLOCKS] = {0}, back[BMAP_EXTENT_BLOCKS];
	pblk[0] = 1;
	pblk[5] = (1ull << 40) - 1;
	pblk[BMAP_EXTENT_BLOCKS - 1] = 77;
	uint8_t kb[BLOCKMAP_KEY_LEN], vb[MS_BMAP_VALUE_LEN];
	blockmap_key_encode(kb, 0x0102030405060708ull, 9);
	blockmap_value_encode(kb, pblk, vb);
	MDB_val k = {sizeof(kb), kb}, v = {sizeof(vb), vb};
	uint64_t ino, idx;
	assert_int_equal(blockmap_decode(&k, &v, &ino, &idx, back), 0);
	assert_int_equal(ino, 0x0102030405060708ull);
	assert_int_equal(idx, 9);
	assert_memory_equal(back, pblk, sizeof(pblk));
	MDB_val short_k = {sizeof(kb) - 1, kb}, short_v = {sizeof(vb) - 1, vb};
	assert_int_equal(blockmap_decode(&short_k, &v, &ino, &idx, back), -EIO);
	assert_int_equal(blockmap_decode(&k, &short_v, &ino, &idx, back), -EIO);
	/* A flipped byte anywhere in the value or the key is refused. */
	for (size_t i = 0; i < sizeof(vb) + sizeof(kb); i++) {
		uint8_t *p = i < sizeof(vb) ? &vb[i] : &kb[i - sizeof(vb)];
		*p ^= 0x10;
		assert_int_equal(blockmap_decode(&k, &v, &ino, &idx, back),
				 -EIO);
		*p ^= 0x10;
	}
	assert_int_equal(blockmap_decode(&k, &v, &ino, &idx, back), 0);

	uint64_t f = t_new_file(t);
	uint8_t blk[BLOCK_BYTES];
	t_pattern(blk, 3);
	t_write(t, f, 70 * BLOCK_BYTES, blk, BLOCK_BYTES);
	MDB_txn *txn;
	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	assert_int_equal(blockmap_load(store_ms(t->fs.st), txn, f, 1, back), 0);
	assert_int_equal(back[70 - BMAP_EXTENT_BLOCKS], t_pblk_of(t, f, 70));
	assert_int_equal(blockmap_load(store_ms(t->fs.st), txn, f, 0, back),
			 -ENOENT);
	uint64_t idxs[4];
	assert_int_equal(
	    blockmap_find(store_ms(t->fs.st), txn, f, 0, UINT64_MAX, idxs, 4),
	    1);
	assert_int_equal(idxs[0], 1);
	metastore_txn_abort(txn);
}

/* ---- group commit (store/group_commit.h) -------------------------------- */

struct t_queued {
	struct dp_write w;
	struct array_io io;
	bool setid;
};

static void t_queue(struct t_ctx *t, struct t_queued *q, uint64_t ino,
		    uint64_t off, const void *buf, size_t len)
{
	memset(q, 0, sizeof(*q));
	assert_int_equal(datapath_write_prep(&q->w, off, buf, len), 0);
	assert_int_equal(
	    datapath_write_queue(t->fs.st, &q->w, ino, &q->setid, &q->io), 0);
}

/* Three writes queued before anyone waits commit as one group: two of
 * them store the same new block (in two files), which the group stores
 * once, with two refs; each write's report is its own. */
static void test_group_commit_one_transaction(void **state)
{
	struct t_ctx *t = *state;
	struct group_commit *g = &t->fs.st->gc;
	uint64_t f1 = t_new_file(t), f2 = t_new_file(t);
	uint8_t p[BLOCK_BYTES], q[BLOCK_BYTES];
	t_pattern(p, 61);
	t_pattern(q, 62);
	uint64_t groups0 = g->groups, entries0 = g->entries;
	struct t_queued a, b, c;
	t_queue(t, &a, f1, 0, p, BLOCK_BYTES);
	t_queue(t, &b, f2, 0, p, BLOCK_BYTES);
	t_queue(t, &c, f1, BLOCK_BYTES, q, BLOCK_BYTES);
	assert_int_equal(datapath_write_wait(&b.w), 0); /* leads all three */
	assert_true(a.w.gc.done && c.w.gc.done);
	assert_int_equal(datapath_write_wait(&a.w), 0);
	assert_int_equal(datapath_write_wait(&c.w), 0);
	assert_int_equal(g->groups - groups0, 1);
	assert_int_equal(g->entries - entries0, 3);
	assert_int_equal(a.io.blocks_stored, 1);
	assert_int_equal(b.io.blocks_deduped, 1);
	assert_int_equal(b.io.blocks_stored, 0);
	assert_int_equal(c.io.blocks_stored, 1);
	struct ms_counters cn = t_counters(t);
	assert_int_equal(cn.unique_blocks, 2);
	assert_int_equal(cn.live_blocks, 3);
	/* verified against the bytes the group is about to write, which
	 * no device read counts */
	assert_int_equal(T_STAT(t, verify_reads), 0);
	assert_int_equal(T_STAT(t, duplicate_hits), 1);
	uint64_t pp = t_pblk_of(t, f1, 0);
	assert_int_equal(t_pblk_of(t, f2, 0), pp);
	assert_int_equal(t_refs(t, pp), 2);
	assert_int_equal(t_inode(t, f1).size, 2 * BLOCK_BYTES);
	t_expect(t, f1, 0, BLOCK_BYTES, p, BLOCK_BYTES);
	t_expect(t, f1, BLOCK_BYTES, BLOCK_BYTES, q, BLOCK_BYTES);
	t_expect(t, f2, 0, BLOCK_BYTES, p, BLOCK_BYTES);
	datapath_write_free(&a.w);
	datapath_write_free(&b.w);
	datapath_write_free(&c.w);
}

/* One write of a group fails (a directory is no regular file): the group
 * is retried write by write, the failing one alone gets its error, and
 * nothing of the aborted group's transaction stays (no leaked block). */
static void test_group_commit_failure_is_one_writers(void **state)
{
	struct t_ctx *t = *state;
	struct group_commit *g = &t->fs.st->gc;
	uint64_t f1 = t_new_file(t), f2 = t_new_file(t);
	uint8_t p[BLOCK_BYTES], q[BLOCK_BYTES];
	t_pattern(p, 71);
	t_pattern(q, 72);
	uint64_t retried0 = g->retried;
	struct t_queued a, x, b;
	t_queue(t, &a, f1, 0, p, BLOCK_BYTES);
	t_queue(t, &x, 1 /* the root */, 0, q, BLOCK_BYTES);
	t_queue(t, &b, f2, 0, q, BLOCK_BYTES);
	assert_int_equal(datapath_write_wait(&a.w), 0);
	assert_int_equal(datapath_write_wait(&x.w), -EINVAL);
	assert_int_equal(datapath_write_wait(&b.w), 0);
	assert_int_equal(g->retried - retried0, 1);
	struct ms_counters cn = t_counters(t);
	assert_int_equal(cn.unique_blocks, 2);
	assert_int_equal(cn.live_blocks, 2);
	assert_int_equal(t_refs(t, t_pblk_of(t, f2, 0)), 1);
	t_expect(t, f1, 0, BLOCK_BYTES, p, BLOCK_BYTES);
	t_expect(t, f2, 0, BLOCK_BYTES, q, BLOCK_BYTES);
	datapath_write_free(&a.w);
	datapath_write_free(&x.w);
	datapath_write_free(&b.w);
}

/* Writers on threads, one file, each owning a byte range whose ends fall
 * inside blocks its neighbours write too, with the data lock discipline
 * of fs/ops_io.c's op_write: a write of whole blocks drops the lock once
 * queued, one with partial edges keeps it until its commit. Every edge
 * must see its neighbour's committed or queued bytes: the file ends equal
 * to the shadow. */
#define GC_THREADS 4
#define GC_SPAN 20000 /* bytes a thread owns: not a block multiple */
#define GC_WRITES 300

struct gc_writer {
	struct t_ctx *t;
	pthread_mutex_t *lock;
	uint64_t ino;
	unsigned id;
	uint8_t *shadow;
	int err;
};

static void *gc_writer_run(void *arg)
{
	struct gc_writer *wr = arg;
	uint64_t rng = 1000 + wr->id;
	uint64_t base = (uint64_t)wr->id * GC_SPAN;
	uint8_t buf[GC_SPAN];
	for (int i = 0; i < GC_WRITES && !wr->err; i++) {
		uint64_t off = prng_next(&rng) % GC_SPAN;
		size_t len = 1 + prng_next(&rng) % (GC_SPAN - off);
		if (i % 2) { /* aligned inside the range when it can be */
			uint64_t a = (base + off + BLOCK_BYTES - 1) /
				     BLOCK_BYTES * BLOCK_BYTES;
			if (a + BLOCK_BYTES <= base + GC_SPAN) {
				off = a - base;
				len = BLOCK_BYTES;
			}
		}
		memset(buf, 'a' + (wr->id * 7 + i) % 26, len);
		buf[0] = (uint8_t)('A' + i % 26);
		memcpy(wr->shadow + base + off, buf, len);
		struct dp_write w;
		bool setid = false;
		int r = datapath_write_prep(&w, base + off, buf, len);
		pthread_mutex_lock(wr->lock);
		if (!r)
			r = datapath_write_queue(wr->t->fs.st, &w, wr->ino,
						 &setid, NULL);
		bool held = !r && datapath_write_read_file(&w);
		if (!held)
			pthread_mutex_unlock(wr->lock);
		if (!r)
			r = datapath_write_wait(&w);
		if (held)
			pthread_mutex_unlock(wr->lock);
		datapath_write_free(&w);
		wr->err = r;
	}
	return NULL;
}

static void test_group_commit_threads_share_edges(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_new_file(t);
	static uint8_t shadow[GC_THREADS * GC_SPAN];
	memset(shadow, 0, sizeof(shadow));
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct gc_writer wr[GC_THREADS];
	pthread_t th[GC_THREADS];
	for (unsigned i = 0; i < GC_THREADS; i++) {
		wr[i] = (struct gc_writer){t, &lock, ino, i, shadow, 0};
		assert_int_equal(
		    pthread_create(&th[i], NULL, gc_writer_run, &wr[i]), 0);
	}
	for (unsigned i = 0; i < GC_THREADS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(wr[i].err, 0);
	}
	size_t end = sizeof(shadow);
	while (end && !shadow[end - 1])
		end--;
	t_expect(t, ino, 0, sizeof(shadow), shadow, t_inode(t, ino).size);
	assert_true(t_inode(t, ino).size >= end);
}

/* Large writes, whose whole blocks are hashed on the hashing pool
 * (dedupe/fingerprint_pool.h), from several threads at once, each to its
 * own file, unaligned: every byte reads back, and every block's
 * fingerprint was its own (a block equal to the file's first whole block
 * shares its physical block, a zero block is a hole, the others not). */
#define BIG_THREADS 3
#define BIG_BLOCKS 300 /* past the pool's threshold, not a chunk multiple */

struct big_writer {
	struct t_ctx *t;
	uint64_t ino;
	unsigned id;
	uint8_t *data;
	int err;
};

/* Logical block b of writer @id's file: a copy of block 1 every 5th,
 * zeros every 7th, else its own bytes. */
static void big_fill(uint8_t *data, unsigned id)
{
	uint64_t rng = 77 + id;
	for (size_t i = 0; i < (BIG_BLOCKS + 1) * BLOCK_BYTES; i += 8) {
		uint64_t x = prng_next(&rng);
		memcpy(data + i, &x, 8);
	}
	/* written at offset 100: logical block b is at b x 4096 - 100 */
	for (size_t b = 2; b < BIG_BLOCKS; b++) {
		uint8_t *blk = data + b * BLOCK_BYTES - 100;
		if (b % 7 == 0)
			memset(blk, 0, BLOCK_BYTES);
		else if (b % 5 == 0)
			memcpy(blk, data + BLOCK_BYTES - 100, BLOCK_BYTES);
	}
}

static void *big_writer_run(void *arg)
{
	struct big_writer *w = arg;
	bool setid = false;
	/* 100 bytes in: a partial head, BIG_BLOCKS - 1 whole, a tail */
	w->err = datapath_write(w->t->fs.st, w->ino, 100, w->data,
				BIG_BLOCKS * BLOCK_BYTES, &setid, NULL);
	return NULL;
}

static void test_large_writes_hashed_in_parallel(void **state)
{
	struct t_ctx *t = *state;
	struct big_writer w[BIG_THREADS];
	pthread_t th[BIG_THREADS];
	for (unsigned i = 0; i < BIG_THREADS; i++) {
		w[i] = (struct big_writer){
		    t, t_new_file(t), i, malloc((BIG_BLOCKS + 1) * BLOCK_BYTES),
		    0};
		assert_non_null(w[i].data);
		big_fill(w[i].data, i);
	}
	for (unsigned i = 0; i < BIG_THREADS; i++)
		assert_int_equal(
		    pthread_create(&th[i], NULL, big_writer_run, &w[i]), 0);
	for (unsigned i = 0; i < BIG_THREADS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(w[i].err, 0);
	}
	for (unsigned i = 0; i < BIG_THREADS; i++) {
		static uint8_t want[(BIG_BLOCKS + 1) * BLOCK_BYTES];
		memset(want, 0, 100);
		memcpy(want + 100, w[i].data, BIG_BLOCKS * BLOCK_BYTES);
		t_expect(t, w[i].ino, 0, sizeof(want), want,
			 100 + BIG_BLOCKS * BLOCK_BYTES);
		uint64_t first = t_pblk_of(t, w[i].ino, 1);
		for (uint64_t b = 2; b < BIG_BLOCKS; b++) {
			uint64_t p = t_pblk_of(t, w[i].ino, b);
			if (b % 7 == 0)
				assert_int_equal(p, 0);
			else if (b % 5 == 0)
				assert_int_equal(p, first);
			else
				assert_true(p && p != first);
		}
		free(w[i].data);
	}
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, t_setup, t_teardown)
	const struct CMUnitTest tests[] = {
	    T(test_random_writes_match_shadow),
	    T(test_large_writes_hashed_in_parallel),
	    T(test_big_truncate_and_punch_span_transactions),
	    T(test_random_ops_keep_invariants),
	    T(test_short_tail_and_eof),
	    T(test_unaligned_across_boundaries),
	    T(test_prepared_write_completes_edges_at_commit),
	    T(test_sparse_reads_zero_and_costs_nothing),
	    T(test_duplicates_share_blocks),
	    T(test_duplicates_within_one_write),
	    T(test_truncate_drops_refs_and_zeroes_tail),
	    T(test_punch_drops_whole_blocks_zeroes_edges),
	    T(test_zero_blocks_become_holes),
	    T(test_delete_all_then_reuse_after_sync),
	    T(test_checksum_mismatch_is_eio),
	    T(test_verify_keeps_collisions_apart),
	    T(test_blockmap_codec),
	    T(test_group_commit_one_transaction),
	    T(test_group_commit_failure_is_one_writers),
	    T(test_group_commit_threads_share_edges),
	    cmocka_unit_test_setup_teardown(test_noverify_trusts_sha1,
					    t_setup_noverify, t_teardown),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
