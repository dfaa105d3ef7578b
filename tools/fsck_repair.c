/* `arraysim fsck --repair`: rebuild what the tables hold twice, after a
 * read-only check has gathered it (tools/fsck_i.h), in one write
 * transaction of the store:
 *
 *   refcounts   from the block maps (f->refs): a slot's refs become the
 *               number of map entries at it; a block no map entry names
 *               is freed (unindexed, pending), unless some block map is
 *               damaged: then it may be that one's, and is left alone
 *   orphans     a record of a missing inode is dropped; an inode with
 *               nlink 0 and no record gets one (the next mount reaps it)
 *   counters    recomputed from the tables, sealed again
 *
 * Everything else (a record that fails its seal, a name or an inode that
 * is gone, a block whose bytes fail their checksum) has no second copy to
 * rebuild from: the check that runs after the repair prints each one that
 * is left as a "cannot repair: " line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dedupe/blocks.h"
#include "tools/commands.h"
#include "tools/fsck_i.h"

#define ull(x) ((unsigned long long)(x))

static void repaired(struct fsck *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void repaired(struct fsck *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("repaired: ", f->out);
	vfprintf(f->out, fmt, ap);
	fputc('\n', f->out);
	va_end(ap);
	f->repairs++;
}

/* Slot @i of the `blocks` record at @k := @refs, resealed. */
static int set_refs(struct fsck *f, MDB_txn *txn, uint64_t key, unsigned i,
		    uint32_t refs)
{
	MDB_dbi dbi = metastore_dbi(f->ms, MS_BLOCKS);
	MDB_val k = {sizeof(key), &key}, v;
	int rc = mdb_get(txn, dbi, &k, &v);
	if (rc)
		return metastore_errno(rc);
	uint8_t rec[MS_BLOCK_REC_LEN];
	if (v.mv_size != sizeof(rec) || !ms_sealed(MS_BLOCKS, &k, &v))
		return -EIO;
	memcpy(rec, v.mv_data, sizeof(rec));
	struct ms_block b;
	memcpy(&b, rec + i * sizeof(b), sizeof(b));
	b.refs = refs;
	memcpy(rec + i * sizeof(b), &b, sizeof(b));
	ms_seal(MS_BLOCKS, &k, rec, sizeof(rec));
	MDB_val nv = {sizeof(rec), rec};
	return metastore_errno(mdb_put(txn, dbi, &k, &nv, 0));
}

/* A used slot whose refs differ from the map entries at it. */
static int fix_slot(struct fsck *f, MDB_txn *txn, struct ms_counters *c,
		    uint64_t pblk, uint32_t refs)
{
	uint32_t want = pblk < f->npblk ? f->refs[pblk] : 0;
	if (want == refs || (!want && f->bmap_damaged))
		return 0;
	uint64_t key = pblk / MS_BLOCK_EXTENT;
	unsigned i = (unsigned)(pblk % MS_BLOCK_EXTENT);
	int r = set_refs(f, txn, key, i, want ? want : 1);
	if (!r && !want) {
		bool freed;
		r = dedupe_block_unref(f->ms, txn, c, pblk, &freed);
	}
	if (!r)
		repaired(f, "block %llu: refs %llu -> %llu", ull(pblk),
			 ull(refs), ull(want));
	return r == -EIO || r == -ENOENT ? 0 : r; /* left for the recheck */
}

static int fix_refs(struct fsck *f, MDB_txn *txn, struct ms_counters *c)
{
	for (uint64_t pblk = 1; pblk < f->npblk; pblk++) {
		if (!(f->state[pblk] & FSCK_USED))
			continue;
		struct ms_block b;
		int r = dedupe_block_get(f->ms, txn, pblk, &b);
		if (r == -ENOENT || r == -EIO)
			continue; /* freed above, or damaged: the recheck says
				   */
		if (!r)
			r = fix_slot(f, txn, c, pblk, b.refs);
		if (r)
			return r;
	}
	return 0;
}

static int fix_orphans(struct fsck *f, MDB_txn *txn)
{
	MDB_dbi dbi = metastore_dbi(f->ms, MS_ORPHANS);
	MDB_val empty = {0, NULL};
	for (size_t i = 0; i < f->ninodes; i++) {
		struct fsck_inode *fi = &f->inodes[i];
		if (fi->in.nlink || fi->orphan)
			continue;
		MDB_val k = {sizeof(fi->ino), &fi->ino};
		int rc = mdb_put(txn, dbi, &k, &empty, 0);
		if (rc)
			return metastore_errno(rc);
		repaired(f,
			 "ino %llu: nlink 0, now in orphans (reaped at the "
			 "next mount)",
			 ull(fi->ino));
	}
	for (size_t i = 0; i < f->nstale; i++) {
		MDB_val k = {sizeof(f->stale[i]), &f->stale[i]};
		int rc = mdb_del(txn, dbi, &k, NULL);
		if (rc && rc != MDB_NOTFOUND)
			return metastore_errno(rc);
		repaired(f, "orphan %llu: no such inode, record dropped",
			 ull(f->stale[i]));
	}
	return 0;
}

/* Used slots after the repair. */
static int count_unique(struct fsck *f, MDB_txn *txn, uint64_t *n)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(f->ms, MS_BLOCKS), &cur);
	MDB_val k, v;
	*n = 0;
	while (!rc && (rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0) {
		for (unsigned i = 0; i < MS_BLOCK_EXTENT; i++) {
			struct ms_block b;
			if (v.mv_size != MS_BLOCK_REC_LEN)
				break;
			memcpy(&b, (const uint8_t *)v.mv_data + i * sizeof(b),
			       sizeof(b));
			*n += b.refs > 0;
		}
	}
	if (!rc || rc == MDB_NOTFOUND)
		mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : metastore_errno(rc);
}

static int fix_counters(struct fsck *f, MDB_txn *txn)
{
	struct ms_counters c = f->c, old = f->c;
	uint64_t bytes = 0, max_ino = 0;
	for (size_t i = 0; i < f->ninodes; i++) {
		const struct fsck_inode *fi = &f->inodes[i];
		if (S_ISREG(fi->in.mode))
			bytes += fi->in.size;
		max_ino = fi->ino > max_ino ? fi->ino : max_ino;
	}
	int r = count_unique(f, txn, &c.unique_blocks);
	if (r)
		return r;
	c.live_blocks = f->map_entries;
	c.logical_bytes = bytes;
	c.inodes = f->ninodes;
	c.next_ino = c.next_ino > max_ino ? c.next_ino : max_ino + 1;
	c.next_pblk = c.next_pblk > f->npblk ? c.next_pblk : f->npblk;
	if (!f->counters_bad && !memcmp(&c, &old, sizeof(c)))
		return 0;
	r = metastore_counters_put(f->ms, txn, &c);
	if (!r)
		repaired(f,
			 "counters: rebuilt from the tables (%llu inodes, "
			 "%llu unique blocks, %llu mapped)",
			 ull(c.inodes), ull(c.unique_blocks),
			 ull(c.live_blocks));
	return r;
}

int fsck_repair(struct fsck *f)
{
	MDB_txn *txn;
	int r = metastore_txn_begin(f->ms, true, &txn);
	struct ms_counters scratch = f->c;
	if (!r)
		r = fix_refs(f, txn, &scratch);
	if (!r)
		r = fix_orphans(f, txn);
	if (!r)
		r = fix_counters(f, txn);
	if (r) {
		metastore_txn_abort(txn);
		tool_error("store %s: repair failed: %s (nothing changed)",
			   f->store, strerror(-r));
		return r;
	}
	r = metastore_txn_commit(txn);
	if (!r)
		r = metastore_sync(f->ms);
	if (r)
		tool_error("store %s: repair not saved: %s", f->store,
			   strerror(-r));
	return r;
}
