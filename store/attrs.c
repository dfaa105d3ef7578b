/* Changes to one inode that are not names (store/attrs.h): the fields of a
 * setattr, the size changes of a fallocate, xattrs. Sizes go through the
 * data path (datapath_truncate, datapath_punch), which drops or zeroes
 * blocks; everything else is the inode record (store/namespace.c). */
#include "store/attrs.h"

#include <errno.h>
#include <fcntl.h> /* FALLOC_FL_* */

#include "store/datapath.h"
#include "store/caps.h"
#include "store/namespace.h"
#include "store/store_i.h"

static int64_t attr_time(const struct timespec *ts, bool now, int64_t t_now)
{
	return now ? t_now : (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* What the VFS does to a file on truncate and chown (do_truncate,
 * chown_common): set-ID bits for the callers the kernel names, file
 * capabilities for any. */
static int kill_priv(struct store_txn *t, uint64_t ino, struct ms_inode *in,
		     int set)
{
	if (S_ISDIR(in->mode) ||
	    !(set & (ATTRS_SET_SIZE | ATTRS_SET_UID | ATTRS_SET_GID)))
		return 0;
	if (set & ATTRS_KILL_SUIDGID)
		caps_drop_setid(&in->mode);
	bool removed;
	return caps_kill(t, ino, &removed);
}

static int apply(struct store_txn *t, uint64_t ino, struct ms_inode *in,
		 const struct stat *a, int set)
{
	int64_t now = store_now_ns();
	if (set & ATTRS_SET_SIZE) {
		if (S_ISDIR(in->mode))
			return -EISDIR;
		if (!S_ISREG(in->mode))
			return -EINVAL;
		int r = datapath_truncate(t, ino, in, (uint64_t)a->st_size);
		if (r)
			return r;
		in->mtime_ns = now;
	}
	if (set & ATTRS_SET_MODE)
		in->mode = (in->mode & S_IFMT) | (a->st_mode & 07777);
	if (set & ATTRS_SET_UID)
		in->uid = a->st_uid;
	if (set & ATTRS_SET_GID)
		in->gid = a->st_gid;
	if (set & (ATTRS_SET_ATIME | ATTRS_SET_ATIME_NOW))
		in->atime_ns =
		    attr_time(&a->st_atim, set & ATTRS_SET_ATIME_NOW, now);
	if (set & (ATTRS_SET_MTIME | ATTRS_SET_MTIME_NOW))
		in->mtime_ns =
		    attr_time(&a->st_mtim, set & ATTRS_SET_MTIME_NOW, now);
	int r = kill_priv(t, ino, in, set);
	if (r)
		return r;
	if (set & ATTRS_SET_CTIME)
		in->ctime_ns = attr_time(&a->st_ctim, false, now);
	else
		in->ctime_ns = now;
	return ns_inode_put(t->st->ms, t->txn, ino, in);
}

int attrs_set(struct store_txn *t, uint64_t ino, const struct stat *a, int set,
	      struct ms_inode *out)
{
	int r = ns_inode_get(t->st->ms, t->txn, ino, out);
	return r ? r : apply(t, ino, out, a, set);
}

int attrs_fallocate_step(struct store_txn *t, uint64_t ino, int mode,
			 uint64_t off, uint64_t len, bool *more)
{
	struct ms_inode in;
	*more = false;
	int r = ns_inode_get(t->st->ms, t->txn, ino, &in);
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
	in.mtime_ns = in.ctime_ns = store_now_ns();
	return ns_inode_put(t->st->ms, t->txn, ino, &in);
}

/* The xattr change is in: @in's ctime follows. */
static int touch(struct store_txn *t, uint64_t ino, struct ms_inode *in)
{
	in->ctime_ns = store_now_ns();
	return ns_inode_put(t->st->ms, t->txn, ino, in);
}

int attrs_xattr_set(struct store_txn *t, uint64_t ino, const char *name,
		    const void *value, size_t size, int flags)
{
	struct ms_inode in;
	int r = ns_inode_get(t->st->ms, t->txn, ino, &in);
	if (!r)
		r = caps_note(&t->st->caps, ino, name);
	if (!r)
		r = ns_xattr_set(t->st->ms, t->txn, ino, name, value, size,
				 flags);
	return r ? r : touch(t, ino, &in);
}

int attrs_xattr_del(struct store_txn *t, uint64_t ino, const char *name)
{
	struct ms_inode in;
	int r = ns_inode_get(t->st->ms, t->txn, ino, &in);
	if (!r)
		r = ns_xattr_del(t->st->ms, t->txn, ino, name);
	return r ? r : touch(t, ino, &in);
}
