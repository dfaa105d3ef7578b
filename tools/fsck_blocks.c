/* fsck of the block layer: block maps, refcounts, the fingerprint index,
 * free space and the bytes of every stored block.
 *
 * Every pblk in [1, next_pblk) must be in exactly one state:
 *
 *   state     table      refs (map entries)   fpindex
 *   --------  ---------  -------------------  ------------------------------
 *   used      blocks     == record's refs > 0  (its sha1, pblk) once; other
 *                                              blocks under that sha1 (a
 *                                              collision) hold other bytes
 *   pending   pending    0                     -
 *   free      freemap    0                     -
 *   (none)    -          -                     "leaked"
 *
 * Bytes are checked in batches of FSCK_BATCH blocks through the backing
 * device, so adjacent blocks go out as one readv.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dedupe/fingerprint.h"
#include "dedupe/index.h"
#include "tools/commands.h"
#include "tools/fsck_i.h"

#define BS MS_BLOCK_SIZE
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
		fsck_problem(f, "ino %llu: block-map extent %llu, but no such "
				"inode",
			     ull(ino), ull(idx));
	else if (!S_ISREG(fi->in.mode))
		fsck_problem(f, "ino %llu: block-map extent %llu, but it is "
				"not a regular file (mode %o)",
			     ull(ino), ull(idx), fi->in.mode);
	else
		return fi;
	return NULL;
}

static int check_extent(struct fsck *f, const MDB_val *k, const MDB_val *v,
			void *ctx)
{
	if (k->mv_size != 16 || v->mv_size != EXT * sizeof(uint64_t)) {
		fsck_problem(f, "bmap: record with a %zu-byte key and a "
				"%zu-byte value (want 16 and %zu)",
			     k->mv_size, v->mv_size, EXT * sizeof(uint64_t));
		return 0;
	}
	uint64_t ino = ms_get_be64(k->mv_data);
	uint64_t idx = ms_get_be64((const uint8_t *)k->mv_data + 8);
	uint64_t pblk[EXT];
	memcpy(pblk, v->mv_data, sizeof(pblk));
	struct fsck_inode *fi = extent_owner(f, ino, idx);
	uint64_t end = fi ? (fi->in.size + BS - 1) / BS : 0;
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
			fsck_problem(f, "ino %llu block %llu: points at block "
					"%llu, past the allocator's end %llu",
				     ull(ino), ull(lblk), ull(pblk[i]),
				     ull(f->npblk));
			continue;
		}
		if (f->refs[pblk[i]] < UINT32_MAX)
			f->refs[pblk[i]]++;
	}
	if (!mapped)
		fsck_problem(f, "ino %llu: block-map extent %llu holds only "
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

/* ---- blocks: records, refs, index, bytes ---------------------------------- */

struct block_scan {
	unsigned n;
	uint64_t pblk[FSCK_BATCH];
	struct ms_block rec[FSCK_BATCH];
	struct backing_io io[FSCK_BATCH];
	uint8_t *buf;        /* FSCK_BATCH blocks */
	MDB_cursor *fpindex; /* for (sha1, pblk) lookups */
};

static void check_refs(struct fsck *f, uint64_t pblk, const struct ms_block *b)
{
	uint32_t n = f->refs[pblk];
	if (b->refs == 0)
		fsck_problem(f, "block %llu: refs 0, but it has a block record "
				"(%u block-map %s at it)",
			     ull(pblk), n, points(n));
	else if (n == 0)
		fsck_problem(f, "block %llu: refs %u, but no block-map entry "
				"points at it",
			     ull(pblk), b->refs);
	else if (n != b->refs)
		fsck_problem(f, "block %llu: refs %u, but %u block-map %s at "
				"it",
			     ull(pblk), b->refs, n, points(n));
}

/* Every block is indexed under its SHA-1 (next to collision twins). */
static int check_indexed(struct fsck *f, struct block_scan *s, uint64_t pblk,
			 const struct ms_block *b)
{
	MDB_val k = {FINGERPRINT_SHA1_LEN, (void *)b->sha1};
	MDB_val v = {sizeof(pblk), &pblk};
	int rc = mdb_cursor_get(s->fpindex, &k, &v, MDB_GET_BOTH);
	if (rc == 0)
		return 0;
	if (rc != MDB_NOTFOUND) {
		tool_error("store %s: table fpindex: %s", f->store,
			   mdb_strerror(rc));
		return metastore_errno(rc);
	}
	char hex[41];
	fingerprint_hex(b->sha1, hex);
	fsck_problem(f, "block %llu: not in the fingerprint index under its "
			"SHA-1 %s (never a dedupe target)",
		     ull(pblk), hex);
	return 0;
}

/* One block's bytes against its record. */
static void check_bytes(struct fsck *f, uint64_t pblk,
			const struct ms_block *b, const uint8_t *data)
{
	struct fingerprint fp;
	if (fingerprint_block(data, &fp)) {
		fsck_problem(f, "block %llu: cannot fingerprint", ull(pblk));
		return;
	}
	if (fp.zero) {
		fsck_warn(f, "block %llu: all zeros, stored as a block (zero "
			     "blocks should be holes)",
			  ull(pblk));
		fp.xxh3 = fingerprint_xxh3(data);
	}
	if (fp.xxh3 != b->xxh3) {
		fsck_problem(f, "block %llu: checksum mismatch (xxh3 %016llx "
				"stored, %016llx read)",
			     ull(pblk), ull(b->xxh3), ull(fp.xxh3));
		mark_bad(f, pblk);
	} else if (!fp.zero && memcmp(fp.sha1, b->sha1, sizeof(fp.sha1))) {
		char want[41], got[41];
		fingerprint_hex(b->sha1, want);
		fingerprint_hex(fp.sha1, got);
		fsck_problem(f, "block %llu: SHA-1 mismatch (%s stored, %s "
				"read)",
			     ull(pblk), want, got);
		mark_bad(f, pblk);
	}
}

/* Read the batch; when the device fails it, find the failing blocks one
 * by one, so one bad sector does not hide the rest. */
static void flush_batch(struct fsck *f, struct block_scan *s)
{
	for (unsigned i = 0; i < s->n; i++)
		s->io[i] = (struct backing_io){s->pblk[i], s->buf + (size_t)i * BS};
	int r = s->n ? f->dev.ops->read(f->dev.ctx, s->io, s->n) : 0;
	for (unsigned i = 0; i < s->n; i++) {
		int ri = r ? f->dev.ops->read(f->dev.ctx, &s->io[i], 1) : 0;
		if (ri) {
			fsck_problem(f, "block %llu: unreadable: %s",
				     ull(s->pblk[i]), strerror(-ri));
			mark_bad(f, s->pblk[i]);
			continue;
		}
		check_bytes(f, s->pblk[i], &s->rec[i], s->io[i].buf);
	}
	s->n = 0;
}

static int check_block(struct fsck *f, const MDB_val *k, const MDB_val *v,
		       void *ctx)
{
	struct block_scan *s = ctx;
	uint64_t pblk;
	if (k->mv_size != sizeof(pblk) || v->mv_size != sizeof(struct ms_block)) {
		fsck_problem(f, "blocks: record with a %zu-byte key and a "
				"%zu-byte value (want 8 and %zu)",
			     k->mv_size, v->mv_size, sizeof(struct ms_block));
		return 0;
	}
	memcpy(&pblk, k->mv_data, sizeof(pblk));
	struct ms_block b;
	memcpy(&b, v->mv_data, sizeof(b));
	f->block_records++;
	if (pblk == 0 || pblk >= f->npblk) {
		fsck_problem(f, "block %llu: has a block record, but is %s",
			     ull(pblk), pblk ? "past the allocator's end"
					     : "the hole marker");
		return 0;
	}
	f->state[pblk] |= FSCK_USED;
	check_refs(f, pblk, &b);
	int r = check_indexed(f, s, pblk, &b);
	if (r)
		return r;
	s->pblk[s->n] = pblk;
	s->rec[s->n++] = b;
	if (s->n == FSCK_BATCH)
		flush_batch(f, s);
	return 0;
}

/* A map entry at a pblk with no record: its bytes are not protected. */
static void check_unrecorded(struct fsck *f)
{
	for (uint64_t p = 1; p < f->npblk; p++) {
		if (f->refs[p] && !(f->state[p] & FSCK_USED)) {
			fsck_problem(f, "block %llu: %u block-map %s at it, "
					"but it has no block record",
				     ull(p), f->refs[p], points(f->refs[p]));
			mark_bad(f, p);
		}
	}
}

int fsck_check_blocks(struct fsck *f)
{
	struct block_scan *s = calloc(1, sizeof(*s));
	uint8_t *buf = aligned_alloc(4096, (size_t)FSCK_BATCH * BS);
	if (!s || !buf) {
		free(s);
		free(buf);
		tool_error("fsck: out of memory");
		return -ENOMEM;
	}
	/* Valgrind does not see io_uring fill the buffer: define it once. */
	memset(buf, 0, (size_t)FSCK_BATCH * BS);
	s->buf = buf;
	int r = metastore_errno(mdb_cursor_open(
		f->txn, metastore_dbi(f->ms, MS_FPINDEX), &s->fpindex));
	if (r)
		tool_error("store %s: table fpindex: %s", f->store,
			   strerror(-r));
	if (!r)
		r = fsck_walk(f, MS_BLOCKS, check_block, s);
	if (!r)
		flush_batch(f, s);
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
	uint8_t *buf = calloc(g->n, BS); /* calloc: see fsck_check_blocks */
	struct backing_io *io = calloc(g->n, sizeof(*io));
	char hex[41];
	fingerprint_hex(g->sha1, hex);
	for (size_t i = 0; buf && io && i < g->n; i++)
		io[i] = (struct backing_io){g->pblk[i], buf + i * BS};
	/* Unreadable blocks are the data check's to report. */
	if (buf && io && f->dev.ops->read(f->dev.ctx, io, (unsigned)g->n) == 0) {
		for (size_t i = 0; i < g->n; i++)
			for (size_t j = i + 1; j < g->n; j++)
				if (!memcmp(buf + i * BS, buf + j * BS, BS))
					fsck_problem(
						f,
						"blocks %llu and %llu: same "
						"bytes, both indexed under "
						"SHA-1 %s (a missed dedupe)",
						ull(g->pblk[i]),
						ull(g->pblk[j]), hex);
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

static int check_fp_entry(struct fsck *f, const MDB_val *k, const MDB_val *v,
			  void *ctx)
{
	struct fp_group *g = ctx;
	char hex[41] = "?";
	uint64_t pblk;
	if (k->mv_size == FINGERPRINT_SHA1_LEN)
		fingerprint_hex(k->mv_data, hex);
	if (k->mv_size != FINGERPRINT_SHA1_LEN || v->mv_size != sizeof(pblk)) {
		fsck_problem(f, "fpindex %s: record with a %zu-byte key and a "
				"%zu-byte value (want 20 and 8)",
			     hex, k->mv_size, v->mv_size);
		return 0;
	}
	if (memcmp(g->sha1, k->mv_data, FINGERPRINT_SHA1_LEN)) {
		if (g->n > 1)
			compare_group(f, g);
		memcpy(g->sha1, k->mv_data, FINGERPRINT_SHA1_LEN);
		g->n = 0;
	}
	memcpy(&pblk, v->mv_data, sizeof(pblk));
	struct ms_block b;
	if (pblk >= f->npblk || !(f->state[pblk] & FSCK_USED) ||
	    dedupe_block_get(f->ms, f->txn, pblk, &b)) {
		fsck_problem(f, "fpindex %s: names block %llu, which has no "
				"block record",
			     hex, ull(pblk));
		return 0;
	}
	if (memcmp(b.sha1, k->mv_data, FINGERPRINT_SHA1_LEN)) {
		char got[41];
		fingerprint_hex(b.sha1, got);
		fsck_problem(f, "fpindex %s: names block %llu, whose SHA-1 is "
				"%s",
			     hex, ull(pblk), got);
		return 0;
	}
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

/* ---- free space ------------------------------------------------------------ */

static int check_free_entry(struct fsck *f, const MDB_val *k,
			    const MDB_val *v, void *ctx)
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
		fsck_problem(f, "block %llu: in %s, but it has a block record "
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
			fsck_problem(f, "block %llu: leaked (not in blocks, "
					"freemap or pending)",
				     ull(first));
		else
			fsck_problem(f, "blocks %llu-%llu: leaked (not in "
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

/* ---- who references the damaged blocks ------------------------------------ */

static int list_refs(struct fsck *f, const MDB_val *k, const MDB_val *v,
		     void *ctx)
{
	if (k->mv_size != 16 || v->mv_size != EXT * sizeof(uint64_t))
		return 0;
	uint64_t ino = ms_get_be64(k->mv_data);
	uint64_t idx = ms_get_be64((const uint8_t *)k->mv_data + 8);
	uint64_t pblk[EXT];
	memcpy(pblk, v->mv_data, sizeof(pblk));
	for (unsigned i = 0; i < EXT; i++) {
		if (!pblk[i] || pblk[i] >= f->npblk ||
		    !(f->state[pblk[i]] & FSCK_BAD))
			continue;
		uint64_t lblk = idx * EXT + i;
		fprintf(f->out,
			"block %llu: referenced by ino %llu at offset %llu "
			"(block %llu)\n",
			ull(pblk[i]), ull(ino), ull(lblk * BS), ull(lblk));
	}
	return 0;
}

/* A second bmap pass, only when some block is damaged: cheaper than
 * remembering a referrer for every block. */
int fsck_list_bad_refs(struct fsck *f)
{
	return f->any_bad ? fsck_walk(f, MS_BMAP, list_refs, NULL) : 0;
}
