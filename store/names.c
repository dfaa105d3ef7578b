/* The namespace algorithms of the datastore (store/names.h): each name change
 * is a few reads and writes of inodes and directory entries
 * (store/namespace.c) inside one transaction.
 *
 *   names_make    parent dir  +entry  (+1 nlink for a subdirectory)
 *   names_link    inode +1    +entry
 *   names_remove  inode -1    -entry  (nlink 0: an orphan)
 *   names_rename  plain:    -entry in parent, +entry in newparent, an
 *                           existing target dropped as by names_remove;
 *                 exchange: both entries retargeted
 *                 a directory that changes parent moves its ".." and one
 *                 link from the old parent to the new.
 *
 * The inodes one change touches go through a small cache (struct icache),
 * loaded once and stored once at the end, so that aliases (a parent that is
 * also the new parent) stay one copy and nothing is stored half-changed.
 */
#include "store/names.h"

#include <errno.h>
#include <stdio.h> /* RENAME_NOREPLACE, RENAME_EXCHANGE */
#include <string.h>
#include <sys/stat.h>

#include "store/datapath.h"
#include "store/namespace.h"
#include "store/orphans.h"
#include "store/store_i.h"

/* ---- inode cache of one transaction ----------------------------------- */

struct icache {
	unsigned n;
	uint64_t ino[4];
	struct ms_inode in[4];
};

static int icache_get(struct store_txn *t, struct icache *c, uint64_t ino,
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
	int r = ns_inode_get(t->st->ms, t->txn, ino, &c->in[c->n]);
	if (r)
		return r;
	c->ino[c->n] = ino;
	*out = &c->in[c->n++];
	return 0;
}

static int icache_put_all(struct store_txn *t, struct icache *c)
{
	for (unsigned i = 0; i < c->n; i++) {
		int r = ns_inode_put(t->st->ms, t->txn, c->ino[i], &c->in[i]);
		if (r)
			return r;
	}
	return 0;
}

/* The directory @ino, writable for a new or removed entry. */
static int get_dir(struct store_txn *t, struct icache *c, uint64_t ino,
		   struct ms_inode **out)
{
	int r = icache_get(t, c, ino, out);
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

/* @in lost one link (or, for a directory, its only name). */
static int drop_link(struct store_txn *t, uint64_t ino, struct ms_inode *in,
		     int64_t now)
{
	in->nlink = S_ISDIR(in->mode) ? 0 : in->nlink - 1;
	in->ctime_ns = now;
	return in->nlink ? 0 : orphans_add(t, ino);
}

/* ---- make, link, remove ------------------------------------------------ */

/* Store @nn's symlink target, and its length as the inode's size. */
static int put_target(struct store_txn *t, const struct names_node *nn,
		      uint64_t ino, struct ms_inode *out)
{
	out->size = strlen(nn->link);
	int r = ns_symlink_put(t->st->ms, t->txn, ino, nn->link);
	return r ? r : ns_inode_put(t->st->ms, t->txn, ino, out);
}

int names_make(struct store_txn *t, uint64_t parent, const char *name,
	       const struct names_node *nn, uint64_t *ino, struct ms_inode *out)
{
	struct metastore *ms = t->st->ms;
	struct icache ic = {0};
	struct ms_inode *dir;
	uint64_t existing;
	int r = get_dir(t, &ic, parent, &dir);
	if (!r && ns_dirent_lookup(ms, t->txn, parent, name, &existing) == 0)
		r = -EEXIST;
	uint32_t mode = nn->mode, gid = nn->gid;
	if (!r && (dir->mode & S_ISGID)) {
		/* BSD group semantics, as ext4 under a setgid directory. */
		gid = dir->gid;
		if (S_ISDIR(mode))
			mode |= S_ISGID;
	}
	if (!r)
		r = ns_inode_new(ms, t->txn, &t->c, mode, nn->uid, gid,
				 nn->rdev, parent, ino, out);
	if (!r && nn->link)
		r = put_target(t, nn, *ino, out);
	if (!r)
		r = ns_dirent_add(ms, t->txn, parent, dir, name, *ino);
	if (r)
		return r;
	dir->nlink += S_ISDIR(mode);
	touch_dir(dir, out->ctime_ns);
	return icache_put_all(t, &ic);
}

int names_link(struct store_txn *t, uint64_t ino, uint64_t newparent,
	       const char *newname, struct ms_inode *out)
{
	struct metastore *ms = t->st->ms;
	struct icache ic = {0};
	struct ms_inode *dir, *in;
	uint64_t existing;
	int r = get_dir(t, &ic, newparent, &dir);
	if (!r)
		r = icache_get(t, &ic, ino, &in);
	if (!r && S_ISDIR(in->mode))
		r = -EPERM;
	if (!r &&
	    ns_dirent_lookup(ms, t->txn, newparent, newname, &existing) == 0)
		r = -EEXIST;
	if (!r)
		r = ns_dirent_add(ms, t->txn, newparent, dir, newname, ino);
	if (r)
		return r;
	/* An O_TMPFILE file given a name. A record left behind on error
	 * costs the next trim of @ino nothing but its own removal. */
	if (in->nlink == 0)
		(void)orphans_del(t, ino);
	int64_t now = store_now_ns();
	in->nlink++;
	in->ctime_ns = now;
	touch_dir(dir, now);
	*out = *in;
	return icache_put_all(t, &ic);
}

int names_remove(struct store_txn *t, uint64_t parent, const char *name,
		 bool want_dir, uint64_t *victim)
{
	struct metastore *ms = t->st->ms;
	struct icache ic = {0};
	struct ms_inode *dir, *in;
	int r = get_dir(t, &ic, parent, &dir);
	if (!r)
		r = ns_dirent_lookup(ms, t->txn, parent, name, victim);
	if (!r)
		r = icache_get(t, &ic, *victim, &in);
	if (!r && want_dir && !S_ISDIR(in->mode))
		r = -ENOTDIR;
	if (!r && !want_dir && S_ISDIR(in->mode))
		r = -EISDIR;
	if (!r && want_dir)
		r = ns_dir_empty(ms, t->txn, *victim);
	if (!r)
		r = ns_dirent_del(ms, t->txn, parent, name);
	if (!r) {
		int64_t now = store_now_ns();
		dir->nlink -= want_dir;
		touch_dir(dir, now);
		r = drop_link(t, *victim, in, now);
	}
	return r ? r : icache_put_all(t, &ic);
}

/* ---- rename ----------------------------------------------------------- */

/* -EINVAL if directory @dir is @ino or lies below it. */
static int check_not_below(struct store_txn *t, uint64_t dir, uint64_t ino)
{
	for (int depth = 0; depth < 4096; depth++) {
		if (dir == ino)
			return -EINVAL;
		if (dir == NS_ROOT_INO)
			return 0;
		struct ms_inode in;
		int r = ns_inode_get(t->st->ms, t->txn, dir, &in);
		if (r)
			return r;
		dir = in.parent;
	}
	return -ELOOP;
}

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

static int rename_exchange(struct store_txn *t, struct icache *ic,
			   const struct names_rename *a, uint64_t src,
			   uint64_t dst)
{
	struct ms_inode *p, *np, *s, *d;
	int r = get_dir(t, ic, a->parent, &p);
	if (!r)
		r = get_dir(t, ic, a->newparent, &np);
	if (!r)
		r = icache_get(t, ic, src, &s);
	if (!r)
		r = icache_get(t, ic, dst, &d);
	if (!r && S_ISDIR(s->mode))
		r = check_not_below(t, a->newparent, src);
	if (!r && S_ISDIR(d->mode))
		r = check_not_below(t, a->parent, dst);
	if (!r)
		r = ns_dirent_retarget(t->st->ms, t->txn, a->parent, a->name,
				       dst);
	if (!r)
		r = ns_dirent_retarget(t->st->ms, t->txn, a->newparent,
				       a->newname, src);
	if (r)
		return r;
	int64_t now = store_now_ns();
	move_dir(s, p, np, a->newparent);
	move_dir(d, np, p, a->parent);
	s->ctime_ns = d->ctime_ns = now;
	touch_dir(p, now);
	touch_dir(np, now);
	return 0;
}

/* Remove the existing target @dst of a plain rename of @src. */
static int rename_drop_target(struct store_txn *t, struct icache *ic,
			      const struct names_rename *a, struct ms_inode *s,
			      uint64_t dst, struct ms_inode *np)
{
	struct ms_inode *d;
	int r = icache_get(t, ic, dst, &d);
	if (r)
		return r;
	if (S_ISDIR(s->mode) && !S_ISDIR(d->mode))
		return -ENOTDIR;
	if (!S_ISDIR(s->mode) && S_ISDIR(d->mode))
		return -EISDIR;
	if (S_ISDIR(d->mode)) {
		r = ns_dir_empty(t->st->ms, t->txn, dst);
		if (r)
			return r;
		np->nlink--;
	}
	r = ns_dirent_del(t->st->ms, t->txn, a->newparent, a->newname);
	return r ? r : drop_link(t, dst, d, store_now_ns());
}

static int rename_plain(struct store_txn *t, struct icache *ic,
			const struct names_rename *a, uint64_t src,
			uint64_t dst, bool dst_exists)
{
	struct ms_inode *p, *np, *s;
	int r = get_dir(t, ic, a->parent, &p);
	if (!r)
		r = get_dir(t, ic, a->newparent, &np);
	if (!r)
		r = icache_get(t, ic, src, &s);
	if (!r && S_ISDIR(s->mode))
		r = check_not_below(t, a->newparent, src);
	if (!r && dst_exists)
		r = rename_drop_target(t, ic, a, s, dst, np);
	if (!r)
		r = ns_dirent_del(t->st->ms, t->txn, a->parent, a->name);
	if (!r)
		r = ns_dirent_add(t->st->ms, t->txn, a->newparent, np,
				  a->newname, src);
	if (r)
		return r;
	int64_t now = store_now_ns();
	move_dir(s, p, np, a->newparent);
	s->ctime_ns = now;
	touch_dir(p, now);
	touch_dir(np, now);
	return 0;
}

int names_rename_flags(unsigned flags)
{
	if (flags & ~(unsigned)(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	if ((flags & RENAME_NOREPLACE) && (flags & RENAME_EXCHANGE))
		return -EINVAL;
	return 0;
}

int names_rename(struct store_txn *t, const struct names_rename *a,
		 struct names_renamed *out)
{
	struct metastore *ms = t->st->ms;
	bool exchange = a->flags & RENAME_EXCHANGE;
	*out = (struct names_renamed){0};
	int r = names_rename_flags(a->flags);
	if (!r)
		r = ns_dirent_lookup(ms, t->txn, a->parent, a->name, &out->src);
	int dr = r ? r
		   : ns_dirent_lookup(ms, t->txn, a->newparent, a->newname,
				      &out->dst);
	bool dst_exists = dr == 0;
	if (!r && dr && dr != -ENOENT)
		r = dr;
	if (!r && (a->flags & RENAME_NOREPLACE) && dst_exists)
		r = -EEXIST;
	if (!r && exchange && !dst_exists)
		r = -ENOENT;
	if (r)
		return r;
	if (!dst_exists)
		out->dst = 0;
	if (dst_exists && out->src == out->dst) {
		out->noop = true; /* two names of one inode: nothing to do */
		return 0;
	}
	struct icache ic = {0};
	r = exchange ? rename_exchange(t, &ic, a, out->src, out->dst)
		     : rename_plain(t, &ic, a, out->src, out->dst, dst_exists);
	if (!r)
		r = icache_put_all(t, &ic);
	if (!r)
		out->replaced = dst_exists && !exchange;
	return r;
}
