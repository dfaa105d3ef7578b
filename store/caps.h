/* The file capabilities a write, a truncate or a chown must remove
 * (security.capability), and the set-ID bits they clear: what the Linux
 * VFS does itself on a local filesystem, and leaves to the daemon of a
 * FUSE mount that takes FUSE_HANDLE_KILLPRIV_V2 (fs/README.md).
 *
 * Every write asks whether its file has capabilities, so the answer must
 * cost no lookup when it has none: the store keeps in memory the inodes
 * that may have the xattr (loaded at open from the xattrs table, grown by
 * every set of it, never shrunk until the next open). A stale member
 * costs one lookup in the write's transaction, never a wrong answer.
 * Private to store/. */
#ifndef ARRAYSIM_STORE_CAPS_H
#define ARRAYSIM_STORE_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/metastore.h"

#define CAPS_XATTR "security.capability"

struct caps_set; /* store/store_i.h */
struct store_txn;

void caps_init(struct caps_set *c);
void caps_destroy(struct caps_set *c);
/* Every inode with a security.capability record in @txn. */
int caps_load(struct caps_set *c, struct metastore *ms, MDB_txn *txn);
/* @name is being set on @ino: note it before the commit. */
int caps_note(struct caps_set *c, uint64_t ino, const char *name);
/* Remove security.capability from @ino inside @t if it has one; whether
 * it had (its ctime is then the caller's to touch). */
int caps_kill(struct store_txn *t, uint64_t ino, bool *removed);
/* Clear set-user-ID, and set-group-ID where group execute is set (the
 * VFS's should_remove_suid for a caller without CAP_FSETID); whether a
 * bit was cleared. */
bool caps_drop_setid(uint32_t *mode);

#endif
