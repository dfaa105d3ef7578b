/* FUSE ops of entries and attributes: lookup, forget, getattr, setattr,
 * statfs. Lookup counts: every reply that hands the kernel an inode
 * counts one lookup (fs/inode_table.c); forget gives them back, and the
 * last forget of an unlinked inode deletes it (store_trim). */
#include "fs/ops_i.h"

#include <errno.h>
#include <string.h>

#include <sys/statvfs.h>

#include "common/block.h"
#include "common/log.h"
#include "store/attrs.h"
#include "store/datapath.h"
#include "fs/fault_gate.h"
#include "fs/inode_table.h"
#include "store/namespace.h"
#include "store/orphans.h"

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	int r = ops_check_name(name);
	if (r)
		return ops_reply_err(req, STATS_OP_LOOKUP, t0, r);
	MDB_txn *txn;
	r = metastore_txn_begin(store_ms(fs->st), false, &txn);
	if (r)
		return ops_reply_err(req, STATS_OP_LOOKUP, t0, r);
	uint64_t ino;
	struct ms_inode in;
	r = ns_dirent_lookup(store_ms(fs->st), txn, parent, name, &ino);
	if (!r)
		r = ns_inode_get(store_ms(fs->st), txn, ino, &in);
	metastore_txn_abort(txn);
	if (r)
		return ops_reply_err(req, STATS_OP_LOOKUP, t0, r);
	ops_reply_entry(req, STATS_OP_LOOKUP, t0, parent, name, ino, &in);
}

static void forget_one(struct fs *fs, uint64_t ino, uint64_t n)
{
	if (inode_table_unref(fs->itab, ino, n) ||
	    !orphans_unlinked(fs->st, ino))
		return;
	int r = store_trim(fs->st, ino);
	if (r)
		log_error("fs", "inode %llu: cannot delete: %s",
			  (unsigned long long)ino, strerror(-r));
}

void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget_one(fs_of(req), ino, nlookup);
	fuse_reply_none(req);
}

void op_forget_multi(fuse_req_t req, size_t count,
		     struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		forget_one(fs_of(req), forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	MDB_txn *txn;
	struct ms_inode in;
	int r = metastore_txn_begin(store_ms(fs->st), false, &txn);
	if (r)
		return ops_reply_err(req, STATS_OP_GETATTR, t0, r);
	r = ns_inode_get(store_ms(fs->st), txn, ino, &in);
	metastore_txn_abort(txn);
	if (r)
		return ops_reply_err(req, STATS_OP_GETATTR, t0, r);
	ops_reply_attr(req, STATS_OP_GETATTR, t0, ino, &in);
}

/* The datastore's setattr mask is FUSE's, passed as it is. */
_Static_assert(ATTRS_SET_MODE == FUSE_SET_ATTR_MODE &&
		   ATTRS_SET_UID == FUSE_SET_ATTR_UID &&
		   ATTRS_SET_GID == FUSE_SET_ATTR_GID &&
		   ATTRS_SET_SIZE == FUSE_SET_ATTR_SIZE &&
		   ATTRS_SET_ATIME == FUSE_SET_ATTR_ATIME &&
		   ATTRS_SET_MTIME == FUSE_SET_ATTR_MTIME &&
		   ATTRS_SET_ATIME_NOW == FUSE_SET_ATTR_ATIME_NOW &&
		   ATTRS_SET_MTIME_NOW == FUSE_SET_ATTR_MTIME_NOW &&
		   ATTRS_SET_CTIME == FUSE_SET_ATTR_CTIME,
	       "attrs_set_mask must match FUSE_SET_ATTR_*");

/* One setattr transaction; a size change holds the whole file's data. */
int ops_setattr_txn(struct fs *fs, uint64_t ino, const struct stat *attr,
		    int to_set, struct ms_inode *in)
{
	bool sized = to_set & FUSE_SET_ATTR_SIZE;
	struct range_hold h;
	if (sized)
		inode_table_lock(fs->itab, &h, ino, 0, RANGE_WHOLE_FILE);
	struct store_txn t;
	int r = store_txn_begin(fs->st, &t);
	if (!r)
		r = ops_txn_end(&t, attrs_set(&t, ino, attr, to_set, in));
	if (sized)
		inode_table_unlock(fs->itab, &h);
	return r;
}

void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct ms_inode in;
	bool chown = to_set & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID);
	if ((to_set & FUSE_SET_ATTR_SIZE || chown) &&
	    ops_kill_suidgid(req, chown))
		to_set |= ATTRS_KILL_SUIDGID;
	int r = fault_gate_meta(fs_of(req), FOP_SETATTR, ino, 0, NULL);
	if (!r)
		r = ops_setattr_txn(fs_of(req), ino, attr, to_set, &in);
	if (r)
		return ops_reply_err(req, STATS_OP_SETATTR, t0, r);
	ops_reply_attr(req, STATS_OP_SETATTR, t0, ino, &in);
}

void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct statvfs host;
	if (statvfs(fs->store, &host) < 0)
		return ops_reply_err(req, STATS_OP_STATFS, t0, -errno);
	struct stats_gauges g;
	store_gauges(fs->st, &g);
	/* Physical view: what the unique blocks take, and what the host
	 * still has for more. Logical figures are in `arraysim stats`. */
	uint64_t avail = (uint64_t)host.f_bavail * host.f_frsize / BLOCK_BYTES;
	struct statvfs st = {
	    .f_bsize = BLOCK_BYTES,
	    .f_frsize = BLOCK_BYTES,
	    .f_blocks = g.unique_blocks + avail,
	    .f_bfree = avail,
	    .f_bavail = avail,
	    .f_files = host.f_files,
	    .f_ffree = host.f_ffree,
	    .f_favail = host.f_favail,
	    .f_namemax = NS_NAME_MAX,
	};
	ops_account(req, STATS_OP_STATFS, t0, 0, 0);
	fuse_reply_statfs(req, &st);
}
