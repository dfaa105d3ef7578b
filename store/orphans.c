/* Orphans (store/orphans.h): the MS_ORPHANS records, the bounded steps that
 * finish one, and the reaper of a mount.
 *
 *   unlink/rename over (nlink 0) --orphans_add--> orphan
 *   orphan, kernel holds it      trim: blocks past the size only; stays
 *   orphan, nothing holds it     trim: every block, a transaction at a
 *                                time, then the inode and its record
 *   linked again (O_TMPFILE)     record dropped (names_link)
 */
#include "store/orphans.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "common/block.h"
#include "common/log.h"
#include "store/datapath.h"
#include "store/namespace.h"
#include "store/store_i.h"

int orphans_add(struct store_txn *t, uint64_t ino)
{
	MDB_val k = {sizeof(ino), &ino}, empty = {0, NULL};
	return metastore_errno(mdb_put(
	    t->txn, metastore_dbi(t->st->ms, MS_ORPHANS), &k, &empty, 0));
}

int orphans_del(struct store_txn *t, uint64_t ino)
{
	MDB_val k = {sizeof(ino), &ino};
	int rc =
	    mdb_del(t->txn, metastore_dbi(t->st->ms, MS_ORPHANS), &k, NULL);
	return rc == MDB_NOTFOUND ? 0 : metastore_errno(rc);
}

/* The inode is gone for good: its last blocks were dropped already. */
static int delete_inode(struct store_txn *t, uint64_t ino,
			const struct ms_inode *in)
{
	int r = ns_drop_extras(t->st->ms, t->txn, ino);
	if (!r)
		r = ns_inode_del(t->st->ms, t->txn, ino);
	if (r)
		return r;
	t->c.inodes--;
	if (S_ISREG(in->mode))
		t->c.logical_bytes -= in->size;
	return 0;
}

int orphans_trim_step(struct store_txn *t, uint64_t ino, bool held, bool *more)
{
	struct ms_inode in;
	*more = false;
	int r = ns_inode_get(t->st->ms, t->txn, ino, &in);
	if (r == -ENOENT)
		return orphans_del(t, ino);
	if (r)
		return r;
	/* No links and no kernel reference: nothing can reach it again. */
	bool gone = in.nlink == 0 && !held;
	uint64_t from = gone ? 0 : (in.size + BLOCK_BYTES - 1) / BLOCK_BYTES;
	if (S_ISREG(in.mode))
		r = datapath_trim_step(t, ino, &in, from, more);
	if (!r && !*more && (gone || in.nlink))
		r = orphans_del(t, ino);
	if (!r)
		r = gone && !*more ? delete_inode(t, ino, &in)
				   : ns_inode_put(t->st->ms, t->txn, ino, &in);
	return r;
}

bool orphans_unlinked(struct store *st, uint64_t ino)
{
	MDB_txn *txn;
	struct ms_inode in;
	if (metastore_txn_begin(st->ms, false, &txn))
		return false;
	int r = ns_inode_get(st->ms, txn, ino, &in);
	metastore_txn_abort(txn);
	return r == 0 && in.nlink == 0;
}

int store_trim(struct store *st, uint64_t ino)
{
	bool more;
	int r;
	do {
		struct store_txn t;
		r = store_txn_begin(st, &t);
		if (r)
			break;
		const struct store_hooks *h = &st->cfg.hooks;
		bool held = h->held && h->held(h->ctx, ino);
		r = orphans_trim_step(&t, ino, held, &more);
		uint64_t no_trim; /* a trim step never truncates */
		r = r ? (store_txn_abort(&t), r)
		      : store_txn_commit_one(&t, &no_trim);
	} while (!r && more);
	return r;
}

/* The first orphan recorded, in *ino; -ENOENT if there is none. */
static int first_orphan(struct store *st, uint64_t *ino)
{
	MDB_txn *txn;
	int r = metastore_txn_begin(st->ms, false, &txn);
	if (r)
		return r;
	MDB_cursor *cur;
	MDB_val k, v;
	int rc = mdb_cursor_open(txn, metastore_dbi(st->ms, MS_ORPHANS), &cur);
	if (!rc) {
		rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
		if (!rc)
			memcpy(ino, k.mv_data, sizeof(*ino));
		mdb_cursor_close(cur);
	}
	metastore_txn_abort(txn);
	return rc == MDB_NOTFOUND ? -ENOENT : metastore_errno(rc);
}

int store_reap_orphans(struct store *st)
{
	for (;;) {
		uint64_t ino = 0;
		int r = first_orphan(st, &ino);
		if (r)
			return r == -ENOENT ? 0 : r;
		log_info("fs",
			 "reaping unlinked inode %llu left open by an "
			 "earlier run",
			 (unsigned long long)ino);
		r = store_trim(st, ino);
		if (r)
			return r;
	}
}
