/* FUSE ops that create, remove, move and read names: mknod, mkdir,
 * symlink, create, link, unlink, rmdir, rename, readlink.
 *
 * An inode whose last link goes while the kernel still holds it is
 * recorded as an orphan and deleted when the kernel forgets it (or at the
 * next mount). */
#include "fs/ops_i.h"

#include <errno.h>
#include <stdio.h> /* RENAME_NOREPLACE, RENAME_EXCHANGE */
#include <string.h>

#include "fs/datapath.h"
#include "fs/fault_gate.h"
#include "fs/inode_table.h"
#include "fs/namespace.h"

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

void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	      dev_t rdev)
{
	struct new_node nn = {.mode = mode, .rdev = rdev};
	reply_new(req, STATS_OP_CREATE, stats_now_ns(), parent, name, &nn);
}

void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	struct new_node nn = {.mode = S_IFDIR | (mode & 07777)};
	reply_new(req, STATS_OP_MKDIR, stats_now_ns(), parent, name, &nn);
}

void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		const char *name)
{
	uint64_t t0 = stats_now_ns();
	if (strlen(link) > NS_SYMLINK_MAX)
		return reply_err(req, STATS_OP_SYMLINK, t0, -ENAMETOOLONG);
	struct new_node nn = {.mode = S_IFLNK | 0777, .link = link};
	reply_new(req, STATS_OP_SYMLINK, t0, parent, name, &nn);
}

void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	       struct fuse_file_info *fi)
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

void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
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

void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
	       fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	uint64_t t0 = stats_now_ns(), victim = 0;
	struct rename_args a = {parent, newparent, name, newname, flags};
	int r = do_rename(req, &a, &victim);
	if (victim)
		return finish_remove(req, STATS_OP_RENAME, t0, r, victim);
	reply_err(req, STATS_OP_RENAME, t0, r);
}

void op_readlink(fuse_req_t req, fuse_ino_t ino)
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
