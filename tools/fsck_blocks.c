/* fsck of the block layer: block maps, refcounts, the fingerprint index,
 * free space and the bytes of every stored block.
 *
 * Every pblk in [1, next_pblk) must be in exactly one state:
 *
 *   state     table      refs (map entries)   fpindex
 *   --------  ---------  -------------------  ------------------------------
 *   used      blocks     == slot's refs > 0    one item (its sha1, pblk),
 *             (a slot)                         the sha1 of its bytes; other
 *                                              blocks under that sha1 (a
 *                                              collision) hold other bytes
 *   pending   pending    0                     -
 *   free      freemap    0                     -
 *   (none)    -          -                     "leaked"
 *
 * Bytes are checked in batches of FSCK_BATCH blocks through the backing
 * device, so adjacent blocks go out as one readv. A slot keeps only the
 * first 4 bytes of its SHA-1: the full one comes from hashing the bytes,
 * and is what the block's fpindex item must hold. A block with no usable
 * bytes (unreadable, damaged, zeros) is only checked to have an item
 * under those 4 bytes, the one freeing it will remove.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/block.h"
#include "dedupe/fingerprint.h"
#include "store/blockmap.h"
#include "dedupe/blocks.h"
#include "tools/commands.h"
#include "tools/fsck_i.h"

#define EXT BMAP_EXTENT_BLOCKS
#define FSCK_BATCH 256u

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

/* "1 block-map entry points", "2 block-map entries point" */
static const char *points(uint64_t n)
{
	return n == 1 ? "entry points" : "entries point";
}

static void mark_bad(struct fsck *f, uint64_t pblk)
{
	if (pblk < f->npblk) {
		f->state[pblk] |= FSCK_BAD;
		f->any_bad = true;
	}
}

/* ---- bmap ------------------------------------------------------------- */

/* Whose extent this is: a regular file, else the extent is reported. */
static struct fsck_inode *extent_owner(struct fsck *f, uint64_t ino,
				       uint64_t idx)
{
	struct fsck_inode *fi = fsck_inode(f, ino);
	if (!fi)
		fsck_problem(f,
			     "ino %llu: block-map extent %llu, but no such "
			     "inode",
			     ull(ino), ull(idx));
	else if (!S_ISREG(fi->in.mode))
		fsck_problem(f,
			     "ino %llu: block-map extent %llu, but it is "
			     "not a regular file (mode %o)",
			     ull(ino), ull(idx), fi->in.mode);
	else
		return fi;
	return NULL;
}

static int check_extent(struct fsck *f, const MDB_val *k, const MDB_val *v,
			void *ctx)
{
	uint64_t ino, idx, pblk[EXT];
	if (blockmap_decode(k, v, &ino, &idx, pblk)) {
		fsck_problem(f,
			     "bmap: record with a %zu-byte key and a "
			     "%zu-byte value (want %u and %u)",
			     k->mv_size, v->mv_size, BLOCKMAP_KEY_LEN,
			     MS_BMAP_VALUE_LEN);
		return 0;
	}
	struct fsck_inode *fi = extent_owner(f, ino, idx);
	uint64_t end = fi ? (fi->in.size + BLOCK_BYTES - 1) / BLOCK_BYTES : 0;
	unsigned mapped = 0, past_eof = 0;
	uint64_t first_past = 0;
	for (unsigned i = 0; i < EXT; i++) {
		if (!pblk[i])
			continue;
		uint64_t lblk = idx * EXT + i;
		mapped++;
		if (fi && lblk >= end && !past_eof++)
			first_past = lblk;
		if (pblk[i] >= f->npblk) {
			fsck_problem(f,
				     "ino %llu block %llu: points at block "
				     "%llu, past the allocator's end %llu",
				     ull(ino), ull(lblk), ull(pblk[i]),
				     ull(f->npblk));
			continue;
		}
		if (f->refs[pblk[i]] < UINT32_MAX)
			f->refs[pblk[i]]++;
	}
	if (!mapped)
		fsck_problem(f,
			     "ino %llu: block-map extent %llu holds only "
			     "holes (empty extents are deleted)",
			     ull(ino), ull(idx));
	/* Judged with the namespace: past the size is legal for an inode
	 * whose truncation was cut short (it is in orphans). */
	if (past_eof && !fi->past_eof)
		fi->first_past = first_past;
	if (fi)
		fi->past_eof += past_eof;
	if (fi)
		fi->mapped += mapped;
	f->map_entries += mapped;
	return 0;
}

int fsck_check_maps(struct fsck *f)
{
	return fsck_walk(f, MS_BMAP, check_extent, NULL);
}

/* ---- blocks: records, refs, index, bytes ----------------------------------
 */

struct block_scan {
	unsigned n;
	uint64_t pblk[FSCK_BATCH];
	struct ms_block rec[FSCK_BATCH];
	struct backing_io io[FSCK_BATCH];
	uint8_t *buf;	     /* FSCK_BATCH blocks */
	MDB_cursor *fpindex; /* for (sha1, pblk) lookups */
	int err;	     /* an LMDB failure inside a batch: -errno */
};

static void head_hex(const uint8_t head[4], char hex[9])
{
	snprintf(hex, 9, "%02x%02x%02x%02x", head[0], head[1], head[2],
		 head[3]);
}

static void check_refs(struct fsck *f, uint64_t pblk, const struct ms_block *b)
{
	uint32_t n = f->refs[pblk];
	if (n == 0)
		fsck_problem(f,
			     "block %llu: refs %u, but no block-map entry "
			     "points at it",
			     ull(pblk), b->refs);
	else if (n != b->refs)
		fsck_problem(f,
			     "block %llu: refs %u, but %u block-map %s at "
			     "it",
			     ull(pblk), b->refs, n, points(n));
}

static int fpindex_error(struct fsck *f, int rc)
{
	tool_error("store %s: table fpindex: %s", f->store, mdb_strerror(rc));
	return metastore_errno(rc);
}

/* Every block is indexed under the SHA-1 of its bytes (next to collision
 * twins): the item sha1 + pblk. */
static int check_indexed(struct fsck *f, struct block_scan *s, uint64_t pblk,
			 const uint8_t sha1[FINGERPRINT_SHA1_LEN])
{
	uint8_t item[MS_FP_ITEM_LEN];
	static const uint8_t fp_key = 0;
	memcpy(item, sha1, MS_FP_SHA1_LEN);
	ms_put_pblk(item + MS_FP_SHA1_LEN, pblk);
	MDB_val k = {1, (void *)&fp_key}, v = {sizeof(item), item};
	ms_seal(MS_FPINDEX, &k, item, sizeof(item));
	int rc = mdb_cursor_get(s->fpindex, &k, &v, MDB_GET_BOTH);
	if (rc == 0)
		return 0;
	if (rc != MDB_NOTFOUND)
		return fpindex_error(f, rc);
	char hex[41];
	fingerprint_hex(sha1, hex);
	fsck_problem(f,
		     "block %llu: not in the fingerprint index under its "
		     "SHA-1 %s (never a dedupe target)",
		     ull(pblk), hex);
	return 0;
}

/* A block whose bytes give no SHA-1 to look up (unreadable, damaged, all
 * zeros): is some item under its sha1_head naming it, as freeing it
 * needs? */
static int check_indexed_head(struct fsck *f, struct block_scan *s,
			      uint64_t pblk, const struct ms_block *b)
{
	uint8_t item[MS_FP_ITEM_LEN] = {0};
	static const uint8_t fp_key = 0;
	memcpy(item, b->sha1_head, 4);
	MDB_val k = {1, (void *)&fp_key}, v = {sizeof(item), item};
	int rc;
	for (rc = mdb_cursor_get(s->fpindex, &k, &v, MDB_GET_BOTH_RANGE);
	     rc == 0; rc = mdb_cursor_get(s->fpindex, &k, &v, MDB_NEXT_DUP)) {
		const uint8_t *it = v.mv_data;
		if (v.mv_size != MS_FP_ITEM_LEN || memcmp(it, b->sha1_head, 4))
			break;
		if (ms_get_pblk(it + MS_FP_SHA1_LEN) == pblk)
			return 0;
	}
	if (rc && rc != MDB_NOTFOUND)
		return fpindex_error(f, rc);
	char hex[9];
	head_hex(b->sha1_head, hex);
	fsck_problem(f,
		     "block %llu: not in the fingerprint index under its "
		     "SHA-1 head %s (cannot be freed)",
		     ull(pblk), hex);
	return 0;
}

/* One block's bytes against its record and its index item. */
static int check_bytes(struct fsck *f, struct block_scan *s, uint64_t pblk,
		       const struct ms_block *b, const uint8_t *data)
{
	struct fingerprint fp;
	if (fingerprint_block(data, &fp)) {
		fsck_problem(f, "block %llu: cannot fingerprint", ull(pblk));
		return check_indexed_head(f, s, pblk, b);
	}
	if (fp.zero) {
		fsck_warn(f,
			  "block %llu: all zeros, stored as a block (zero "
			  "blocks should be holes)",
			  ull(pblk));
		fp.xxh3 = fingerprint_xxh3(data);
	}
	if (fp.xxh3 != b->xxh3) {
		fsck_problem(f,
			     "block %llu: checksum mismatch (xxh3 %016llx "
			     "stored, %016llx read)",
			     ull(pblk), ull(b->xxh3), ull(fp.xxh3));
		mark_bad(f, pblk);
	} else if (!fp.zero &&
		   memcmp(fp.sha1, b->sha1_head, sizeof(b->sha1_head))) {
		char want[9], got[41];
		head_hex(b->sha1_head, want);
		fingerprint_hex(fp.sha1, got);
		fsck_problem(f,
			     "block %llu: SHA-1 mismatch (head %s stored, "
			     "%s read)",
			     ull(pblk), want, got);
		mark_bad(f, pblk);
	} else if (!fp.zero) {
		return check_indexed(f, s, pblk, fp.sha1);
	}
	return check_indexed_head(f, s, pblk, b);
}

/* Read the batch; when the device fails it, find the failing blocks one
 * by one, so one bad sector does not hide the rest. */
static int flush_batch(struct fsck *f, struct block_scan *s)
{
	for (unsigned i = 0; i < s->n; i++)
		s->io[i] = (struct backing_io){
		    s->pblk[i], s->buf + (size_t)i * BLOCK_BYTES};
	int r = s->n ? f->dev.ops->read(f->dev.ctx, s->io, s->n) : 0;
	int err = 0;
	for (unsigned i = 0; i < s->n && !err; i++) {
		int ri = r ? f->dev.ops->read(f->dev.ctx, &s->io[i], 1) : 0;
		if (ri) {
			fsck_problem(f, "block %llu: unreadable: %s",
				     ull(s->pblk[i]), strerror(-ri));
			mark_bad(f, s->pblk[i]);
			err = check_indexed_head(f, s, s->pblk[i], &s->rec[i]);
			continue;
		}
		err = check_bytes(f, s, s->pblk[i], &s->rec[i], s->io[i].buf);
	}
	s->n = 0;
	return err;
}

static int check_slot(struct fsck *f, struct block_scan *s, uint64_t pblk,
		      const struct ms_block *b)
{
	f->block_records++;
	if (pblk == 0 || pblk >= f->npblk) {
		fsck_problem(
		    f, "block %llu: has a block record, but is %s", ull(pblk),
		    pblk ? "past the allocator's end" : "the hole marker");
		return 0;
	}
	f->state[pblk] |= FSCK_USED;
	check_refs(f, pblk, b);
	s->pblk[s->n] = pblk;
	s->rec[s->n++] = *b;
	return s->n == FSCK_BATCH ? flush_batch(f, s) : 0;
}

/* One `blocks` record: MS_BLOCK_EXTENT slots, refs 0 = free. */
static int check_block_rec(struct fsck *f, const MDB_val *k, const MDB_val *v,
			   void *ctx)
{
	struct block_scan *s = ctx;
	const size_t want = MS_BLOCK_REC_LEN;
	uint64_t key;
	if (k->mv_size != sizeof(key) || v->mv_size != want) {
		fsck_problem(f,
			     "blocks: record with a %zu-byte key and a "
			     "%zu-byte value (want 8 and %zu)",
			     k->mv_size, v->mv_size, want);
		return 0;
	}
	memcpy(&key, k->mv_data, sizeof(key));
	unsigned used = 0;
	for (unsigned i = 0; i < MS_BLOCK_EXTENT; i++) {
		struct ms_block b;
		memcpy(&b, (const uint8_t *)v->mv_data + i * sizeof(b),
		       sizeof(b));
		if (!b.refs)
			continue;
		used++;
		int r = check_slot(f, s, key * MS_BLOCK_EXTENT + i, &b);
		if (r)
			return r;
	}
	if (!used)
		fsck_problem(f,
			     "blocks: record %llu (blocks %llu-%llu) holds "
			     "only free slots (empty records are deleted)",
			     ull(key), ull(key * MS_BLOCK_EXTENT),
			     ull(key * MS_BLOCK_EXTENT + MS_BLOCK_EXTENT - 1));
	return 0;
}

/* A map entry at a pblk with no record: its bytes are not protected. */
static void check_unrecorded(struct fsck *f)
{
	for (uint64_t p = 1; p < f->npblk; p++) {
		if (f->refs[p] && !(f->state[p] & FSCK_USED)) {
			fsck_problem(f,
				     "block %llu: %u block-map %s at it, "
				     "but it has no block record",
				     ull(p), f->refs[p], points(f->refs[p]));
			mark_bad(f, p);
		}
	}
}

int fsck_check_blocks(struct fsck *f)
{
	struct block_scan *s = calloc(1, sizeof(*s));
	uint8_t *buf =
	    aligned_alloc(BLOCK_BYTES, (size_t)FSCK_BATCH * BLOCK_BYTES);
	if (!s || !buf) {
		free(s);
		free(buf);
		tool_error("fsck: out of memory");
		return -ENOMEM;
	}
	/* Valgrind does not see io_uring fill the buffer: define it once. */
	memset(buf, 0, (size_t)FSCK_BATCH * BLOCK_BYTES);
	s->buf = buf;
	int r = metastore_errno(mdb_cursor_open(
	    f->txn, metastore_dbi(f->ms, MS_FPINDEX), &s->fpindex));
	if (r)
		tool_error("store %s: table fpindex: %s", f->store,
			   strerror(-r));
	if (!r)
		r = fsck_walk(f, MS_BLOCKS, check_block_rec, s);
	if (!r)
		r = flush_batch(f, s);
	if (!r)
		check_unrecorded(f);
	if (s->fpindex)
		mdb_cursor_close(s->fpindex);
	free(buf);
	free(s);
	return r;
}

/* ---- fpindex ------------------------------------------------------------- */

/* The blocks indexed under one SHA-1: more than one only after a
 * collision, and then their bytes must differ. */
struct fp_group {
	uint8_t sha1[FINGERPRINT_SHA1_LEN];
	uint64_t *pblk;
	size_t n, cap;
};

static void compare_group(struct fsck *f, const struct fp_group *g)
{
	uint8_t *buf =
	    calloc(g->n, BLOCK_BYTES); /* calloc: see fsck_check_blocks */
	struct backing_io *io = calloc(g->n, sizeof(*io));
	char hex[41];
	fingerprint_hex(g->sha1, hex);
	hex[2 * MS_FP_SHA1_LEN] = '\0';
	for (size_t i = 0; buf && io && i < g->n; i++)
		io[i] = (struct backing_io){g->pblk[i], buf + i * BLOCK_BYTES};
	/* Unreadable blocks are the data check's to report. */
	if (buf && io &&
	    f->dev.ops->read(f->dev.ctx, io, (unsigned)g->n) == 0) {
		for (size_t i = 0; i < g->n; i++)
			for (size_t j = i + 1; j < g->n; j++)
				if (!memcmp(buf + i * BLOCK_BYTES,
					    buf + j * BLOCK_BYTES, BLOCK_BYTES))
					fsck_problem(
					    f,
					    "blocks %llu and %llu: same "
					    "bytes, both indexed under "
					    "SHA-1 %s (a missed dedupe)",
					    ull(g->pblk[i]), ull(g->pblk[j]),
					    hex);
	}
	free(io);
	free(buf);
}

static int group_add(struct fp_group *g, uint64_t pblk)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 4;
		uint64_t *grown = realloc(g->pblk, cap * sizeof(*grown));
		if (!grown) {
			tool_error("fsck: out of memory");
			return -ENOMEM;
		}
		g->pblk = grown;
		g->cap = cap;
	}
	g->pblk[g->n++] = pblk;
	return 0;
}

/* One item: value sha1[0..16) + 40-bit pblk + seal, all under one key.
 * Items of one SHA-1 are adjacent (sorted), so a group is a run of them;
 * the SHA-1 is kept and shown to its first 16 bytes. */
static int check_fp_entry(struct fsck *f, const MDB_val *k, const MDB_val *v,
			  void *ctx)
{
	struct fp_group *g = ctx;
	if (k->mv_size != 1 || v->mv_size != MS_FP_ITEM_LEN) {
		fsck_problem(f,
			     "fpindex: record with a %zu-byte key and a "
			     "%zu-byte value (want 1 and %d)",
			     k->mv_size, v->mv_size, MS_FP_ITEM_LEN);
		return 0;
	}
	uint8_t sha1[FINGERPRINT_SHA1_LEN] = {0};
	memcpy(sha1, v->mv_data, MS_FP_SHA1_LEN);
	uint64_t pblk =
	    ms_get_pblk((const uint8_t *)v->mv_data + MS_FP_SHA1_LEN);
	char hex[41];
	fingerprint_hex(sha1, hex);
	hex[2 * MS_FP_SHA1_LEN] = '\0';
	if (memcmp(g->sha1, sha1, FINGERPRINT_SHA1_LEN)) {
		if (g->n > 1)
			compare_group(f, g);
		memcpy(g->sha1, sha1, FINGERPRINT_SHA1_LEN);
		g->n = 0;
	}
	struct ms_block b;
	if (pblk >= f->npblk || !(f->state[pblk] & FSCK_USED) ||
	    dedupe_block_get(f->ms, f->txn, pblk, &b)) {
		fsck_problem(f,
			     "fpindex %s: names block %llu, which has no "
			     "block record",
			     hex, ull(pblk));
		return 0;
	}
	if (memcmp(b.sha1_head, sha1, sizeof(b.sha1_head))) {
		char got[9];
		head_hex(b.sha1_head, got);
		fsck_problem(f,
			     "fpindex %s: names block %llu, whose SHA-1 "
			     "begins %s",
			     hex, ull(pblk), got);
		return 0;
	}
	/* The data pass found the item of the block's real SHA-1; a second
	 * one would outlive the block (freeing removes only one). */
	if (f->state[pblk] & FSCK_INDEXED)
		fsck_problem(f,
			     "fpindex %s: names block %llu, which another "
			     "item names too",
			     hex, ull(pblk));
	f->state[pblk] |= FSCK_INDEXED;
	return group_add(g, pblk);
}
int fsck_check_fpindex(struct fsck *f)
{
	struct fp_group g = {.n = 0};
	int r = fsck_walk(f, MS_FPINDEX, check_fp_entry, &g);
	if (!r && g.n > 1)
		compare_group(f, &g);
	free(g.pblk);
	return r;
}

/* ---- free space ------------------------------------------------------------
 */

static int check_free_entry(struct fsck *f, const MDB_val *k, const MDB_val *v,
			    void *ctx)
{
	const int bit = *(const int *)ctx;
	const char *table = bit == FSCK_FREE ? "freemap" : "pending";
	uint64_t pblk;
	if (k->mv_size != sizeof(pblk)) {
		fsck_problem(f, "%s: record with a %zu-byte key (want 8)",
			     table, k->mv_size);
		return 0;
	}
	memcpy(&pblk, k->mv_data, sizeof(pblk));
	if (pblk == 0 || pblk >= f->npblk) {
		fsck_problem(f, "block %llu: in %s, but %s", ull(pblk), table,
			     pblk ? "past the allocator's end"
				  : "it is the hole marker");
		return 0;
	}
	uint8_t st = f->state[pblk];
	if (st & FSCK_USED)
		fsck_problem(f,
			     "block %llu: in %s, but it has a block record "
			     "(refs in use)",
			     ull(pblk), table);
	if (bit == FSCK_PENDING && (st & FSCK_FREE))
		fsck_problem(f, "block %llu: in both freemap and pending",
			     ull(pblk));
	f->state[pblk] |= bit;
	return 0;
}

/* Unaccounted blocks, one line per run of them. */
static void report_leaks(struct fsck *f)
{
	uint64_t p = 1;
	while (p < f->npblk) {
		if (f->state[p] & (FSCK_USED | FSCK_FREE | FSCK_PENDING)) {
			p++;
			continue;
		}
		uint64_t first = p;
		while (p < f->npblk &&
		       !(f->state[p] & (FSCK_USED | FSCK_FREE | FSCK_PENDING)))
			p++;
		if (p - first == 1)
			fsck_problem(f,
				     "block %llu: leaked (not in blocks, "
				     "freemap or pending)",
				     ull(first));
		else
			fsck_problem(f,
				     "blocks %llu-%llu: leaked (not in "
				     "blocks, freemap or pending)",
				     ull(first), ull(p - 1));
	}
}

int fsck_check_free(struct fsck *f)
{
	int bit = FSCK_FREE;
	int r = fsck_walk(f, MS_FREEMAP, check_free_entry, &bit);
	bit = FSCK_PENDING;
	if (!r)
		r = fsck_walk(f, MS_PENDING, check_free_entry, &bit);
	if (!r)
		report_leaks(f);
	return r;
}

/* ---- who references the damaged blocks ------------------------------------
 */

static int list_refs(struct fsck *f, const MDB_val *k, const MDB_val *v,
		     void *ctx)
{
	uint64_t ino, idx, pblk[EXT];
	if (blockmap_decode(k, v, &ino, &idx, pblk))
		return 0;
	for (unsigned i = 0; i < EXT; i++) {
		if (!pblk[i] || pblk[i] >= f->npblk ||
		    !(f->state[pblk[i]] & FSCK_BAD))
			continue;
		uint64_t lblk = idx * EXT + i;
		fprintf(f->out,
			"block %llu: referenced by ino %llu at offset %llu "
			"(block %llu)\n",
			ull(pblk[i]), ull(ino), ull(lblk * BLOCK_BYTES),
			ull(lblk));
	}
	return 0;
}

/* A second bmap pass, only when some block is damaged: cheaper than
 * remembering a referrer for every block. */
int fsck_list_bad_refs(struct fsck *f)
{
	return f->any_bad ? fsck_walk(f, MS_BMAP, list_refs, NULL) : 0;
}
