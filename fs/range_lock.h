/* Range locks on files' blocks: a write holds the blocks it changes, a
 * truncate or fallocate the whole file, so writes to disjoint ranges of
 * one file go ahead at once while overlapping ones take turns.
 *
 * Holds are granted in arrival order among those that overlap: a hold
 * waits for every earlier hold or waiter on the same file whose range
 * meets its own, so a whole-file truncate is not starved by a stream of
 * small writes, and two writes of the same block keep the order in which
 * they asked. The table is striped by inode (a fixed array, no allocation
 * per file or per hold: the caller's struct range_hold is the list node);
 * files that share a stripe only share its short mutex, never a wait. */
#ifndef ARRAYSIM_FS_RANGE_LOCK_H
#define ARRAYSIM_FS_RANGE_LOCK_H

#include <stdint.h>

struct range_locks;

/* One hold, the caller's until it is unlocked. */
struct range_hold {
	struct range_hold *next;
	uint64_t ino, first, last; /* blocks first..last, inclusive */
};

#define RANGE_WHOLE_FILE UINT64_MAX

struct range_locks *range_locks_new(void);
void range_locks_free(struct range_locks *rl);
/* Hold blocks @first..@last of @ino (last RANGE_WHOLE_FILE: to the end),
 * waiting for the earlier holds and waiters that overlap them. */
void range_lock(struct range_locks *rl, struct range_hold *h, uint64_t ino,
		uint64_t first, uint64_t last);
/* The same without waiting: 1 held, 0 (nothing held) when an earlier
 * hold or waiter overlaps. */
int range_trylock(struct range_locks *rl, struct range_hold *h, uint64_t ino,
		  uint64_t first, uint64_t last);
void range_unlock(struct range_locks *rl, struct range_hold *h);
/* Holds and waiters on @ino now (tests: a waiter is queued). */
unsigned range_queued(struct range_locks *rl, uint64_t ino);

#endif
