/* Changes to one inode of the datastore that are not names: setattr,
 * fallocate, xattrs. Each works inside the caller's transaction (@t, from
 * store_txn_begin), knows nothing of FUSE and returns 0 or -errno; a change of
 * size is the caller's to do under the file's data lock. */
#ifndef ARRAYSIM_STORE_ATTRS_H
#define ARRAYSIM_STORE_ATTRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "meta/metastore.h"

struct store_txn;

/* Which fields attrs_set applies: the values of FUSE_SET_ATTR_* (checked
 * in fs/ops_entry.c), so a FUSE request's mask passes as it is. */
enum attrs_set_mask {
	ATTRS_SET_MODE = 1 << 0,
	ATTRS_SET_UID = 1 << 1,
	ATTRS_SET_GID = 1 << 2,
	ATTRS_SET_SIZE = 1 << 3,
	ATTRS_SET_ATIME = 1 << 4,
	ATTRS_SET_MTIME = 1 << 5,
	ATTRS_SET_ATIME_NOW = 1 << 7,
	ATTRS_SET_MTIME_NOW = 1 << 8,
	ATTRS_SET_CTIME = 1 << 10,
	/* Not FUSE's: with a size, uid or gid, the caller lacks CAP_FSETID
	 * (a truncate) or changes the owner (a chown), so set-ID bits go as
	 * the VFS would clear them (store/caps.h). */
	ATTRS_KILL_SUIDGID = 1 << 20,
};

/* Apply the fields of @a that @set names to @ino; *out: the inode after.
 * A size on a directory is -EISDIR, on anything but a file -EINVAL. A
 * size, uid or gid on a file also removes its security.capability. */
int attrs_set(struct store_txn *t, uint64_t ino, const struct stat *a, int set,
	      struct ms_inode *out);
/* One transaction of a fallocate: mode 0 or FALLOC_FL_KEEP_SIZE (nothing
 * to reserve, thin provisioning), or a punch with KEEP_SIZE; *more: a
 * punch to finish in another. -ENODEV if not a file, -EOPNOTSUPP. */
int attrs_fallocate_step(struct store_txn *t, uint64_t ino, int mode,
			 uint64_t off, uint64_t len, bool *more);
/* Set or remove xattr @name of @ino (XATTR_CREATE / XATTR_REPLACE in
 * @flags), touching its ctime. */
int attrs_xattr_set(struct store_txn *t, uint64_t ino, const char *name,
		    const void *value, size_t size, int flags);
int attrs_xattr_del(struct store_txn *t, uint64_t ino, const char *name);

#endif
