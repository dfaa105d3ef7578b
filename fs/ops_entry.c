/* FUSE ops of entries and attributes: lookup, forget, getattr, setattr,
 * statfs. Lookup counts: every reply that hands the kernel an inode
 * counts one lookup (fs/inode_table.c); forget gives them back, and the
 * last forget of an unlinked inode deletes it (fs_trim). */
#include "fs/ops_i.h"

#include <errno.h>
#include <string.h>

#include <sys/statvfs.h>

#include "common/block.h"
#include "common/log.h"
#include "fs/datapath.h"
#include "fs/fault_gate.h"
#include "fs/inode_table.h"
#include "fs/namespace.h"

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	int r = check_name(name);
	if (r)
		return reply_err(req, STATS_OP_LOOKUP, t0, r);
	MDB_txn *txn;
	r = metastore_txn_begin(fs->ms, false, &txn);
	if (r)
		return reply_err(req, STATS_OP_LOOKUP, t0, r);
	uint64_t ino;
	struct ms_inode in;
	r = ns_dirent_lookup(fs->ms, txn, parent, name, &ino);
	if (!r)
		r = ns_inode_get(fs->ms, txn, ino, &in);
	metastore_txn_abort(txn);
	if (r)
		return reply_err(req, STATS_OP_LOOKUP, t0, r);
	reply_entry(req, STATS_OP_LOOKUP, t0, parent, name, ino, &in);
}

static bool is_unlinked(struct fs *fs, uint64_t ino)
{
	MDB_txn *txn;
	struct ms_inode in;
	if (metastore_txn_begin(fs->ms, false, &txn))
		return false;
	int r = ns_inode_get(fs->ms, txn, ino, &in);
	metastore_txn_abort(txn);
	return r == 0 && in.nlink == 0;
}

static void forget_one(struct fs *fs, uint64_t ino, uint64_t n)
{
	if (inode_table_unref(fs->itab, ino, n) || !is_unlinked(fs, ino))
		return;
	int r = fs_trim(fs, ino);
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
	int r = metastore_txn_begin(fs->ms, false, &txn);
	if (r)
		return reply_err(req, STATS_OP_GETATTR, t0, r);
	r = ns_inode_get(fs->ms, txn, ino, &in);
	metastore_txn_abort(txn);
	if (r)
		return reply_err(req, STATS_OP_GETATTR, t0, r);
	reply_attr(req, STATS_OP_GETATTR, t0, ino, &in);
}

static int64_t attr_time(const struct timespec *ts, bool now, int64_t t_now)
{
	return now ? t_now : (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static int apply_setattr(struct dp_txn *t, uint64_t ino, struct ms_inode *in,
			 const struct stat *a, int set)
{
	int64_t now = fs_now_ns();
	if (set & FUSE_SET_ATTR_SIZE) {
		if (S_ISDIR(in->mode))
			return -EISDIR;
		if (!S_ISREG(in->mode))
			return -EINVAL;
		int r = datapath_truncate(t, ino, in, (uint64_t)a->st_size);
		if (r)
			return r;
		in->mtime_ns = now;
	}
	if (set & FUSE_SET_ATTR_MODE)
		in->mode = (in->mode & S_IFMT) | (a->st_mode & 07777);
	if (set & FUSE_SET_ATTR_UID)
		in->uid = a->st_uid;
	if (set & FUSE_SET_ATTR_GID)
		in->gid = a->st_gid;
	if (set & (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_ATIME_NOW))
		in->atime_ns =
		    attr_time(&a->st_atim, set & FUSE_SET_ATTR_ATIME_NOW, now);
	if (set & (FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_MTIME_NOW))
		in->mtime_ns =
		    attr_time(&a->st_mtim, set & FUSE_SET_ATTR_MTIME_NOW, now);
	if (set & FUSE_SET_ATTR_CTIME)
		in->ctime_ns = attr_time(&a->st_ctim, false, now);
	else
		in->ctime_ns = now;
	return ns_inode_put(t->fs->ms, t->txn, ino, in);
}

/* One setattr transaction; a size change holds the file's data lock. */
int setattr_txn(struct fs *fs, uint64_t ino, const struct stat *attr,
		int to_set, struct ms_inode *in)
{
	bool sized = to_set & FUSE_SET_ATTR_SIZE;
	if (sized)
		inode_table_lock(fs->itab, ino);
	struct dp_txn t;
	int r = dp_begin(fs, &t);
	if (!r) {
		r = ns_inode_get(fs->ms, t.txn, ino, in);
		if (!r)
			r = apply_setattr(&t, ino, in, attr, to_set);
		r = r ? (dp_abort(&t), r) : dp_commit(&t);
	}
	if (sized)
		inode_table_unlock(fs->itab, ino);
	return r;
}

void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct ms_inode in;
	int r = fault_gate_meta(fs_of(req), FOP_SETATTR, ino, 0, NULL);
	if (!r)
		r = setattr_txn(fs_of(req), ino, attr, to_set, &in);
	if (r)
		return reply_err(req, STATS_OP_SETATTR, t0, r);
	reply_attr(req, STATS_OP_SETATTR, t0, ino, &in);
}

void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct statvfs host;
	if (statvfs(fs->store, &host) < 0)
		return reply_err(req, STATS_OP_STATFS, t0, -errno);
	struct stats_gauges g;
	fs_gauges(fs, &g);
	/* Physical view: what the unique blocks take, and what the host
	 * still has for more. Logical figures are in `arraysim stats`. */
	uint64_t avail = (uint64_t)host.f_bavail * host.f_frsize / BLOCK_SIZE;
	struct statvfs st = {
	    .f_bsize = BLOCK_SIZE,
	    .f_frsize = BLOCK_SIZE,
	    .f_blocks = g.unique_blocks + avail,
	    .f_bfree = avail,
	    .f_bavail = avail,
	    .f_files = host.f_files,
	    .f_ffree = host.f_ffree,
	    .f_favail = host.f_favail,
	    .f_namemax = NS_NAME_MAX,
	};
	account(req, STATS_OP_STATFS, t0, 0, 0);
	fuse_reply_statfs(req, &st);
}
