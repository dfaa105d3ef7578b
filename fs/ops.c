/* FUSE low-level operations: where every request enters.
 *
 * Each op validates, runs one metadata-store transaction (namespace.c for
 * names and attributes, datapath.c for file bytes) and replies. Reads and
 * writes are instead handed to the array model once their bytes have moved
 * (tiers/array.h): the model replies at the request's emulated completion
 * time, possibly from another thread, and the FUSE worker returns at once.
 *
 * Lookup counts: every reply that hands the kernel an inode (entry,
 * create) counts one lookup; forget gives them back. An inode whose last
 * link goes while the kernel still holds it is recorded as an orphan and
 * deleted when the kernel forgets it (or at the next mount).
 */
#include "fs/ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* RENAME_NOREPLACE, RENAME_EXCHANGE */
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/block.h"
#include "common/log.h"
#include "fs/datapath.h"
#include "fs/fault_gate.h"
#include "fs/inode_table.h"
#include "fs/namespace.h"
#include "tiers/completer.h"

#define ATTR_TIMEOUT 1.0
#define ENTRY_TIMEOUT 1.0

static struct fs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static void account(fuse_req_t req, enum stats_op op, uint64_t t0, int err,
		    uint64_t bytes)
{
	stats_op_record(&fs_of(req)->stats, op, stats_now_ns() - t0, err,
			bytes);
}

static void reply_err(fuse_req_t req, enum stats_op op, uint64_t t0, int r)
{
	account(req, op, t0, -r, 0);
	fuse_reply_err(req, -r);
}

/* Reply with @ino, reached as @name in @parent. */
static void reply_entry(fuse_req_t req, enum stats_op op, uint64_t t0,
			uint64_t parent, const char *name, uint64_t ino,
			const struct ms_inode *in)
{
	struct fuse_entry_param e = {
	    .ino = ino,
	    .attr_timeout = ATTR_TIMEOUT,
	    .entry_timeout = ENTRY_TIMEOUT,
	};
	ns_fill_stat(ino, in, &e.attr);
	inode_table_ref_named(fs_of(req)->itab, ino, parent, name);
	account(req, op, t0, 0, 0);
	fuse_reply_entry(req, &e);
}

static void reply_attr(fuse_req_t req, enum stats_op op, uint64_t t0,
		       uint64_t ino, const struct ms_inode *in)
{
	struct stat st;
	ns_fill_stat(ino, in, &st);
	account(req, op, t0, 0, 0);
	fuse_reply_attr(req, &st, ATTR_TIMEOUT);
}

static int check_name(const char *name)
{
	return strlen(name) > NS_NAME_MAX ? -ENAMETOOLONG : 0;
}

/* ---- inode cache of one transaction ----------------------------------- */

/* The few inodes one namespace change touches, loaded once and stored
 * once, so that aliases (a parent that is also the new parent) stay one
 * copy. */
struct icache {
	unsigned n;
	uint64_t ino[4];
	struct ms_inode in[4];
};

static int ic_get(struct dp_txn *t, struct icache *c, uint64_t ino,
		  struct ms_inode **out)
{
	for (unsigned i = 0; i < c->n; i++) {
		if (c->ino[i] == ino) {
			*out = &c->in[i];
			return 0;
		}
	}
	if (c->n == 4)
		return -EIO;
	int r = ns_inode_get(t->fs->ms, t->txn, ino, &c->in[c->n]);
	if (r)
		return r;
	c->ino[c->n] = ino;
	*out = &c->in[c->n++];
	return 0;
}

static int ic_put_all(struct dp_txn *t, struct icache *c)
{
	for (unsigned i = 0; i < c->n; i++) {
		int r = ns_inode_put(t->fs->ms, t->txn, c->ino[i], &c->in[i]);
		if (r)
			return r;
	}
	return 0;
}

static int add_orphan(struct dp_txn *t, uint64_t ino)
{
	MDB_val k = {sizeof(ino), &ino}, empty = {0, NULL};
	return metastore_errno(mdb_put(
	    t->txn, metastore_dbi(t->fs->ms, MS_ORPHANS), &k, &empty, 0));
}

/* The directory @ino, writable for a new or removed entry. */
static int get_dir(struct dp_txn *t, struct icache *c, uint64_t ino,
		   struct ms_inode **out)
{
	int r = ic_get(t, c, ino, out);
	if (r)
		return r;
	if (!S_ISDIR((*out)->mode))
		return -ENOTDIR;
	return (*out)->nlink ? 0 : -ENOENT; /* removed, still open */
}

static void touch_dir(struct ms_inode *dir, int64_t now)
{
	dir->mtime_ns = dir->ctime_ns = now;
}

/* ---- lookup, forget, attributes --------------------------------------- */

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
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

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	forget_one(fs_of(req), ino, nlookup);
	fuse_reply_none(req);
}

static void op_forget_multi(fuse_req_t req, size_t count,
			    struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		forget_one(fs_of(req), forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
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
static int setattr_txn(struct fs *fs, uint64_t ino, const struct stat *attr,
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

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
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

/* ---- creating names --------------------------------------------------- */

struct new_node {
	uint32_t mode;
	uint64_t rdev;
	const char *link; /* symlink target */
};

static int make_node(fuse_req_t req, uint64_t parent, const char *name,
		     const struct new_node *nn, uint64_t *ino,
		     struct ms_inode *out)
{
	struct fs *fs = fs_of(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	int r = check_name(name);
	if (!r)
		r = fault_gate_meta(fs,
				    S_ISDIR(nn->mode) ? FOP_MKDIR : FOP_CREATE,
				    0, parent, name);
	if (r)
		return r;
	struct dp_txn t;
	r = dp_begin(fs, &t);
	if (r)
		return r;
	struct icache ic = {0};
	struct ms_inode *dir;
	uint64_t existing;
	r = get_dir(&t, &ic, parent, &dir);
	if (!r && ns_dirent_lookup(fs->ms, t.txn, parent, name, &existing) == 0)
		r = -EEXIST;
	uint32_t mode = nn->mode, gid = ctx->gid;
	if (!r && (dir->mode & S_ISGID)) {
		/* BSD group semantics, as ext4 under a setgid directory. */
		gid = dir->gid;
		if (S_ISDIR(mode))
			mode |= S_ISGID;
	}
	if (!r)
		r = ns_inode_new(fs->ms, t.txn, &t.c, mode, ctx->uid, gid,
				 nn->rdev, parent, ino, out);
	if (!r && nn->link) {
		out->size = strlen(nn->link);
		r = ns_symlink_put(fs->ms, t.txn, *ino, nn->link);
		if (!r)
			r = ns_inode_put(fs->ms, t.txn, *ino, out);
	}
	if (!r)
		r = ns_dirent_add(fs->ms, t.txn, parent, dir, name, *ino);
	if (!r) {
		dir->nlink += S_ISDIR(mode);
		touch_dir(dir, out->ctime_ns);
		r = ic_put_all(&t, &ic);
	}
	return r ? (dp_abort(&t), r) : dp_commit(&t);
}

static void reply_new(fuse_req_t req, enum stats_op op, uint64_t t0,
		      uint64_t parent, const char *name,
		      const struct new_node *nn)
{
	uint64_t ino;
	struct ms_inode in;
	int r = make_node(req, parent, name, nn, &ino, &in);
	if (r)
		return reply_err(req, op, t0, r);
	reply_entry(req, op, t0, parent, name, ino, &in);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, dev_t rdev)
{
	struct new_node nn = {.mode = mode, .rdev = rdev};
	reply_new(req, STATS_OP_CREATE, stats_now_ns(), parent, name, &nn);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode)
{
	struct new_node nn = {.mode = S_IFDIR | (mode & 07777)};
	reply_new(req, STATS_OP_MKDIR, stats_now_ns(), parent, name, &nn);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		       const char *name)
{
	uint64_t t0 = stats_now_ns();
	if (strlen(link) > NS_SYMLINK_MAX)
		return reply_err(req, STATS_OP_SYMLINK, t0, -ENAMETOOLONG);
	struct new_node nn = {.mode = S_IFLNK | 0777, .link = link};
	reply_new(req, STATS_OP_SYMLINK, t0, parent, name, &nn);
}

static void set_open_flags(struct fs *fs, struct fuse_file_info *fi)
{
	/* Every read and write must reach the array model, as every I/O of
	 * a host reaches an array: no page cache unless asked for. */
	fi->direct_io = !fs->cfg.kernel_cache;
	fi->keep_cache = fs->cfg.kernel_cache;
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		      mode_t mode, struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct new_node nn = {.mode = S_IFREG | (mode & 07777)};
	uint64_t ino;
	struct ms_inode in;
	int r = make_node(req, parent, name, &nn, &ino, &in);
	if (r)
		return reply_err(req, STATS_OP_CREATE, t0, r);
	struct fuse_entry_param e = {
	    .ino = ino,
	    .attr_timeout = ATTR_TIMEOUT,
	    .entry_timeout = ENTRY_TIMEOUT,
	};
	ns_fill_stat(ino, &in, &e.attr);
	set_open_flags(fs_of(req), fi);
	inode_table_ref_named(fs_of(req)->itab, ino, parent, name);
	account(req, STATS_OP_CREATE, t0, 0, 0);
	fuse_reply_create(req, &e, fi);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		    const char *newname)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	int r = check_name(newname);
	if (!r)
		r = fault_gate_meta(fs, 0, ino, 0, NULL); /* power loss only */
	struct dp_txn t;
	if (!r)
		r = dp_begin(fs, &t);
	if (r)
		return reply_err(req, STATS_OP_LINK, t0, r);
	struct icache ic = {0};
	struct ms_inode *dir, *in;
	uint64_t existing;
	r = get_dir(&t, &ic, newparent, &dir);
	if (!r)
		r = ic_get(&t, &ic, ino, &in);
	if (!r && S_ISDIR(in->mode))
		r = -EPERM;
	if (!r &&
	    ns_dirent_lookup(fs->ms, t.txn, newparent, newname, &existing) == 0)
		r = -EEXIST;
	if (!r)
		r = ns_dirent_add(fs->ms, t.txn, newparent, dir, newname, ino);
	if (!r && in->nlink == 0) { /* an O_TMPFILE file given a name */
		MDB_val k = {sizeof(uint64_t), &ino};
		mdb_del(t.txn, metastore_dbi(fs->ms, MS_ORPHANS), &k, NULL);
	}
	struct ms_inode result;
	if (!r) {
		int64_t now = fs_now_ns();
		in->nlink++;
		in->ctime_ns = now;
		touch_dir(dir, now);
		result = *in;
		r = ic_put_all(&t, &ic);
	}
	r = r ? (dp_abort(&t), r) : dp_commit(&t);
	if (r)
		return reply_err(req, STATS_OP_LINK, t0, r);
	reply_entry(req, STATS_OP_LINK, t0, newparent, newname, ino, &result);
}

/* ---- removing names --------------------------------------------------- */

/* @in lost one link (or, for a directory, its only name). */
static int drop_link(struct dp_txn *t, uint64_t ino, struct ms_inode *in,
		     int64_t now)
{
	in->nlink = S_ISDIR(in->mode) ? 0 : in->nlink - 1;
	in->ctime_ns = now;
	return in->nlink ? 0 : add_orphan(t, ino);
}

static int remove_name(fuse_req_t req, uint64_t parent, const char *name,
		       bool want_dir, uint64_t *victim)
{
	struct fs *fs = fs_of(req);
	int r = check_name(name);
	if (!r)
		r = fault_gate_meta(fs, want_dir ? FOP_RMDIR : FOP_UNLINK, 0,
				    parent, name);
	struct dp_txn t;
	if (!r)
		r = dp_begin(fs, &t);
	if (r)
		return r;
	struct icache ic = {0};
	struct ms_inode *dir, *in;
	r = get_dir(&t, &ic, parent, &dir);
	if (!r)
		r = ns_dirent_lookup(fs->ms, t.txn, parent, name, victim);
	if (!r)
		r = ic_get(&t, &ic, *victim, &in);
	if (!r && want_dir && !S_ISDIR(in->mode))
		r = -ENOTDIR;
	if (!r && !want_dir && S_ISDIR(in->mode))
		r = -EISDIR;
	if (!r && want_dir)
		r = ns_dir_empty(fs->ms, t.txn, *victim);
	if (!r)
		r = ns_dirent_del(fs->ms, t.txn, parent, name);
	if (!r) {
		int64_t now = fs_now_ns();
		dir->nlink -= want_dir;
		touch_dir(dir, now);
		r = drop_link(&t, *victim, in, now);
	}
	if (!r)
		r = ic_put_all(&t, &ic);
	return r ? (dp_abort(&t), r) : dp_commit(&t);
}

static void finish_remove(fuse_req_t req, enum stats_op op, uint64_t t0, int r,
			  uint64_t victim)
{
	struct fs *fs = fs_of(req);
	if (!r && !inode_table_lookups(fs->itab, victim))
		r = fs_trim(fs, victim);
	reply_err(req, op, t0, r);
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	uint64_t t0 = stats_now_ns(), victim = 0;
	int r = remove_name(req, parent, name, false, &victim);
	finish_remove(req, STATS_OP_UNLINK, t0, r, victim);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	uint64_t t0 = stats_now_ns(), victim = 0;
	int r = remove_name(req, parent, name, true, &victim);
	finish_remove(req, STATS_OP_RMDIR, t0, r, victim);
}

/* ---- rename ----------------------------------------------------------- */

/* -EINVAL if directory @dir is @ino or lies below it. */
static int check_not_below(struct dp_txn *t, uint64_t dir, uint64_t ino)
{
	for (int depth = 0; depth < 4096; depth++) {
		if (dir == ino)
			return -EINVAL;
		if (dir == FUSE_ROOT_ID)
			return 0;
		struct ms_inode in;
		int r = ns_inode_get(t->fs->ms, t->txn, dir, &in);
		if (r)
			return r;
		dir = in.parent;
	}
	return -ELOOP;
}

struct rename_args {
	uint64_t parent, newparent;
	const char *name, *newname;
	unsigned flags;
};

/* Directory @ino moves from @from to @to: ".." and link counts follow. */
static void move_dir(struct ms_inode *in, struct ms_inode *from,
		     struct ms_inode *to, uint64_t to_ino)
{
	if (!S_ISDIR(in->mode) || from == to)
		return;
	in->parent = to_ino;
	from->nlink--;
	to->nlink++;
}

static int rename_exchange(struct dp_txn *t, struct icache *ic,
			   const struct rename_args *a, uint64_t src,
			   uint64_t dst)
{
	struct ms_inode *p, *np, *s, *d;
	int r = get_dir(t, ic, a->parent, &p);
	if (!r)
		r = get_dir(t, ic, a->newparent, &np);
	if (!r)
		r = ic_get(t, ic, src, &s);
	if (!r)
		r = ic_get(t, ic, dst, &d);
	if (!r && S_ISDIR(s->mode))
		r = check_not_below(t, a->newparent, src);
	if (!r && S_ISDIR(d->mode))
		r = check_not_below(t, a->parent, dst);
	if (!r)
		r = ns_dirent_retarget(t->fs->ms, t->txn, a->parent, a->name,
				       dst);
	if (!r)
		r = ns_dirent_retarget(t->fs->ms, t->txn, a->newparent,
				       a->newname, src);
	if (r)
		return r;
	int64_t now = fs_now_ns();
	move_dir(s, p, np, a->newparent);
	move_dir(d, np, p, a->parent);
	s->ctime_ns = d->ctime_ns = now;
	touch_dir(p, now);
	touch_dir(np, now);
	return 0;
}

/* Remove the existing target @dst of a plain rename of @src. */
static int rename_drop_target(struct dp_txn *t, struct icache *ic,
			      const struct rename_args *a, struct ms_inode *s,
			      uint64_t dst, struct ms_inode *np)
{
	struct ms_inode *d;
	int r = ic_get(t, ic, dst, &d);
	if (r)
		return r;
	if (S_ISDIR(s->mode) && !S_ISDIR(d->mode))
		return -ENOTDIR;
	if (!S_ISDIR(s->mode) && S_ISDIR(d->mode))
		return -EISDIR;
	if (S_ISDIR(d->mode)) {
		r = ns_dir_empty(t->fs->ms, t->txn, dst);
		if (r)
			return r;
		np->nlink--;
	}
	r = ns_dirent_del(t->fs->ms, t->txn, a->newparent, a->newname);
	return r ? r : drop_link(t, dst, d, fs_now_ns());
}

static int rename_plain(struct dp_txn *t, struct icache *ic,
			const struct rename_args *a, uint64_t src, uint64_t dst,
			bool dst_exists)
{
	struct ms_inode *p, *np, *s;
	int r = get_dir(t, ic, a->parent, &p);
	if (!r)
		r = get_dir(t, ic, a->newparent, &np);
	if (!r)
		r = ic_get(t, ic, src, &s);
	if (!r && S_ISDIR(s->mode))
		r = check_not_below(t, a->newparent, src);
	if (!r && dst_exists)
		r = rename_drop_target(t, ic, a, s, dst, np);
	if (!r)
		r = ns_dirent_del(t->fs->ms, t->txn, a->parent, a->name);
	if (!r)
		r = ns_dirent_add(t->fs->ms, t->txn, a->newparent, np,
				  a->newname, src);
	if (r)
		return r;
	int64_t now = fs_now_ns();
	move_dir(s, p, np, a->newparent);
	s->ctime_ns = now;
	touch_dir(p, now);
	touch_dir(np, now);
	return 0;
}

static int do_rename(fuse_req_t req, const struct rename_args *a,
		     uint64_t *victim)
{
	struct fs *fs = fs_of(req);
	if (a->flags & ~(unsigned)(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	if ((a->flags & RENAME_NOREPLACE) && (a->flags & RENAME_EXCHANGE))
		return -EINVAL;
	int r = check_name(a->name);
	if (!r)
		r = check_name(a->newname);
	if (!r)
		r = fault_gate_meta(fs, FOP_RENAME, 0, a->parent, a->name);
	struct dp_txn t;
	if (!r)
		r = dp_begin(fs, &t);
	if (r)
		return r;
	struct icache ic = {0};
	uint64_t src, dst = 0;
	r = ns_dirent_lookup(fs->ms, t.txn, a->parent, a->name, &src);
	int dr =
	    r ? r
	      : ns_dirent_lookup(fs->ms, t.txn, a->newparent, a->newname, &dst);
	bool dst_exists = dr == 0;
	if (!r && dr && dr != -ENOENT)
		r = dr;
	if (!r && (a->flags & RENAME_NOREPLACE) && dst_exists)
		r = -EEXIST;
	if (!r && (a->flags & RENAME_EXCHANGE) && !dst_exists)
		r = -ENOENT;
	if (!r && dst_exists && src == dst) {
		dp_abort(&t); /* two names of one inode: nothing to do */
		return 0;
	}
	if (!r)
		r = (a->flags & RENAME_EXCHANGE)
			? rename_exchange(&t, &ic, a, src, dst)
			: rename_plain(&t, &ic, a, src, dst, dst_exists);
	if (!r)
		r = ic_put_all(&t, &ic);
	if (!r && dst_exists && !(a->flags & RENAME_EXCHANGE))
		*victim = dst;
	if (r) {
		dp_abort(&t);
		return r;
	}
	r = dp_commit(&t);
	if (!r)
		inode_table_renamed(fs->itab, src, a->newparent, a->newname);
	if (!r && (a->flags & RENAME_EXCHANGE))
		inode_table_renamed(fs->itab, dst, a->parent, a->name);
	return r;
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		      fuse_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	uint64_t t0 = stats_now_ns(), victim = 0;
	struct rename_args a = {parent, newparent, name, newname, flags};
	int r = do_rename(req, &a, &victim);
	if (victim)
		return finish_remove(req, STATS_OP_RENAME, t0, r, victim);
	reply_err(req, STATS_OP_RENAME, t0, r);
}

/* ---- symlinks, open, read, write -------------------------------------- */

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	char target[NS_SYMLINK_MAX + 1];
	MDB_txn *txn;
	int r = metastore_txn_begin(fs->ms, false, &txn);
	if (r)
		return reply_err(req, STATS_OP_OTHER, t0, r);
	r = ns_symlink_get(fs->ms, txn, ino, target, sizeof(target));
	metastore_txn_abort(txn);
	if (r)
		return reply_err(req, STATS_OP_OTHER, t0,
				 r == -ENOENT ? -EINVAL : r);
	account(req, STATS_OP_OTHER, t0, 0, 0);
	fuse_reply_readlink(req, target);
}

/* libfuse asks for atomic O_TRUNC, so the kernel leaves the truncation of
 * an O_TRUNC open to us. */
static int truncate_on_open(struct fs *fs, uint64_t ino)
{
	struct stat a = {.st_size = 0};
	struct ms_inode in;
	return setattr_txn(fs, ino, &a, FUSE_SET_ATTR_SIZE, &in);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	int r = fault_gate_meta(fs_of(req), FOP_OPEN, ino, 0, NULL);
	if (!r && (fi->flags & O_TRUNC))
		r = truncate_on_open(fs_of(req), ino);
	if (r)
		return reply_err(req, STATS_OP_OPEN, t0, r);
	set_open_flags(fs_of(req), fi);
	account(req, STATS_OP_OPEN, t0, 0, 0);
	fuse_reply_open(req, fi);
}

/* A read or write in flight through the array model. */
struct fs_io {
	struct array_io io;
	fuse_req_t req;
	void *buf;
	size_t got;	 /* reads: bytes to return */
	uint64_t *pblks; /* io.pblks, when the model wants them */
};

/* Where each block of [off, off+len) is stored, for a model that keeps
 * residency by physical block; NULL otherwise (or without memory: the
 * model then keys by logical block). Zeros until the data path fills
 * it, so blocks a torn write did not store count as holes. */
static void want_blocks(struct fs *fs, struct fs_io *x, uint64_t off,
			size_t len)
{
	if (!len || !array_wants_blocks(fs->array))
		return;
	x->pblks =
	    calloc((off % BLOCK_SIZE + len + BLOCK_SIZE - 1) / BLOCK_SIZE,
		   sizeof(uint64_t));
	x->io.pblks = x->pblks;
}

static void complete_read(struct array_io *aio)
{
	struct fs_io *x = (struct fs_io *)aio;
	if (aio->result) {
		reply_err(x->req, STATS_OP_READ, aio->submit_ns, aio->result);
	} else {
		account(x->req, STATS_OP_READ, aio->submit_ns, 0, x->got);
		fuse_reply_buf(x->req, x->buf, x->got);
	}
	free(x->buf);
	free(x->pblks);
	free(x);
}

static void complete_write(struct array_io *aio)
{
	struct fs_io *x = (struct fs_io *)aio;
	if (aio->result) {
		reply_err(x->req, STATS_OP_WRITE, aio->submit_ns, aio->result);
	} else {
		account(x->req, STATS_OP_WRITE, aio->submit_ns, 0, aio->length);
		fuse_reply_write(x->req, aio->length);
	}
	free(x->pblks);
	free(x);
}

static struct fs_io *new_io(fuse_req_t req, enum array_io_kind kind,
			    uint64_t ino, uint64_t off, size_t len, uint64_t t0)
{
	struct fs_io *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->req = req;
	x->io = (struct array_io){
	    .kind = kind,
	    .ino = ino,
	    .offset = off,
	    .length = len,
	    .submit_ns = t0,
	    .complete = kind == ARRAY_IO_READ ? complete_read : complete_write,
	};
	return x;
}

/* A request given injected latency goes to the array model that much
 * later: the completer thread holds it, no worker does. */
static void resume_after_delay(struct array_io *aio)
{
	struct fs_io *x = (struct fs_io *)aio;
	aio->complete =
	    aio->kind == ARRAY_IO_READ ? complete_read : complete_write;
	array_submit(fs_of(x->req)->array, aio);
}

static void submit_io(struct fs *fs, struct fs_io *x, uint64_t delay_ns)
{
	if (delay_ns) {
		void (*complete)(struct array_io *) = x->io.complete;
		x->io.complete = resume_after_delay;
		if (completer_submit(fs->fault_delay, stats_now_ns() + delay_ns,
				     &x->io) == 0)
			return;
		x->io.complete = complete; /* no memory to queue: no delay */
	}
	array_submit(fs->array, &x->io);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct fault_hit hit;
	fault_gate_io(fs, FOP_READ, ino, off, size, &hit);
	if (hit.err)
		return reply_err(req, STATS_OP_READ, t0, hit.err);
	struct fs_io *x = new_io(req, ARRAY_IO_READ, ino, off, size, t0);
	void *buf = x ? aligned_alloc(BLOCK_SIZE, (size + BLOCK_SIZE - 1) &
						      ~(size_t)(BLOCK_SIZE - 1))
		      : NULL;
	if (!buf) {
		free(x);
		return reply_err(req, STATS_OP_READ, t0, -ENOMEM);
	}
	x->buf = buf;
	want_blocks(fs, x, off, size);
	x->io.result =
	    datapath_read_map(fs, ino, off, size, buf, &x->got, x->pblks);
	submit_io(fs, x, hit.delay_ns);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		     size_t size, off_t off, struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct fault_hit hit;
	fault_gate_io(fs, FOP_WRITE, ino, off, size, &hit);
	if (hit.err)
		return reply_err(req, STATS_OP_WRITE, t0, hit.err);
	struct fs_io *x = new_io(req, ARRAY_IO_WRITE, ino, off, size, t0);
	if (!x)
		return reply_err(req, STATS_OP_WRITE, t0, -ENOMEM);
	/* A torn write stores a prefix and reports all of it written, as a
	 * device that loses power mid-write told its host. */
	size_t keep = hit.torn ? fault_gate_torn_prefix(size) : size;
	if (hit.torn)
		fault_gate_torn_event(fs, ino, off, size, keep, hit.rule_id);
	bool drop_setid = fuse_req_ctx(req)->uid != 0;
	struct dp_write w;
	x->io.result = datapath_write_prep(&w, off, buf, keep);
	want_blocks(fs, x, off, size);
	w.pblks = x->pblks;
	if (!x->io.result) {
		inode_table_lock(fs->itab, ino);
		x->io.result =
		    datapath_write_commit(fs, &w, ino, &drop_setid, &x->io);
		inode_table_unlock(fs->itab, ino);
	}
	datapath_write_free(&w);
	if (!x->io.result && drop_setid && fs->session)
		fuse_lowlevel_notify_inval_inode(fs->session, ino, -1, 0);
	submit_io(fs, x, hit.delay_ns);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

static void op_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		     struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	int r = fault_gate_meta(fs_of(req), FOP_FSYNC, ino, 0, NULL);
	reply_err(req, STATS_OP_FSYNC, t0, r ? r : fs_sync(fs_of(req)));
}

/* ---- directories ------------------------------------------------------ */

static void op_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	fuse_reply_open(req, fi);
}

struct dir_fill {
	fuse_req_t req;
	struct fs *fs;
	MDB_txn *txn;
	char *buf;
	size_t size, used;
	int err;
};

static bool fill_one(struct dir_fill *d, const char *name, uint64_t ino,
		     uint32_t mode, off_t next)
{
	struct stat st = {.st_ino = ino, .st_mode = mode};
	size_t need = fuse_add_direntry(d->req, NULL, 0, name, NULL, 0);
	if (d->used + need > d->size)
		return false;
	fuse_add_direntry(d->req, d->buf + d->used, d->size - d->used, name,
			  &st, next);
	d->used += need;
	return true;
}

static int fill_entry(void *ctx, const char *name, size_t len, uint64_t ino,
		      uint64_t cookie)
{
	struct dir_fill *d = ctx;
	char nm[NS_NAME_MAX + 1];
	struct ms_inode in;
	if (len > NS_NAME_MAX) {
		d->err = -EIO;
		return 1;
	}
	memcpy(nm, name, len);
	nm[len] = '\0';
	d->err = ns_inode_get(d->fs->ms, d->txn, ino, &in);
	if (d->err)
		return 1;
	return !fill_one(d, nm, ino, in.mode, (off_t)cookie + 1);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		       struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct dir_fill d = {.req = req, .fs = fs, .size = size};
	int r = fault_gate_meta(fs, FOP_READDIR, ino, 0, NULL);
	if (r)
		return reply_err(req, STATS_OP_READDIR, t0, r);
	d.buf = malloc(size);
	r = d.buf ? metastore_txn_begin(fs->ms, false, &d.txn) : -ENOMEM;
	struct ms_inode dir;
	if (!r)
		r = ns_inode_get(fs->ms, d.txn, ino, &dir);
	if (!r && off < 1 && !fill_one(&d, ".", ino, S_IFDIR, 1))
		off = -1;
	if (!r && off >= 0 && off < 2 &&
	    !fill_one(&d, "..", dir.parent, S_IFDIR, 2))
		off = -1;
	if (!r && off >= 0) {
		uint64_t from =
		    off < NS_FIRST_COOKIE ? NS_FIRST_COOKIE : (uint64_t)off;
		r = ns_dir_iterate(fs->ms, d.txn, ino, from, fill_entry, &d);
		if (!r)
			r = d.err;
	}
	metastore_txn_abort(d.txn);
	if (r) {
		free(d.buf);
		return reply_err(req, STATS_OP_READDIR, t0, r);
	}
	account(req, STATS_OP_READDIR, t0, 0, 0);
	fuse_reply_buf(req, d.buf, d.used);
	free(d.buf);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino,
			  struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

static void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
			struct fuse_file_info *fi)
{
	op_fsync(req, ino, datasync, fi);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
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

/* ---- xattrs ----------------------------------------------------------- */

/* The namespaces a local filesystem stores. Not system.*: permission
 * checks are the kernel's, on mode bits alone, and storing an ACL nobody
 * enforces would be a lie. */
static int xattr_supported(const char *name)
{
	static const char *const prefixes[] = {"user.", "trusted.",
					       "security."};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 0;
	return -EOPNOTSUPP;
}

static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			const char *value, size_t size, int flags)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct dp_txn t;
	int r = xattr_supported(name);
	if (!r)
		r = fault_gate_meta(fs, 0, ino, 0, NULL); /* power loss only */
	if (!r)
		r = dp_begin(fs, &t);
	if (r)
		return reply_err(req, STATS_OP_XATTR, t0, r);
	struct ms_inode in;
	r = ns_inode_get(fs->ms, t.txn, ino, &in);
	if (!r)
		r = ns_xattr_set(fs->ms, t.txn, ino, name, value, size, flags);
	if (!r) {
		in.ctime_ns = fs_now_ns();
		r = ns_inode_put(fs->ms, t.txn, ino, &in);
	}
	r = r ? (dp_abort(&t), r) : dp_commit(&t);
	reply_err(req, STATS_OP_XATTR, t0, r);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			size_t size)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	MDB_txn *txn;
	int r = xattr_supported(name);
	if (r)
		return reply_err(req, STATS_OP_XATTR, t0, -ENODATA);
	r = metastore_txn_begin(fs->ms, false, &txn);
	if (r)
		return reply_err(req, STATS_OP_XATTR, t0, r);
	const void *v;
	size_t vsize;
	r = ns_xattr_get(fs->ms, txn, ino, name, &v, &vsize);
	if (!r && size && vsize > size)
		r = -ERANGE;
	if (!r) {
		account(req, STATS_OP_XATTR, t0, 0, 0);
		if (size)
			fuse_reply_buf(req, v, vsize);
		else
			fuse_reply_xattr(req, vsize);
	}
	metastore_txn_abort(txn);
	if (r)
		reply_err(req, STATS_OP_XATTR, t0, r);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	MDB_txn *txn;
	char *buf = size ? malloc(size) : NULL;
	int r =
	    size && !buf ? -ENOMEM : metastore_txn_begin(fs->ms, false, &txn);
	if (r) {
		free(buf);
		return reply_err(req, STATS_OP_XATTR, t0, r);
	}
	size_t need = 0;
	r = ns_xattr_list(fs->ms, txn, ino, buf, size, &need);
	metastore_txn_abort(txn);
	if (!r) {
		account(req, STATS_OP_XATTR, t0, 0, 0);
		if (size)
			fuse_reply_buf(req, buf, need);
		else
			fuse_reply_xattr(req, need);
	} else {
		reply_err(req, STATS_OP_XATTR, t0, r);
	}
	free(buf);
}

static void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct dp_txn t;
	int r = xattr_supported(name);
	if (r)
		return reply_err(req, STATS_OP_XATTR, t0, -ENODATA);
	r = fault_gate_meta(fs, 0, ino, 0, NULL); /* power loss only */
	if (!r)
		r = dp_begin(fs, &t);
	if (r)
		return reply_err(req, STATS_OP_XATTR, t0, r);
	struct ms_inode in;
	r = ns_inode_get(fs->ms, t.txn, ino, &in);
	if (!r)
		r = ns_xattr_del(fs->ms, t.txn, ino, name);
	if (!r) {
		in.ctime_ns = fs_now_ns();
		r = ns_inode_put(fs->ms, t.txn, ino, &in);
	}
	r = r ? (dp_abort(&t), r) : dp_commit(&t);
	reply_err(req, STATS_OP_XATTR, t0, r);
}

/* ---- fallocate -------------------------------------------------------- */

/* One transaction of a fallocate; *more: a punch to finish in another. */
static int fallocate_step(struct dp_txn *t, uint64_t ino, int mode,
			  uint64_t off, uint64_t len, bool *more)
{
	struct ms_inode in;
	*more = false;
	int r = ns_inode_get(t->fs->ms, t->txn, ino, &in);
	if (r)
		return r;
	if (!S_ISREG(in.mode))
		return -ENODEV;
	if (off + len < off)
		return -EFBIG;
	if (mode == (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)) {
		r = datapath_punch(t, ino, &in, off, len, more);
	} else if (mode == 0 || mode == FALLOC_FL_KEEP_SIZE) {
		/* Thin provisioning: nothing to reserve; zeros are holes.
		 * Only the size can change. */
		if (mode == 0 && off + len > in.size)
			r = datapath_truncate(t, ino, &in, off + len);
	} else {
		return -EOPNOTSUPP;
	}
	if (r)
		return r;
	in.mtime_ns = in.ctime_ns = fs_now_ns();
	return ns_inode_put(t->fs->ms, t->txn, ino, &in);
}

static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
			 off_t len, struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	if (off < 0 || len <= 0)
		return reply_err(req, STATS_OP_FALLOCATE, t0, -EINVAL);
	int gate = fault_gate_meta(fs, 0, ino, 0, NULL); /* power loss only */
	if (gate)
		return reply_err(req, STATS_OP_FALLOCATE, t0, gate);
	inode_table_lock(fs->itab, ino);
	bool more;
	int r;
	do {
		struct dp_txn t;
		r = dp_begin(fs, &t);
		if (r)
			break;
		r = fallocate_step(&t, ino, mode, off, len, &more);
		r = r ? (dp_abort(&t), r) : dp_commit(&t);
	} while (!r && more);
	inode_table_unlock(fs->itab, ino);
	reply_err(req, STATS_OP_FALLOCATE, t0, r);
}

/* ---- session ---------------------------------------------------------- */

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	conn->want &= ~(unsigned)FUSE_CAP_READDIRPLUS;
	if (conn->capable & FUSE_CAP_ASYNC_DIO)
		conn->want |= FUSE_CAP_ASYNC_DIO;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	/* Large requests: a 1 MiB write is one request, as it is to an array
	 * on the other end of a SCSI or NFS link. */
	conn->max_write = 1u << 20;
	conn->max_readahead = 1u << 20;
	/* Asynchronous direct I/O counts as background requests, which the
	 * kernel holds to 12 in flight by default: a timed array would never
	 * see fio's iodepth=32. Allow what a real array's queues take from
	 * many hosts (the Infinidat report's load kept about 1200
	 * outstanding: tiers/profiles/infinidat-6303.ini). A request waits
	 * in the array model, not in a thread, so the count costs memory
	 * only. */
	conn->max_background = 2048;
	conn->congestion_threshold = 1536;
}

const struct fuse_lowlevel_ops fs_ops = {
    .init = op_init,
    .lookup = op_lookup,
    .forget = op_forget,
    .forget_multi = op_forget_multi,
    .getattr = op_getattr,
    .setattr = op_setattr,
    .readlink = op_readlink,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_rmdir,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .open = op_open,
    .read = op_read,
    .write = op_write,
    .flush = op_flush,
    .release = op_release,
    .fsync = op_fsync,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .releasedir = op_releasedir,
    .fsyncdir = op_fsyncdir,
    .statfs = op_statfs,
    .setxattr = op_setxattr,
    .getxattr = op_getxattr,
    .listxattr = op_listxattr,
    .removexattr = op_removexattr,
    .create = op_create,
    .fallocate = op_fallocate,
};
