/* The namespace algorithms of the datastore: make, link, remove and rename
 * names. Each works inside the caller's transaction (@t, from store_txn_begin),
 * knows nothing of FUSE, and returns 0 or -errno; the caller commits or
 * aborts. Link counts follow POSIX: a directory has 2 + its subdirectories;
 * an inode left with no link is recorded as an orphan (store/orphans.h), for
 * store_trim to delete once nothing references it.
 *
 * The kernel's view (lookup counts, names of open files: fs/inode_table.h)
 * is the caller's to update after the commit. */
#ifndef ARRAYSIM_STORE_NAMES_H
#define ARRAYSIM_STORE_NAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "meta/metastore.h"

struct store_txn;

/* A node to create. */
struct names_node {
	uint32_t mode;	  /* S_IFMT type and permission bits */
	uint32_t uid;	  /* the caller's */
	uint32_t gid;	  /* the caller's; a setgid parent's instead */
	uint64_t rdev;	  /* devices */
	const char *link; /* symlink target, or NULL */
};

/* Create @nn as @name in directory @parent. *ino and *out: the new inode.
 * -EEXIST, -ENOTDIR, -ENOENT (parent removed but open). */
int names_make(struct store_txn *t, uint64_t parent, const char *name,
	       const struct names_node *nn, uint64_t *ino,
	       struct ms_inode *out);
/* One more name @newname in @newparent for non-directory @ino (an
 * O_TMPFILE file leaves the orphans). *out: @ino as it now is. -EPERM for a
 * directory, -EEXIST. */
int names_link(struct store_txn *t, uint64_t ino, uint64_t newparent,
	       const char *newname, struct ms_inode *out);
/* Remove @name from @parent: a directory (@want_dir, empty, else -ENOTDIR)
 * or not (-EISDIR). *victim: the inode that lost the link. */
int names_remove(struct store_txn *t, uint64_t parent, const char *name,
		 bool want_dir, uint64_t *victim);

struct names_rename {
	uint64_t parent, newparent;
	const char *name, *newname;
	unsigned flags; /* RENAME_NOREPLACE or RENAME_EXCHANGE */
};
/* What a rename did. */
struct names_renamed {
	uint64_t src;  /* the inode that was @name */
	uint64_t dst;  /* the inode that was @newname, or 0 */
	bool noop;     /* two names of one inode: nothing changed */
	bool replaced; /* dst lost its name (plain rename over it) */
};
/* -EINVAL for flags other than one of RENAME_NOREPLACE, RENAME_EXCHANGE. */
int names_rename_flags(unsigned flags);
/* Rename: plain (replacing an existing target of the same kind, an empty
 * directory for a directory), RENAME_NOREPLACE (-EEXIST), RENAME_EXCHANGE
 * (-ENOENT without a target). -EINVAL when a directory would move below
 * itself. */
int names_rename(struct store_txn *t, const struct names_rename *a,
		 struct names_renamed *out);

#endif
