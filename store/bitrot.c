/* Bit rot on purpose: corrupt stored blocks in place, as a failing medium
 * would, leaving their recorded checksums alone so that reads detect it.
 * Then report the loss the way dedupe makes it: every file and offset
 * that references a corrupted block, which can be many files for one
 * block.
 *
 * Where the array profile keeps redundancy for a block (a mirror or
 * parity of its stripe still standing: model_block_repairable), the array
 * rebuilds it for each read (counted in repaired_reads) and nothing is
 * lost; otherwise a read of it is EIO, counted in checksum_errors. The
 * parity itself is not stored: what it would rebuild is the block as it
 * was, and the fault knows the damage it did (the first byte inverted),
 * so the rebuild undoes that and must then match the block's recorded
 * checksum. A block damaged any other way is never "repaired" into wrong
 * bytes. The stored copy stays damaged (there is no scrub), so fsck still
 * reports it.
 *
 * The loss report scans the block maps and the directory entries; it is
 * meant for stores the size of a test or a rehearsal, not for a scan of a
 * production-sized array on every injection.
 */
#include "store/bitrot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/block.h"
#include "common/prng.h"
#include "dedupe/fingerprint.h"
#include "dedupe/index.h"
#include "faults/faults.h"
#include "store/blockmap.h"
#include "store/namespace.h"
#include "store/store_i.h"

#define MAX_BLOCKS 4096 /* one injection corrupts at most this many */

#define ROT_MASK 0xff /* what corrupt_block() does to byte 0 */

/* Flip every bit of the block's first byte: any checksum notices. */
static int corrupt_block(struct store *st, uint64_t pblk)
{
	uint8_t *buf = aligned_alloc(BLOCK_BYTES, BLOCK_BYTES);
	if (!buf)
		return -ENOMEM;
	struct backing_io io = {pblk, buf};
	int r = st->dev.ops->read(st->dev.ctx, &io, 1);
	if (!r) {
		buf[0] ^= ROT_MASK;
		r = st->dev.ops->write(st->dev.ctx, &io, 1);
	}
	free(buf);
	return r;
}

bool bitrot_undo_injected(struct store *st, uint64_t pblk, uint8_t *buf,
			  uint64_t xxh3)
{
	if (!st->array || !array_block_repairable(st->array, pblk))
		return false;
	buf[0] ^= ROT_MASK;
	if (fingerprint_xxh3(buf) == xxh3) {
		atomic_fetch_add_explicit(&st->stats->dedupe.repaired_reads, 1,
					  memory_order_relaxed);
		return true;
	}
	buf[0] ^= ROT_MASK;
	return false;
}

static bool chosen(const uint64_t *p, unsigned n, uint64_t pblk)
{
	for (unsigned i = 0; i < n; i++)
		if (p[i] == pblk)
			return true;
	return false;
}

/* Up to @want distinct blocks in use, drawn with @rng. */
static int pick_random(struct store *st, MDB_txn *txn, uint64_t *rng,
		       uint64_t want, uint64_t *out, unsigned *n)
{
	struct ms_counters c;
	int r = metastore_counters_get(st->ms, txn, &c);
	if (r)
		return r;
	*n = 0;
	if (c.next_pblk <= 1 || !c.unique_blocks)
		return 0;
	if (want > c.unique_blocks)
		want = c.unique_blocks;
	/* Bounded tries: a sparse store may not yield them all. */
	for (uint64_t tries = 0; *n < want && tries < 64 * want + 1024;
	     tries++) {
		uint64_t p = 1 + prng_next(rng) % (c.next_pblk - 1);
		struct ms_block b;
		if (dedupe_block_get(st->ms, txn, p, &b) == 0 &&
		    !chosen(out, *n, p))
			out[(*n)++] = p;
	}
	return 0;
}

/* Inode of @path ("/a/b") by walking directory entries from the root. */
static int resolve(struct store *st, MDB_txn *txn, const char *path,
		   uint64_t *ino)
{
	char buf[FAULT_PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	*ino = 1;
	char *save = NULL;
	for (char *c = strtok_r(buf, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		int r = ns_dirent_lookup(st->ms, txn, *ino, c, ino);
		if (r)
			return r;
	}
	return 0;
}

static int pick_at(struct store *st, MDB_txn *txn,
		   const struct fault_rule *rule, uint64_t *out, unsigned *n,
		   char *err, size_t errlen)
{
	uint64_t ino, pblk;
	int r = resolve(st, txn, rule->path, &ino);
	if (r) {
		snprintf(err, errlen, "bitrot: %s: %s", rule->path,
			 strerror(-r));
		return r;
	}
	r = blockmap_block_of(st->ms, txn, ino, rule->offset / BLOCK_BYTES,
			      &pblk);
	if (!r && !pblk) {
		snprintf(err, errlen,
			 "bitrot: %s has no stored block at offset %llu (a "
			 "hole or past its end)",
			 rule->path, (unsigned long long)rule->offset);
		return -ENOENT;
	}
	*n = r ? 0 : 1;
	out[0] = pblk;
	return r;
}

/* ---- the loss report --------------------------------------------------- */

struct dirent_rec {
	uint64_t parent, ino;
	char *name;
};

struct names {
	struct dirent_rec *e;
	size_t n, cap;
};

static void names_free(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->e[i].name);
	free(nm->e);
}

static int names_load(struct store *st, MDB_txn *txn, struct names *nm)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(st->ms, MS_DIRNAMES), &cur);
	if (rc)
		return metastore_errno(rc);
	MDB_val k, v;
	int r = 0;
	while (!r && (rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0) {
		struct ms_dirent_val d;
		if (k.mv_size <= 8 || v.mv_size != sizeof(d) + MS_SEAL_LEN ||
		    !ms_sealed(MS_DIRNAMES, &k, &v))
			continue; /* damaged: the report names the inode */
		memcpy(&d, v.mv_data, sizeof(d));
		if (nm->n == nm->cap) {
			size_t cap = nm->cap ? 2 * nm->cap : 256;
			void *g = realloc(nm->e, cap * sizeof(*nm->e));
			if (!g) {
				r = -ENOMEM;
				break;
			}
			nm->e = g;
			nm->cap = cap;
		}
		struct dirent_rec *e = &nm->e[nm->n];
		e->parent = ms_get_be64(k.mv_data);
		e->ino = d.ino;
		e->name = strndup((const char *)k.mv_data + 8, k.mv_size - 8);
		if (!e->name)
			r = -ENOMEM;
		else
			nm->n++;
	}
	mdb_cursor_close(cur);
	return r;
}

static const struct dirent_rec *name_of(const struct names *nm, uint64_t ino)
{
	for (size_t i = 0; i < nm->n; i++)
		if (nm->e[i].ino == ino)
			return &nm->e[i];
	return NULL;
}

/* A path of @ino (one of its names, if it has several), or "inode N". */
static void path_of(const struct names *nm, uint64_t ino, char *buf, size_t len)
{
	char tmp[FAULT_PATH_MAX] = "";
	for (int depth = 0; ino != 1 && depth < 256; depth++) {
		const struct dirent_rec *e = name_of(nm, ino);
		if (!e) {
			snprintf(buf, len, "inode %llu",
				 (unsigned long long)ino);
			return;
		}
		char joined[FAULT_PATH_MAX];
		snprintf(joined, sizeof(joined), "/%s%s", e->name, tmp);
		memcpy(tmp, joined, sizeof(tmp));
		ino = e->parent;
	}
	snprintf(buf, len, "%s", tmp[0] ? tmp : "/");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Is @pblk one of the @n sorted @bad? */
static bool is_bad(const uint64_t *bad, size_t n, uint64_t pblk)
{
	return bsearch(&pblk, bad, n, sizeof(*bad), cmp_u64) != NULL;
}

struct report {
	struct store *st;
	const uint64_t *bad; /* sorted */
	size_t nbad;
	const char *cause;
	const struct names *nm;
	FILE *out;
	uint64_t refs;
};

static void report_extent(struct report *rp, const MDB_val *k, const MDB_val *v)
{
	uint64_t ino, idx, pblk[BMAP_EXTENT_BLOCKS];
	if (blockmap_decode(k, v, &ino, &idx, pblk))
		return; /* damaged: its reads are EIO anyway */
	for (unsigned i = 0; i < BMAP_EXTENT_BLOCKS; i++) {
		if (!pblk[i] || !is_bad(rp->bad, rp->nbad, pblk[i]))
			continue;
		char path[FAULT_PATH_MAX];
		path_of(rp->nm, ino, path, sizeof(path));
		uint64_t off = (idx * BMAP_EXTENT_BLOCKS + i) * BLOCK_BYTES;
		fprintf(rp->out, "lost %s offset %llu length %u block %llu\n",
			path, (unsigned long long)off, BLOCK_BYTES,
			(unsigned long long)pblk[i]);
		char esc[2 * FAULT_PATH_MAX];
		if (rp->cause)
			events_emit(
			    rp->st->events, "block_lost",
			    "\"path\":\"%s\",\"ino\":%llu,\"offset\":%llu,"
			    "\"length\":%u,\"block\":%llu,\"cause\":\"%s\"",
			    events_json_escape(path, esc, sizeof(esc)),
			    (unsigned long long)ino, (unsigned long long)off,
			    BLOCK_BYTES, (unsigned long long)pblk[i],
			    rp->cause);
		rp->refs++;
	}
}

int bitrot_report(struct store *st, MDB_txn *txn, uint64_t *bad, size_t nbad,
		  const char *cause, FILE *out, uint64_t *refs)
{
	qsort(bad, nbad, sizeof(*bad), cmp_u64);
	struct names nm = {0};
	struct report rp = {st, bad, nbad, cause, &nm, out, 0};
	int r = names_load(st, txn, &nm);
	MDB_cursor *cur = NULL;
	if (!r)
		r = metastore_errno(
		    mdb_cursor_open(txn, metastore_dbi(st->ms, MS_BMAP), &cur));
	MDB_val k, v;
	while (!r && mdb_cursor_get(cur, &k, &v, MDB_NEXT) == 0)
		report_extent(&rp, &k, &v);
	if (cur)
		mdb_cursor_close(cur);
	names_free(&nm);
	*refs = rp.refs;
	return r;
}

/* Keep, first in @bad, the blocks the array cannot rebuild now; how many.
 * The others get a line each on @out and a block_rotted event. */
static unsigned keep_lost(struct store *st, uint64_t *bad, unsigned n,
			  FILE *out)
{
	unsigned lost = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t pblk = bad[i];

		if (!st->array || !array_block_repairable(st->array, pblk)) {
			bad[lost++] = pblk;
			continue;
		}
		fprintf(out, "repairable block %llu\n",
			(unsigned long long)pblk);
		events_emit(st->events, "block_rotted",
			    "\"block\":%llu,\"repairable\":true",
			    (unsigned long long)pblk);
	}
	return lost;
}

int bitrot_inject(struct store *st, const struct fault_rule *rule,
		  uint64_t *rng, FILE *out, char *err, size_t errlen)
{
	uint64_t want = rule->has_offset ? 1 : rule->blocks;
	if (want > MAX_BLOCKS) {
		snprintf(err, errlen, "bitrot: at most %d blocks at a time",
			 MAX_BLOCKS);
		return -EINVAL;
	}
	uint64_t *bad = calloc(want, sizeof(*bad));
	MDB_txn *txn = NULL;
	int r = bad ? metastore_txn_begin(st->ms, false, &txn) : -ENOMEM;
	unsigned n = 0;
	if (!r && rule->has_offset)
		r = pick_at(st, txn, rule, bad, &n, err, errlen);
	else if (!r)
		r = pick_random(st, txn, rng, want, bad, &n);
	for (unsigned i = 0; !r && i < n; i++)
		r = corrupt_block(st, bad[i]);
	uint64_t refs = 0;
	unsigned lost = r ? 0 : keep_lost(st, bad, n, out);
	if (!r)
		r = bitrot_report(st, txn, bad, lost, "bitrot", out, &refs);
	if (!r)
		fprintf(out, "corrupted %u blocks referenced %llu times\n", n,
			(unsigned long long)refs);
	if (!r && lost < n)
		fprintf(out,
			"repairable %u of them: the array rebuilds them from "
			"redundancy on read\n",
			n - lost);
	metastore_txn_abort(txn);
	free(bad);
	if (r && !err[0])
		snprintf(err, errlen, "bitrot: %s", strerror(-r));
	return r;
}
