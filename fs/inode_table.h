/* What the daemon keeps in memory per inode: the kernel's lookup count
 * (an inode with nlink 0 lives until the kernel forgets it), the name it
 * was last reached by, and the locks on ranges of its data
 * (fs/range_lock.h).
 */
#ifndef ARRAYSIM_FS_INODE_TABLE_H
#define ARRAYSIM_FS_INODE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fs/range_lock.h"

struct inode_table;

struct inode_table *inode_table_new(void);
void inode_table_free(struct inode_table *t);
/* The kernel learned of @ino once more (an entry or create reply). */
void inode_table_ref(struct inode_table *t, uint64_t ino);
/* The same, reached as @name in directory @parent (lookup, create, link). */
void inode_table_ref_named(struct inode_table *t, uint64_t ino, uint64_t parent,
			   const char *name);
/* @ino is now @name in @parent (rename), if the kernel holds it. */
void inode_table_renamed(struct inode_table *t, uint64_t ino, uint64_t parent,
			 const char *name);
/* The path of @ino from the mount's root ("/d/f"; "/" for the root) by the
 * names it was last reached by; false when a name on the way is unknown
 * or @len is too small. */
bool inode_table_path(struct inode_table *t, uint64_t ino, char *buf,
		      size_t len);
/* The kernel forgot @n lookups; returns the lookups still held. */
uint64_t inode_table_unref(struct inode_table *t, uint64_t ino, uint64_t n);
/* Lookups the kernel holds on @ino. */
uint64_t inode_table_lookups(struct inode_table *t, uint64_t ino);
/* Hold blocks @first..@last of @ino's data for a change (a write: the
 * blocks it touches; truncate, fallocate: RANGE_WHOLE_FILE from 0). */
void inode_table_lock(struct inode_table *t, struct range_hold *h, uint64_t ino,
		      uint64_t first, uint64_t last);
void inode_table_unlock(struct inode_table *t, struct range_hold *h);

#endif
