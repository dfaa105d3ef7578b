/* Orphans: inodes with no name left that cannot go yet, because the kernel
 * still holds them open or their blocks are too many for one transaction.
 * Each is a key of MS_ORPHANS until store_trim (store/store.h) finishes
 * it; an open reaps what an earlier run left (store_reap_orphans). */
#ifndef ARRAYSIM_STORE_ORPHANS_H
#define ARRAYSIM_STORE_ORPHANS_H

#include <stdbool.h>
#include <stdint.h>

struct store_txn;
struct store;

/* Record @ino as an orphan, in @t. */
int orphans_add(struct store_txn *t, uint64_t ino);
/* Forget the record of @ino, in @t (0 if there was none). */
int orphans_del(struct store_txn *t, uint64_t ino);
/* One bounded step of finishing @ino, in @t: drop the blocks past its
 * size; or, when it has no link and the kernel does not hold it (@held
 * false), all of them and then the inode. *more: another step is needed. */
int orphans_trim_step(struct store_txn *t, uint64_t ino, bool held, bool *more);
/* True if @ino exists with no link left (in a read transaction of its
 * own: the kernel's last forget of it then calls store_trim). */
bool orphans_unlinked(struct store *st, uint64_t ino);

#endif
