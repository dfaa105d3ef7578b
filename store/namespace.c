/* Namespace tables. A directory entry is stored twice: by name (lookup,
 * create, unlink) and by cookie (readdir). The cookie of an entry never
 * changes while it exists, so a readdir that resumes at an offset neither
 * repeats nor skips entries that stayed, whatever was added or removed
 * meanwhile; cookies come from a per-directory counter, never reused.
 */
#include "store/namespace.h"

#include <errno.h>
#include <string.h>
#include <sys/xattr.h>
#include <time.h>

#include "common/block.h"
#include "common/clock.h"

struct name_key {
	uint8_t buf[8 + NS_NAME_MAX];
	MDB_val val;
};

static int make_name_key(struct name_key *k, uint64_t id, const char *name)
{
	size_t len = strlen(name);
	if (len > NS_NAME_MAX)
		return -ENAMETOOLONG;
	ms_put_be64(k->buf, id);
	memcpy(k->buf + 8, name, len);
	k->val = (MDB_val){8 + len, k->buf};
	return 0;
}

static MDB_dbi dbi(const struct metastore *ms, enum ms_table t)
{
	return metastore_dbi(ms, t);
}

int ns_inode_get(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		 struct ms_inode *out)
{
	MDB_val k = {sizeof(ino), &ino};
	return metastore_get_sealed(ms, txn, MS_INODES, &k, out, sizeof(*out));
}

int ns_inode_put(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		 const struct ms_inode *in)
{
	MDB_val k = {sizeof(ino), &ino};
	return metastore_put_sealed(ms, txn, MS_INODES, &k, in, sizeof(*in), 0);
}

int ns_inode_del(const struct metastore *ms, MDB_txn *txn, uint64_t ino)
{
	MDB_val k = {sizeof(ino), &ino};
	return metastore_errno(mdb_del(txn, dbi(ms, MS_INODES), &k, NULL));
}

int ns_inode_new(const struct metastore *ms, MDB_txn *txn,
		 struct ms_counters *c, uint32_t mode, uint32_t uid,
		 uint32_t gid, uint64_t rdev, uint64_t parent, uint64_t *ino,
		 struct ms_inode *out)
{
	int64_t now = clock_wall_ns();
	*out = (struct ms_inode){
	    .mode = mode,
	    .uid = uid,
	    .gid = gid,
	    .nlink = S_ISDIR(mode) ? 2 : 1,
	    .rdev = rdev,
	    .atime_ns = now,
	    .mtime_ns = now,
	    .ctime_ns = now,
	    .btime_ns = now,
	    .parent = parent,
	    .next_cookie = NS_FIRST_COOKIE,
	};
	*ino = c->next_ino++;
	c->inodes++;
	return ns_inode_put(ms, txn, *ino, out);
}

int ns_ensure_root(const struct metastore *ms, MDB_txn *txn,
		   struct ms_counters *c, uint32_t uid, uint32_t gid)
{
	struct ms_inode root;
	if (ns_inode_get(ms, txn, 1, &root) == 0)
		return 0;
	uint64_t ino;
	c->next_ino = 1;
	return ns_inode_new(ms, txn, c, S_IFDIR | 0755, uid, gid, 0, 1, &ino,
			    &root);
}

int ns_dirent_lookup(const struct metastore *ms, MDB_txn *txn, uint64_t parent,
		     const char *name, uint64_t *ino)
{
	struct name_key k;
	int r = make_name_key(&k, parent, name);
	if (r)
		return r;
	struct ms_dirent_val d;
	r = metastore_get_sealed(ms, txn, MS_DIRNAMES, &k.val, &d, sizeof(d));
	if (!r)
		*ino = d.ino;
	return r;
}

static int put_cookie(const struct metastore *ms, MDB_txn *txn, uint64_t parent,
		      uint64_t cookie, uint64_t ino, const char *name)
{
	uint8_t kb[16], vb[8 + NS_NAME_MAX];
	size_t len = strlen(name);
	ms_put_be64(kb, parent);
	ms_put_be64(kb + 8, cookie);
	memcpy(vb, &ino, 8);
	memcpy(vb + 8, name, len);
	MDB_val k = {16, kb};
	return metastore_put_sealed(ms, txn, MS_DIRCOOKIES, &k, vb, 8 + len, 0);
}

static int get_dirent(const struct metastore *ms, MDB_txn *txn, MDB_val *key,
		      struct ms_dirent_val *d)
{
	return metastore_get_sealed(ms, txn, MS_DIRNAMES, key, d, sizeof(*d));
}

int ns_dirent_add(const struct metastore *ms, MDB_txn *txn, uint64_t parent,
		  struct ms_inode *dir, const char *name, uint64_t ino)
{
	struct name_key k;
	int r = make_name_key(&k, parent, name);
	if (r)
		return r;
	struct ms_dirent_val d = {.ino = ino, .cookie = dir->next_cookie++};
	r = metastore_put_sealed(ms, txn, MS_DIRNAMES, &k.val, &d, sizeof(d),
				 MDB_NOOVERWRITE);
	if (r)
		return r;
	return put_cookie(ms, txn, parent, d.cookie, ino, name);
}

int ns_dirent_retarget(const struct metastore *ms, MDB_txn *txn,
		       uint64_t parent, const char *name, uint64_t ino)
{
	struct name_key k;
	int r = make_name_key(&k, parent, name);
	if (r)
		return r;
	struct ms_dirent_val d;
	r = get_dirent(ms, txn, &k.val, &d);
	if (r)
		return r;
	d.ino = ino;
	r = metastore_put_sealed(ms, txn, MS_DIRNAMES, &k.val, &d, sizeof(d),
				 0);
	if (r)
		return r;
	return put_cookie(ms, txn, parent, d.cookie, ino, name);
}

int ns_dirent_del(const struct metastore *ms, MDB_txn *txn, uint64_t parent,
		  const char *name)
{
	struct name_key k;
	int r = make_name_key(&k, parent, name);
	if (r)
		return r;
	struct ms_dirent_val d;
	r = get_dirent(ms, txn, &k.val, &d);
	if (r)
		return r;
	r = metastore_errno(mdb_del(txn, dbi(ms, MS_DIRNAMES), &k.val, NULL));
	if (r)
		return r;
	uint8_t kb[16];
	ms_put_be64(kb, parent);
	ms_put_be64(kb + 8, d.cookie);
	MDB_val ck = {16, kb};
	return metastore_errno(mdb_del(txn, dbi(ms, MS_DIRCOOKIES), &ck, NULL));
}

int ns_dir_iterate(const struct metastore *ms, MDB_txn *txn, uint64_t dir,
		   uint64_t cookie, ns_dirent_fn fn, void *ctx)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, dbi(ms, MS_DIRCOOKIES), &cur);
	if (rc)
		return metastore_errno(rc);
	uint8_t kb[16];
	ms_put_be64(kb, dir);
	ms_put_be64(kb + 8, cookie);
	MDB_val k = {16, kb}, v;
	int r = 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size != 16 || ms_get_be64(k.mv_data) != dir)
			break;
		if (v.mv_size < 8 + MS_SEAL_LEN ||
		    !ms_sealed(MS_DIRCOOKIES, &k, &v)) {
			r = metastore_damaged(ms, MS_DIRCOOKIES, &k, dir,
					      MS_NO_INO);
			break;
		}
		uint64_t ino;
		memcpy(&ino, v.mv_data, 8);
		if (fn(ctx, (const char *)v.mv_data + 8,
		       v.mv_size - 8 - MS_SEAL_LEN, ino,
		       ms_get_be64((const uint8_t *)k.mv_data + 8)))
			break;
	}
	mdb_cursor_close(cur);
	if (!r && rc && rc != MDB_NOTFOUND)
		r = metastore_errno(rc);
	return r;
}

static int first_child(void *ctx, const char *name, size_t len, uint64_t ino,
		       uint64_t cookie)
{
	*(int *)ctx = -ENOTEMPTY;
	return 1;
}

int ns_dir_empty(const struct metastore *ms, MDB_txn *txn, uint64_t dir)
{
	int found = 0;
	int r = ns_dir_iterate(ms, txn, dir, 0, first_child, &found);
	return r ? r : found;
}

int ns_symlink_put(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		   const char *target)
{
	size_t len = strlen(target);
	if (len > NS_SYMLINK_MAX)
		return -ENAMETOOLONG;
	MDB_val k = {sizeof(ino), &ino};
	return metastore_put_sealed(ms, txn, MS_SYMLINKS, &k, target, len, 0);
}

int ns_symlink_get(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		   char *buf, size_t len)
{
	MDB_val k = {sizeof(ino), &ino}, v;
	int rc = mdb_get(txn, dbi(ms, MS_SYMLINKS), &k, &v);
	if (rc)
		return metastore_errno(rc);
	if (!ms_sealed(MS_SYMLINKS, &k, &v) || v.mv_size - MS_SEAL_LEN >= len)
		return metastore_damaged(ms, MS_SYMLINKS, &k, ino, MS_NO_INO);
	memcpy(buf, v.mv_data, v.mv_size - MS_SEAL_LEN);
	buf[v.mv_size - MS_SEAL_LEN] = '\0';
	return 0;
}

int ns_xattr_set(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		 const char *name, const void *value, size_t size, int flags)
{
	struct name_key k;
	if (!*name)
		return -EINVAL;
	if (make_name_key(&k, ino, name))
		return -ERANGE;
	if (size > NS_XATTR_SIZE_MAX)
		return -E2BIG;
	MDB_val old;
	int rc = mdb_get(txn, dbi(ms, MS_XATTRS), &k.val, &old);
	if (rc && rc != MDB_NOTFOUND)
		return metastore_errno(rc);
	if ((flags & XATTR_CREATE) && rc == 0)
		return -EEXIST;
	if ((flags & XATTR_REPLACE) && rc == MDB_NOTFOUND)
		return -ENODATA;
	return metastore_put_sealed(ms, txn, MS_XATTRS, &k.val, value, size, 0);
}

int ns_xattr_get(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		 const char *name, const void **value, size_t *size)
{
	struct name_key k;
	if (make_name_key(&k, ino, name))
		return -ENODATA;
	MDB_val v;
	int rc = mdb_get(txn, dbi(ms, MS_XATTRS), &k.val, &v);
	if (rc == MDB_NOTFOUND)
		return -ENODATA;
	if (rc)
		return metastore_errno(rc);
	if (!ms_sealed(MS_XATTRS, &k.val, &v))
		return metastore_damaged(ms, MS_XATTRS, &k.val, ino, MS_NO_INO);
	*value = v.mv_data;
	*size = v.mv_size - MS_SEAL_LEN;
	return 0;
}

/* Walk the keys of one inode in an (ino BE + suffix) keyed table. */
typedef int (*key_fn)(void *ctx, MDB_cursor *cur, const MDB_val *k);

/* @verify: check each record's seal (a listing; a deletion needs none). */
static int walk_ino_keys(const struct metastore *ms, MDB_txn *txn,
			 enum ms_table t, uint64_t ino, bool verify, key_fn fn,
			 void *ctx)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, dbi(ms, t), &cur);
	if (rc)
		return metastore_errno(rc);
	uint8_t kb[8];
	ms_put_be64(kb, ino);
	MDB_val k = {8, kb}, v;
	int r = 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (k.mv_size < 8 || ms_get_be64(k.mv_data) != ino)
			break;
		if (verify && !ms_sealed(t, &k, &v)) {
			r = metastore_damaged(ms, t, &k, ino, MS_NO_INO);
			break;
		}
		r = fn(ctx, cur, &k);
		if (r)
			break;
	}
	mdb_cursor_close(cur);
	if (!r && rc && rc != MDB_NOTFOUND)
		r = metastore_errno(rc);
	return r;
}

struct list_ctx {
	char *buf;
	size_t len, size;
};

static int list_one(void *ctx, MDB_cursor *cur, const MDB_val *k)
{
	struct list_ctx *l = ctx;
	size_t n = k->mv_size - 8;
	if (l->buf && l->size + n + 1 <= l->len) {
		memcpy(l->buf + l->size, (const char *)k->mv_data + 8, n);
		l->buf[l->size + n] = '\0';
	}
	l->size += n + 1;
	return 0;
}

int ns_xattr_list(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		  char *buf, size_t len, size_t *size)
{
	struct list_ctx l = {buf, len, 0};
	int r = walk_ino_keys(ms, txn, MS_XATTRS, ino, true, list_one, &l);
	if (r)
		return r;
	*size = l.size;
	return buf && l.size > len ? -ERANGE : 0;
}

int ns_xattr_del(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		 const char *name)
{
	struct name_key k;
	if (make_name_key(&k, ino, name))
		return -ENODATA;
	int rc = mdb_del(txn, dbi(ms, MS_XATTRS), &k.val, NULL);
	return rc == MDB_NOTFOUND ? -ENODATA : metastore_errno(rc);
}

static int del_one(void *ctx, MDB_cursor *cur, const MDB_val *k)
{
	return metastore_errno(mdb_cursor_del(cur, 0));
}

int ns_drop_extras(const struct metastore *ms, MDB_txn *txn, uint64_t ino)
{
	int r = walk_ino_keys(ms, txn, MS_XATTRS, ino, false, del_one, NULL);
	if (r)
		return r;
	MDB_val k = {sizeof(ino), &ino};
	int rc = mdb_del(txn, dbi(ms, MS_SYMLINKS), &k, NULL);
	return rc == MDB_NOTFOUND ? 0 : metastore_errno(rc);
}

static struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = {ns / 1000000000, ns % 1000000000};
	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += 1000000000;
	}
	return ts;
}

void ns_fill_stat(uint64_t ino, const struct ms_inode *in, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_mode = in->mode;
	st->st_nlink = in->nlink;
	st->st_uid = in->uid;
	st->st_gid = in->gid;
	st->st_rdev = in->rdev;
	/* Directories have no byte size here; 4096 is what tools that size
	 * directories (du, ls -l, cp -a comparisons) expect of a local fs. */
	st->st_size = S_ISDIR(in->mode) ? BLOCK_BYTES : (off_t)in->size;
	st->st_blksize = BLOCK_BYTES;
	st->st_blocks = (blkcnt_t)(in->nblocks * (BLOCK_BYTES / 512));
	st->st_atim = ns_to_ts(in->atime_ns);
	st->st_mtim = ns_to_ts(in->mtime_ns);
	st->st_ctim = ns_to_ts(in->ctime_ns);
}
