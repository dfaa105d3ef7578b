/* fsck: a small store built table by table is clean; each kind of damage,
 * made one at a time, gives exit status 1 and the line that names it.
 *
 * The store (struct t_store), written straight into the tables so the test
 * pins the on-disk format, not fs/'s code:
 *
 *   ino 1  /      dir, nlink 2, entry "f" at cookie 3
 *   ino 2  /f     regular, 3 blocks + 100 bytes: A B A, then block 3 = C
 *   pblk 1 = A (refs 2), pblk 2 = B (refs 1), pblk 3 = C (refs 1)
 *
 * The blocks go in through dedupe_block_new; damage is written with
 * t_block_put (a slot of an 80-slot `blocks` record), t_put_extent (a
 * bmap extent) and t_fp_item (an fpindex item: sha1[0..20) + 40-bit BE
 * pblk under one key).
 */
#include <errno.h>
#include <fcntl.h>
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
#include "dedupe/fingerprint.h"
#include "store/blockmap.h"
#include "store/namespace.h"
#include "dedupe/blocks.h"
#include "dedupe/csize.h"
#include "tiers/backing.h"
#include "tools/commands.h"
#include "tools/fsck.h"

#define FILE_INO 2
#define FILE_SIZE (4 * BLOCK_BYTES + 100)

/* tools/arraysim.c is not linked: keep the last error line instead. */
static char t_last_error[1024];

void tool_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t_last_error, sizeof(t_last_error), fmt, ap);
	va_end(ap);
}

struct t_store {
	char dir[64];
	struct metastore *ms;
	MDB_txn *txn;
	uint8_t data[3][BLOCK_BYTES]; /* A, B, C */
};

/* ---- building ------------------------------------------------------------ */

/* @v is a record's value before its seal; sealed tables get one
 * (fpindex items and bmap values come sealed from their encoders). */
static void t_put(struct t_store *s, enum ms_table t, const void *k,
		  size_t klen, const void *v, size_t vlen)
{
	MDB_val key = {klen, (void *)k};
	if (!ms_table_sealed(t) || t == MS_FPINDEX || t == MS_BMAP) {
		MDB_val val = {vlen, (void *)v};
		assert_int_equal(
		    mdb_put(s->txn, metastore_dbi(s->ms, t), &key, &val, 0), 0);
		return;
	}
	assert_int_equal(
	    metastore_put_sealed(s->ms, s->txn, t, &key, v, vlen, 0), 0);
}

static void t_del(struct t_store *s, enum ms_table t, const void *k,
		  size_t klen)
{
	MDB_val key = {klen, (void *)k};
	assert_int_equal(mdb_del(s->txn, metastore_dbi(s->ms, t), &key, NULL),
			 0);
}

/* Slot @pblk of its `blocks` record := @b. */
static void t_block_put(struct t_store *s, uint64_t pblk,
			const struct ms_block *b)
{
	struct ms_block rec[MS_BLOCK_EXTENT] = {{0}};
	uint64_t key = pblk / MS_BLOCK_EXTENT;
	MDB_val k = {sizeof(key), &key}, v;
	int rc = mdb_get(s->txn, metastore_dbi(s->ms, MS_BLOCKS), &k, &v);
	if (rc == 0) {
		assert_int_equal(v.mv_size, sizeof(rec) + MS_SEAL_LEN);
		memcpy(rec, v.mv_data, sizeof(rec));
	} else {
		assert_int_equal(rc, MDB_NOTFOUND);
	}
	rec[pblk % MS_BLOCK_EXTENT] = *b;
	t_put(s, MS_BLOCKS, &key, sizeof(key), rec, sizeof(rec));
}

/* Extent @idx of @ino's block map, as the data path stores it. */
static void t_put_extent(struct t_store *s, uint64_t ino, uint64_t idx,
			 const uint64_t ext[BMAP_EXTENT_BLOCKS])
{
	uint8_t k[BLOCKMAP_KEY_LEN], v[MS_BMAP_VALUE_LEN];
	blockmap_key_encode(k, ino, idx);
	blockmap_value_encode(k, ext, v);
	t_put(s, MS_BMAP, k, sizeof(k), v, sizeof(v));
}

/* The fpindex item naming @pblk under @sha1. */
static void t_fp_item(const uint8_t sha1[FINGERPRINT_SHA1_LEN], uint64_t pblk,
		      uint8_t item[MS_FP_ITEM_LEN])
{
	memcpy(item, sha1, MS_FP_SHA1_LEN);
	ms_put_pblk(item + MS_FP_SHA1_LEN, pblk);
	MDB_val k = {1, (uint8_t[]){0}};
	ms_seal(MS_FPINDEX, &k, item, MS_FP_ITEM_LEN);
}

/* fsck names an item's SHA-1 by the bytes the item keeps. */
static void t_item_hex(const uint8_t sha1[FINGERPRINT_SHA1_LEN], char hex[41])
{
	fingerprint_hex(sha1, hex);
	hex[2 * MS_FP_SHA1_LEN] = '\0';
}

/* The SHA-1 of data block @i (0 = A). */
static void t_sha1(struct t_store *s, unsigned i,
		   uint8_t sha1[FINGERPRINT_SHA1_LEN])
{
	struct fingerprint fp;
	assert_int_equal(fingerprint_block(s->data[i], &fp), 0);
	memcpy(sha1, fp.sha1, FINGERPRINT_SHA1_LEN);
}

static void t_open(struct t_store *s, bool create)
{
	char err[256];
	int r = metastore_open(s->dir, 1u << 24, create, false, &s->ms, err,
			       sizeof(err));
	if (r)
		fail_msg("metastore_open: %s", err);
	assert_int_equal(metastore_txn_begin(s->ms, true, &s->txn), 0);
}

static void t_close(struct t_store *s)
{
	assert_int_equal(metastore_txn_commit(s->txn), 0);
	metastore_close(s->ms);
	s->ms = NULL;
}

static void t_inode_put(struct t_store *s, uint64_t ino,
			const struct ms_inode *in)
{
	t_put(s, MS_INODES, &ino, sizeof(ino), in, sizeof(*in));
}

static void t_inode_get(struct t_store *s, uint64_t ino, struct ms_inode *in)
{
	MDB_val k = {sizeof(ino), &ino}, v;
	assert_int_equal(
	    mdb_get(s->txn, metastore_dbi(s->ms, MS_INODES), &k, &v), 0);
	memcpy(in, v.mv_data, sizeof(*in));
}

static void t_dirent(struct t_store *s, uint64_t parent, const char *name,
		     uint64_t ino, uint64_t cookie)
{
	uint8_t nk[8 + 256], ck[16], cv[8 + 256];
	size_t len = strlen(name);
	ms_put_be64(nk, parent);
	memcpy(nk + 8, name, len);
	struct ms_dirent_val d = {ino, cookie};
	t_put(s, MS_DIRNAMES, nk, 8 + len, &d, sizeof(d));
	ms_put_be64(ck, parent);
	ms_put_be64(ck + 8, cookie);
	memcpy(cv, &ino, 8);
	memcpy(cv + 8, name, len);
	t_put(s, MS_DIRCOOKIES, ck, 16, cv, 8 + len);
}

static void t_write_blocks(struct t_store *s)
{
	struct backing *b;
	char err[256];
	if (backing_open(s->dir, &b, err, sizeof(err)))
		fail_msg("backing_open: %s", err);
	struct backing_io io[3];
	for (unsigned i = 0; i < 3; i++)
		io[i] = (struct backing_io){i + 1, s->data[i]};
	struct backing_dev dev = backing_dev(b);
	assert_int_equal(dev.ops->write(dev.ctx, io, 3), 0);
	assert_int_equal(dev.ops->sync(dev.ctx), 0);
	backing_close(b);
}

/* Blocks A, B, C through the real allocator; the file maps A B A _ C. */
static void t_build_file(struct t_store *s, struct ms_counters *c)
{
	uint64_t pblk[3];
	for (unsigned i = 0; i < 3; i++) {
		memset(s->data[i], 'A' + i, BLOCK_BYTES);
		struct fingerprint fp;
		assert_int_equal(fingerprint_block(s->data[i], &fp), 0);
		assert_int_equal(
		    dedupe_block_new(s->ms, s->txn, c, &fp, &pblk[i]), 0);
		assert_int_equal(pblk[i], i + 1);
	}
	assert_int_equal(dedupe_block_ref(s->ms, s->txn, 1), 0);
	uint64_t ext[BMAP_EXTENT_BLOCKS] = {1, 2, 1, 0, 3};
	t_put_extent(s, FILE_INO, 0, ext);
	struct ms_inode f = {.mode = S_IFREG | 0644,
			     .nlink = 1,
			     .size = FILE_SIZE,
			     .nblocks = 4};
	t_inode_put(s, FILE_INO, &f);
	c->live_blocks = 4;
	c->logical_bytes = FILE_SIZE;
}

static int t_setup(void **state)
{
	struct t_store *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	strcpy(s->dir, "/tmp/test_fsck.XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	t_open(s, true);
	struct ms_counters c;
	assert_int_equal(metastore_counters_get(s->ms, s->txn, &c), 0);
	struct ms_inode root = {
	    .mode = S_IFDIR | 0755, .nlink = 2, .parent = 1, .next_cookie = 4};
	t_inode_put(s, 1, &root);
	t_dirent(s, 1, "f", FILE_INO, 3);
	t_build_file(s, &c);
	c.next_ino = 3;
	c.inodes = 2;
	assert_int_equal(metastore_counters_put(s->ms, s->txn, &c), 0);
	t_close(s);
	t_write_blocks(s);
	*state = s;
	return 0;
}

static int t_rm(const char *path, const struct stat *st, int flag,
		struct FTW *ftw)
{
	return remove(path);
}

static int t_teardown(void **state)
{
	struct t_store *s = *state;
	if (s->ms)
		metastore_close(s->ms);
	nftw(s->dir, t_rm, 16, FTW_DEPTH | FTW_PHYS);
	free(s);
	return 0;
}

/* ---- running ----------------------------------------------------------------
 */

/* fsck the store (@repair: fsck --repair); its output in *out (caller
 * frees). The problem count (left). */
static int t_fsck_run(struct t_store *s, bool repair, char **out)
{
	size_t len;
	FILE *f = open_memstream(out, &len);
	assert_non_null(f);
	int problems = -1;
	int r = fsck_run(s->dir, f, false, repair, &problems);
	fclose(f);
	if (r)
		fail_msg("fsck_run: %d: %s", r, t_last_error);
	return problems;
}

static int t_fsck(struct t_store *s, char **out)
{
	return t_fsck_run(s, false, out);
}

/* fsck finds exactly @want problems, one of them the line @line. */
static void t_expect(struct t_store *s, int want, const char *line)
{
	char *out;
	int problems = t_fsck(s, &out);
	bool found = !line;
	for (char *l = strtok(out, "\n"); l && !found; l = strtok(NULL, "\n"))
		found = !strcmp(l, line);
	if (problems != want || !found)
		fail_msg("want %d problems and \"%s\"; got %d:\n%s", want,
			 line ? line : "", problems, out);
	free(out);
}

static void t_edit_counters(struct t_store *s, size_t field, int64_t delta)
{
	struct ms_counters c;
	t_open(s, false);
	assert_int_equal(metastore_counters_get(s->ms, s->txn, &c), 0);
	*(uint64_t *)((char *)&c + field) += (uint64_t)delta;
	assert_int_equal(metastore_counters_put(s->ms, s->txn, &c), 0);
	t_close(s);
}

/* ---- tests ------------------------------------------------------------------
 */

static void test_clean(void **state)
{
	struct t_store *s = *state;
	char *out;
	assert_int_equal(t_fsck(s, &out), 0);
	assert_string_equal(out,
			    "fsck: 2 inodes, 3 unique blocks, 0 problems\n");
	free(out);
}

static void test_wrong_refcount(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	struct ms_block b;
	assert_int_equal(dedupe_block_get(s->ms, s->txn, 2, &b), 0);
	b.refs = 3;
	t_block_put(s, 2, &b);
	t_close(s);
	t_expect(s, 1, "block 2: refs 3, but 1 block-map entry points at it");
}

static void test_flipped_byte(void **state)
{
	struct t_store *s = *state;
	char path[128];
	snprintf(path, sizeof(path), "%s/data/chunk-000000", s->dir);
	int fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	uint8_t x = 'A' ^ 0x01;
	assert_int_equal(pwrite(fd, &x, 1, 1 * BLOCK_BYTES + 17), 1);
	close(fd);
	char line[160];
	snprintf(line, sizeof(line),
		 "block 1: checksum mismatch (xxh3 %016llx stored, ",
		 (unsigned long long)fingerprint_xxh3(s->data[0]));
	char *out;
	assert_int_equal(t_fsck(s, &out), 1);
	if (!strstr(out, line) ||
	    !strstr(out,
		    "block 1: referenced by ino 2 at offset 0 (block 0)\n") ||
	    !strstr(out, "block 1: referenced by ino 2 at offset 8192 "
			 "(block 2)\n"))
		fail_msg("missing lines in:\n%s", out);
	free(out);
}

static void test_leaked_block(void **state)
{
	struct t_store *s = *state;
	t_edit_counters(s, offsetof(struct ms_counters, next_pblk), 2);
	t_expect(s, 1,
		 "blocks 4-5: leaked (not in blocks, freemap or pending)");
}

static void test_free_block_in_use(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	uint64_t pblk = 3;
	t_put(s, MS_FREEMAP, &pblk, sizeof(pblk), "", 0);
	t_close(s);
	t_expect(s, 1,
		 "block 3: in freemap, but it has a block record "
		 "(refs in use)");
}

static void test_dirent_without_inode(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	struct ms_inode root;
	t_inode_get(s, 1, &root);
	t_dirent(s, 1, "ghost", 99, root.next_cookie++);
	t_inode_put(s, 1, &root);
	t_close(s);
	t_expect(s, 1,
		 "dirent 1/ghost: points at ino 99, which does not "
		 "exist");
}

static void test_dircookie_missing(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	uint8_t ck[16];
	ms_put_be64(ck, 1);
	ms_put_be64(ck + 8, 3);
	t_del(s, MS_DIRCOOKIES, ck, 16);
	t_close(s);
	t_expect(s, 1, "dirent 1/f: cookie 3 has no dircookies entry");
}

static void test_wrong_counters(void **state)
{
	struct t_store *s = *state;
	t_edit_counters(s, offsetof(struct ms_counters, live_blocks), 1);
	t_expect(s, 1, "counters: live_blocks is 5, but the tables hold 4");
}

static void test_map_past_size(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	struct ms_inode in;
	t_inode_get(s, FILE_INO, &in);
	in.size = 3 * BLOCK_BYTES; /* block 4 (C) now lies past EOF */
	t_inode_put(s, FILE_INO, &in);
	t_close(s);
	t_edit_counters(s, offsetof(struct ms_counters, logical_bytes),
			-(int64_t)(BLOCK_BYTES + 100));
	t_expect(s, 1,
		 "ino 2: 1 block-map entry past its size 12288 "
		 "(first at block 4)");
}

static void test_nlink(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	struct ms_inode in;
	t_inode_get(s, FILE_INO, &in);
	in.nlink = 2;
	t_inode_put(s, FILE_INO, &in);
	t_close(s);
	t_expect(s, 1, "ino 2: nlink 2, but 1 directory entry names it");
}

static void test_fpindex_wrong_block(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	uint8_t sb[FINGERPRINT_SHA1_LEN], sc[FINGERPRINT_SHA1_LEN];
	uint8_t item[MS_FP_ITEM_LEN];
	t_sha1(s, 1, sb);
	t_sha1(s, 2, sc);
	t_fp_item(sb, 3, item);
	t_put(s, MS_FPINDEX, (uint8_t[]){0}, 1, item, sizeof(item));
	t_close(s);
	char hb[41], hc[41], line[200];
	t_item_hex(sb, hb);
	fingerprint_hex(sc, hc);
	hc[8] = '\0';
	snprintf(line, sizeof(line),
		 "fpindex %s: names block 3, whose SHA-1 begins %s", hb, hc);
	t_expect(s, 1, line);
}

/* A second item for block 2 under its 4-byte head but another tail: it
 * would outlive the block. */
static void test_fpindex_second_item(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	uint8_t sb[FINGERPRINT_SHA1_LEN], item[MS_FP_ITEM_LEN];
	t_sha1(s, 1, sb);
	sb[MS_FP_SHA1_LEN - 1] ^= 0xff;
	t_fp_item(sb, 2, item);
	t_put(s, MS_FPINDEX, (uint8_t[]){0}, 1, item, sizeof(item));
	t_close(s);
	char hex[41], line[200];
	t_item_hex(sb, hex);
	snprintf(line, sizeof(line),
		 "fpindex %s: names block 2, which another item names too",
		 hex);
	char *out;
	int problems = t_fsck(s, &out);
	/* The item sorts before or after the real one: either is named. */
	char hex0[41];
	uint8_t s0[FINGERPRINT_SHA1_LEN];
	t_sha1(s, 1, s0);
	t_item_hex(s0, hex0);
	char line0[200];
	snprintf(line0, sizeof(line0),
		 "fpindex %s: names block 2, which another item names too",
		 hex0);
	if (problems != 1 || (!strstr(out, line) && !strstr(out, line0)))
		fail_msg("want 1 problem, a second item; got %d:\n%s", problems,
			 out);
	free(out);
}

static void test_block_not_indexed(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	uint8_t sb[FINGERPRINT_SHA1_LEN], item[MS_FP_ITEM_LEN];
	t_sha1(s, 1, sb);
	t_fp_item(sb, 2, item);
	MDB_val k = {1, (uint8_t[]){0}}, v = {sizeof(item), item};
	assert_int_equal(
	    mdb_del(s->txn, metastore_dbi(s->ms, MS_FPINDEX), &k, &v), 0);
	t_close(s);
	char hex[41], line[200];
	fingerprint_hex(sb, hex);
	snprintf(line, sizeof(line),
		 "block 2: not in the fingerprint index under its SHA-1 %s "
		 "(never a dedupe target)",
		 hex);
	t_expect(s, 1, line);
}

/* A record whose slots are all free should have been deleted. */
static void test_empty_block_record(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	struct ms_counters c;
	assert_int_equal(metastore_counters_get(s->ms, s->txn, &c), 0);
	c.next_pblk = 2 * MS_BLOCK_EXTENT;
	struct ms_block rec[MS_BLOCK_EXTENT] = {{0}};
	uint64_t key = 1;
	t_put(s, MS_BLOCKS, &key, sizeof(key), rec, sizeof(rec));
	for (uint64_t p = 4; p < 2 * MS_BLOCK_EXTENT; p++)
		t_put(s, MS_FREEMAP, &p, sizeof(p), "", 0);
	assert_int_equal(metastore_counters_put(s->ms, s->txn, &c), 0);
	t_close(s);
	t_expect(s, 1,
		 "blocks: record 1 (blocks 80-159) holds only free "
		 "slots (empty records are deleted)");
}

/* Two blocks under one SHA-1 are a collision kept apart: legal only when
 * their bytes differ. Block 4 repeats A's bytes at the file's hole. */
static void test_missed_dedupe(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	struct ms_counters c;
	assert_int_equal(metastore_counters_get(s->ms, s->txn, &c), 0);
	struct fingerprint fp;
	assert_int_equal(fingerprint_block(s->data[0], &fp), 0);
	uint64_t pblk;
	assert_int_equal(dedupe_block_new(s->ms, s->txn, &c, &fp, &pblk), 0);
	assert_int_equal(pblk, 4);
	uint64_t ext[BMAP_EXTENT_BLOCKS] = {1, 2, 1, 4, 3};
	t_put_extent(s, FILE_INO, 0, ext);
	struct ms_inode in;
	t_inode_get(s, FILE_INO, &in);
	in.nblocks++;
	t_inode_put(s, FILE_INO, &in);
	c.live_blocks++;
	assert_int_equal(metastore_counters_put(s->ms, s->txn, &c), 0);
	t_close(s);
	struct backing *b;
	char err[256];
	if (backing_open(s->dir, &b, err, sizeof(err)))
		fail_msg("backing_open: %s", err);
	struct backing_io io = {4, s->data[0]};
	struct backing_dev dev = backing_dev(b);
	assert_int_equal(dev.ops->write(dev.ctx, &io, 1), 0);
	backing_close(b);
	char hex[41], line[200];
	t_item_hex(fp.sha1, hex);
	snprintf(line, sizeof(line),
		 "blocks 1 and 4: same bytes, both indexed under SHA-1 %s (a "
		 "missed dedupe)",
		 hex);
	t_expect(s, 1, line);
}

/* A store killed with an unlinked file open: legal, only an info line. */
/* Compressed sizes (dedupe/csize.h): on stored blocks, adding up to the
 * total, clean; a size on a block not stored, or a total that disagrees,
 * is a problem. */
static void test_compressed_sizes(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	assert_int_equal(dedupe_csize_set(s->ms, s->txn, 1, 1000), 0);
	assert_int_equal(dedupe_csize_set(s->ms, s->txn, 3, BLOCK_BYTES), 0);
	t_close(s);
	t_expect(s, 0, NULL);

	t_open(s, false);
	assert_int_equal(dedupe_csize_set(s->ms, s->txn, 7, 500), 0);
	t_close(s);
	t_expect(s, 1, "block 7: has a compressed size, but is not stored");

	/* A total that is not the sum (sealed, so only fsck sees it). */
	t_open(s, false);
	struct dedupe_csize_total t = {1000, 1};
	MDB_val k = {sizeof(DEDUPE_CSIZE_PREFIX "total") - 1,
		     DEDUPE_CSIZE_PREFIX "total"};
	assert_int_equal(
	    metastore_put_sealed(s->ms, s->txn, MS_META, &k, &t, sizeof(t), 0),
	    0);
	t_close(s);
	t_expect(s, 2,
		 "meta: compressed total 1000 bytes in 1 blocks, but the "
		 "sizes add up to 5596 in 3");
}

static void test_orphan_is_info(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	uint64_t ino = 3;
	struct ms_inode o = {.mode = S_IFREG | 0600};
	t_inode_put(s, ino, &o);
	t_put(s, MS_ORPHANS, &ino, sizeof(ino), "", 0);
	t_close(s);
	t_edit_counters(s, offsetof(struct ms_counters, inodes), 1);
	t_edit_counters(s, offsetof(struct ms_counters, next_ino), 1);
	t_expect(s, 0,
		 "info: ino 3: unlinked while open (an orphan of an "
		 "unclean stop); the next mount deletes it");
}

static void test_locked_store(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	int problems = -1;
	FILE *f = fopen("/dev/null", "w");
	assert_int_equal(fsck_run(s->dir, f, true, false, &problems), -EBUSY);
	fclose(f);
	assert_non_null(strstr(t_last_error, "is in use"));
	metastore_txn_abort(s->txn);
	metastore_close(s->ms);
	s->ms = NULL;
}

static int t_repair(struct t_store *s, char **out)
{
	return t_fsck_run(s, true, out);
}

static void t_want_line(const char *out, const char *line)
{
	if (!strstr(out, line))
		fail_msg("no \"%s\" in:\n%s", line, out);
}

/* A refcount is rebuilt from the block maps, and the counters with it. */
static void test_repair_refcount(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	struct ms_block b;
	assert_int_equal(dedupe_block_get(s->ms, s->txn, 2, &b), 0);
	b.refs = 3;
	t_block_put(s, 2, &b);
	t_close(s);
	t_edit_counters(s, offsetof(struct ms_counters, live_blocks), 1);
	char *out;
	assert_int_equal(t_repair(s, &out), 0);
	t_want_line(out, "repaired: block 2: refs 3 -> 1\n");
	t_want_line(out, "repaired: counters: rebuilt from the tables");
	free(out);
	t_expect(s, 0, NULL);
}

/* A block no map entry names is freed: unindexed, pending. */
static void test_repair_leak(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	uint64_t ext[BMAP_EXTENT_BLOCKS] = {0};
	ext[0] = 1, ext[1] = 2, ext[3] = 1; /* block 4 (C, pblk 3) unmapped */
	t_put_extent(s, FILE_INO, 0, ext);
	struct ms_inode in;
	t_inode_get(s, FILE_INO, &in);
	in.nblocks = 3;
	t_inode_put(s, FILE_INO, &in);
	t_close(s);
	char *out;
	int left = t_repair(s, &out);
	t_want_line(out, "repaired: block 3: refs 1 -> 0\n");
	if (left)
		fail_msg("%d problems left:\n%s", left, out);
	free(out);
	t_expect(s, 0, NULL);
}

/* A record whose seal fails is named, skipped, and cannot be repaired. */
static void test_damaged_record(void **state)
{
	struct t_store *s = *state;
	t_open(s, false);
	uint64_t ino = FILE_INO;
	MDB_val k = {sizeof(ino), &ino}, v;
	MDB_dbi dbi = metastore_dbi(s->ms, MS_INODES);
	assert_int_equal(mdb_get(s->txn, dbi, &k, &v), 0);
	uint8_t bad[sizeof(struct ms_inode) + MS_SEAL_LEN];
	assert_int_equal(v.mv_size, sizeof(bad));
	memcpy(bad, v.mv_data, sizeof(bad));
	bad[20] ^= 0x04; /* a byte of the size */
	MDB_val nv = {sizeof(bad), bad};
	assert_int_equal(mdb_put(s->txn, dbi, &k, &nv, 0), 0);
	struct ms_inode in;
	assert_int_equal(ns_inode_get(s->ms, s->txn, FILE_INO, &in), -EIO);
	assert_int_equal(metastore_damage_count(s->ms), 1);
	t_close(s);
	char *out;
	assert_true(t_fsck(s, &out) > 0);
	t_want_line(out, "inodes: record of inode 2 fails its checksum "
			 "(damaged)\n");
	free(out);
	assert_true(t_repair(s, &out) > 0);
	t_want_line(out, "cannot repair: inodes: record of inode 2 fails its "
			 "checksum (damaged)\n");
	free(out);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, t_setup, t_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_clean),
	    T(test_wrong_refcount),
	    T(test_flipped_byte),
	    T(test_leaked_block),
	    T(test_free_block_in_use),
	    T(test_dirent_without_inode),
	    T(test_dircookie_missing),
	    T(test_wrong_counters),
	    T(test_map_past_size),
	    T(test_nlink),
	    T(test_fpindex_wrong_block),
	    T(test_fpindex_second_item),
	    T(test_block_not_indexed),
	    T(test_empty_block_record),
	    T(test_missed_dedupe),
	    T(test_compressed_sizes),
	    T(test_orphan_is_info),
	    T(test_locked_store),
	    T(test_repair_refcount),
	    T(test_repair_leak),
	    T(test_damaged_record),
	};
	return cmocka_run_group_tests_name("fsck", tests, NULL, NULL);
}
