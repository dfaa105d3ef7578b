/* The namespace in the metadata store: inodes, directory entries,
 * symlink targets and xattrs. Every function works inside the caller's
 * transaction and returns 0 or -errno. */
#ifndef ARRAYSIM_STORE_NAMESPACE_H
#define ARRAYSIM_STORE_NAMESPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "meta/metastore.h"

#define NS_NAME_MAX 255
#define NS_XATTR_NAME_MAX 255
#define NS_XATTR_SIZE_MAX 65536
#define NS_SYMLINK_MAX 4095
#define NS_FIRST_COOKIE 3 /* 1 and 2 are "." and ".." */
#define NS_ROOT_INO 1	  /* the root directory (FUSE_ROOT_ID) */

int ns_inode_get(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		 struct ms_inode *out);
int ns_inode_put(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		 const struct ms_inode *in);
int ns_inode_del(const struct metastore *ms, MDB_txn *txn, uint64_t ino);
/* A fresh inode numbered from c->next_ino, timestamps now, nlink 1 (2 for
 * directories). Stored; *ino and *out filled. */
int ns_inode_new(const struct metastore *ms, MDB_txn *txn,
		 struct ms_counters *c, uint32_t mode, uint32_t uid,
		 uint32_t gid, uint64_t rdev, uint64_t parent, uint64_t *ino,
		 struct ms_inode *out);
/* The root directory, created on a fresh store. */
int ns_ensure_root(const struct metastore *ms, MDB_txn *txn,
		   struct ms_counters *c, uint32_t uid, uint32_t gid);

int ns_dirent_lookup(const struct metastore *ms, MDB_txn *txn, uint64_t parent,
		     const char *name, uint64_t *ino);
/* Add @name -> @ino in @parent, whose inode @dir supplies (and advances)
 * the readdir cookie; the caller puts @dir back. -EEXIST if present. */
int ns_dirent_add(const struct metastore *ms, MDB_txn *txn, uint64_t parent,
		  struct ms_inode *dir, const char *name, uint64_t ino);
/* Point existing @name in @parent at @ino (rename over, exchange). */
int ns_dirent_retarget(const struct metastore *ms, MDB_txn *txn,
		       uint64_t parent, const char *name, uint64_t ino);
int ns_dirent_del(const struct metastore *ms, MDB_txn *txn, uint64_t parent,
		  const char *name);
/* 0 if @dir has no entries, -ENOTEMPTY if it has. */
int ns_dir_empty(const struct metastore *ms, MDB_txn *txn, uint64_t dir);

/* Readdir: entries of @dir with cookie >= @cookie, in cookie order. @fn
 * returns non-zero to stop (the buffer is full). */
typedef int (*ns_dirent_fn)(void *ctx, const char *name, size_t len,
			    uint64_t ino, uint64_t cookie);
int ns_dir_iterate(const struct metastore *ms, MDB_txn *txn, uint64_t dir,
		   uint64_t cookie, ns_dirent_fn fn, void *ctx);

int ns_symlink_put(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		   const char *target);
/* Target into @buf (NUL-terminated, at most NS_SYMLINK_MAX + 1 bytes). */
int ns_symlink_get(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		   char *buf, size_t len);

/* XATTR_CREATE / XATTR_REPLACE semantics in @flags. */
int ns_xattr_set(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		 const char *name, const void *value, size_t size, int flags);
/* Value of @name: pointer into the transaction's pages (valid until it
 * ends) and its size. -ENODATA if absent. */
int ns_xattr_get(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		 const char *name, const void **value, size_t *size);
/* NUL-separated names into @buf (NULL: just measure); *size gets the
 * length needed. -ERANGE if @len is too small. */
int ns_xattr_list(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		  char *buf, size_t len, size_t *size);
int ns_xattr_del(const struct metastore *ms, MDB_txn *txn, uint64_t ino,
		 const char *name);
/* Drop every xattr and the symlink target of @ino (inode deletion). */
int ns_drop_extras(const struct metastore *ms, MDB_txn *txn, uint64_t ino);

/* stat of an inode. */
void ns_fill_stat(uint64_t ino, const struct ms_inode *in, struct stat *st);

#endif
