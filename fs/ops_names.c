/* FUSE ops that create, remove, move and read names: mknod, mkdir,
 * symlink, create, link, unlink, rmdir, rename, readlink. The algorithms
 * are the datastore's (store/names.c); here, the checks of the request, the
 * fault gate, one transaction, the kernel's view (fs/inode_table.c) and
 * the reply.
 *
 * An inode whose last link goes while the kernel still holds it is an
 * orphan (store/orphans.h), deleted when the kernel forgets it (or at the
 * next mount); one nothing holds is deleted before the reply. */
#include "fs/ops_i.h"

#include <errno.h>
#include <stdio.h> /* RENAME_EXCHANGE */
#include <string.h>

#include "store/datapath.h"
#include "fs/fault_gate.h"
#include "fs/inode_table.h"
#include "store/names.h"
#include "store/namespace.h"

/* ---- creating names --------------------------------------------------- */

static int make_node(fuse_req_t req, uint64_t parent, const char *name,
		     struct names_node *nn, uint64_t *ino, struct ms_inode *out)
{
	struct fs *fs = fs_of(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	int r = ops_check_name(name);
	if (!r)
		r = fault_gate_meta(fs,
				    S_ISDIR(nn->mode) ? FOP_MKDIR : FOP_CREATE,
				    0, parent, name);
	struct store_txn t;
	if (!r)
		r = store_txn_begin(fs->st, &t);
	if (r)
		return r;
	nn->uid = ctx->uid;
	nn->gid = ctx->gid;
	return ops_txn_end(&t, names_make(&t, parent, name, nn, ino, out));
}

static void reply_new(fuse_req_t req, enum stats_op op, uint64_t t0,
		      uint64_t parent, const char *name, struct names_node *nn)
{
	uint64_t ino;
	struct ms_inode in;
	int r = make_node(req, parent, name, nn, &ino, &in);
	if (r)
		return ops_reply_err(req, op, t0, r);
	ops_reply_entry(req, op, t0, parent, name, ino, &in);
}

void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	      dev_t rdev)
{
	struct names_node nn = {.mode = mode, .rdev = rdev};
	reply_new(req, STATS_OP_CREATE, stats_now_ns(), parent, name, &nn);
}

void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct names_node nn = {.mode = S_IFDIR | (mode & 07777)};
	reply_new(req, STATS_OP_MKDIR, stats_now_ns(), parent, name, &nn);
}

void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		const char *name)
{
	uint64_t t0 = stats_now_ns();
	if (strlen(link) > NS_SYMLINK_MAX)
		return ops_reply_err(req, STATS_OP_SYMLINK, t0, -ENAMETOOLONG);
	struct names_node nn = {.mode = S_IFLNK | 0777, .link = link};
	reply_new(req, STATS_OP_SYMLINK, t0, parent, name, &nn);
}

void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	       struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct names_node nn = {.mode = S_IFREG | (mode & 07777)};
	uint64_t ino;
	struct ms_inode in;
	int r = make_node(req, parent, name, &nn, &ino, &in);
	if (r)
		return ops_reply_err(req, STATS_OP_CREATE, t0, r);
	struct fuse_entry_param e = {
	    .ino = ino,
	    .attr_timeout = ATTR_TIMEOUT,
	    .entry_timeout = ENTRY_TIMEOUT,
	};
	ns_fill_stat(ino, &in, &e.attr);
	ops_set_open_flags(fs_of(req), fi);
	inode_table_ref_named(fs_of(req)->itab, ino, parent, name);
	ops_account(req, STATS_OP_CREATE, t0, 0, 0);
	fuse_reply_create(req, &e, fi);
}

void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
	     const char *newname)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	int r = ops_check_name(newname);
	if (!r)
		r = fault_gate_meta(fs, 0, ino, 0, NULL); /* power loss only */
	struct store_txn t;
	if (!r)
		r = store_txn_begin(fs->st, &t);
	if (r)
		return ops_reply_err(req, STATS_OP_LINK, t0, r);
	struct ms_inode in;
	r = ops_txn_end(&t, names_link(&t, ino, newparent, newname, &in));
	if (r)
		return ops_reply_err(req, STATS_OP_LINK, t0, r);
	ops_reply_entry(req, STATS_OP_LINK, t0, newparent, newname, ino, &in);
}

/* ---- removing names --------------------------------------------------- */

static int remove_name(fuse_req_t req, uint64_t parent, const char *name,
		       bool want_dir, uint64_t *victim)
{
	struct fs *fs = fs_of(req);
	int r = ops_check_name(name);
	if (!r)
		r = fault_gate_meta(fs, want_dir ? FOP_RMDIR : FOP_UNLINK, 0,
				    parent, name);
	struct store_txn t;
	if (!r)
		r = store_txn_begin(fs->st, &t);
	if (r)
		return r;
	return ops_txn_end(&t,
			   names_remove(&t, parent, name, want_dir, victim));
}

/* @victim lost a name: delete it now unless the kernel still holds it. */
static void finish_remove(fuse_req_t req, enum stats_op op, uint64_t t0, int r,
			  uint64_t victim)
{
	struct fs *fs = fs_of(req);
	if (!r && !inode_table_lookups(fs->itab, victim))
		r = store_trim(fs->st, victim);
	ops_reply_err(req, op, t0, r);
}

void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	uint64_t t0 = stats_now_ns(), victim = 0;
	int r = remove_name(req, parent, name, false, &victim);
	finish_remove(req, STATS_OP_UNLINK, t0, r, victim);
}

void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	uint64_t t0 = stats_now_ns(), victim = 0;
	int r = remove_name(req, parent, name, true, &victim);
	finish_remove(req, STATS_OP_RMDIR, t0, r, victim);
}

/* ---- rename ----------------------------------------------------------- */

/* The rename's transaction; *victim: a target it replaced. */
static int do_rename(fuse_req_t req, const struct names_rename *a,
		     uint64_t *victim)
{
	struct fs *fs = fs_of(req);
	int r = names_rename_flags(a->flags);
	if (!r)
		r = ops_check_name(a->name);
	if (!r)
		r = ops_check_name(a->newname);
	if (!r)
		r = fault_gate_meta(fs, FOP_RENAME, 0, a->parent, a->name);
	struct store_txn t;
	if (!r)
		r = store_txn_begin(fs->st, &t);
	if (r)
		return r;
	struct names_renamed res;
	r = names_rename(&t, a, &res);
	if (!r && res.noop) {
		store_txn_abort(&t);
		return 0;
	}
	if (!r && res.replaced)
		*victim = res.dst;
	r = ops_txn_end(&t, r);
	if (!r)
		inode_table_renamed(fs->itab, res.src, a->newparent,
				    a->newname);
	if (!r && (a->flags & RENAME_EXCHANGE))
		inode_table_renamed(fs->itab, res.dst, a->parent, a->name);
	return r;
}

void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
	       fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	uint64_t t0 = stats_now_ns(), victim = 0;
	struct names_rename a = {parent, newparent, name, newname, flags};
	int r = do_rename(req, &a, &victim);
	if (victim)
		return finish_remove(req, STATS_OP_RENAME, t0, r, victim);
	ops_reply_err(req, STATS_OP_RENAME, t0, r);
}

/* ---- symlinks --------------------------------------------------------- */

void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	char target[NS_SYMLINK_MAX + 1];
	MDB_txn *txn;
	int r = metastore_txn_begin(store_ms(fs->st), false, &txn);
	if (r)
		return ops_reply_err(req, STATS_OP_OTHER, t0, r);
	r = ns_symlink_get(store_ms(fs->st), txn, ino, target, sizeof(target));
	metastore_txn_abort(txn);
	if (r)
		return ops_reply_err(req, STATS_OP_OTHER, t0,
				     r == -ENOENT ? -EINVAL : r);
	ops_account(req, STATS_OP_OTHER, t0, 0, 0);
	fuse_reply_readlink(req, target);
}
