/* Group commit: many writers' metadata changes in one LMDB write
 * transaction.
 *
 * LMDB has one writer at a time and a commit costs about as much as the
 * B-tree work of a 4 KiB write, so writers that arrive while a commit is
 * running queue their work; the first of them to find no commit running
 * becomes the leader, takes every entry waiting, runs each one's apply
 * inside one store transaction (store/datapath_write.c: their new blocks'
 * bytes are written before it, as for one writer) and commits once. Each writer
 * returns when the commit that covers its entry is done, so a reply that
 * follows still means "committed", and fsync (store_sync) covers it as
 * before.
 *
 *   submit(e) --> [queue] --leader takes all--> begin, apply e1..en,
 *                                                commit, wake them
 *
 * Entries run in the order they were submitted, which is the order of the
 * callers' data locks: the caller submits under its lock and may drop it
 * before waiting when its change reads nothing another queued entry could
 * still change (group_commit_drain_over makes it wait until the entries
 * that change what it reads are done).
 *
 * If an apply fails, the group's transaction is aborted and every entry
 * of it runs again alone (its own transaction, through solo), so one
 * writer's error never fails another's write.
 *
 * An entry may instead complete by callback (done_fn: group_commit_lead
 * after submit, no wait): its writer's thread goes back to serving
 * requests while the commit runs, and whichever thread led the group
 * calls done_fn after the commit. A reply sent from done_fn still means
 * "committed". So that no such entry is left queued with no one to lead,
 * a leader leads again while entries are queued and no waiting writer
 * (who would lead) has its own among them.
 */
#ifndef ARRAYSIM_STORE_GROUP_COMMIT_H
#define ARRAYSIM_STORE_GROUP_COMMIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct gc_entry;

/* The group @first and the n-1 entries after it (by next), in one
 * transaction: 0, or an error when nothing of the group was stored. */
typedef int (*gc_together_fn)(void *ctx, struct gc_entry *first, unsigned n);

struct gc_entry {
	/* The change alone, its own transaction(s) and commit: the group of
	 * one, and the retry of a failed group; 0 or -errno. */
	int (*solo)(void *ctx, void *arg);
	void *arg;
	int result;
	/* What the entry changes: blocks lo..hi (inclusive) of object @key
	 * (a write: its file's logical blocks). */
	uint64_t key, lo, hi;
	/* NULL: a waiter's (group_commit_wait). Else called once the commit
	 * covering the entry is done (e->result set), on the leader's
	 * thread, outside the queue's lock; it may free the entry. */
	void (*done_fn)(struct gc_entry *e);
	/* the queue's, not the caller's */
	uint64_t seq;
	bool done;
	struct gc_entry *next;
};

struct group_commit {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct gc_entry *head, *tail;
	struct gc_entry *run; /* the group a leader is running, run_n long */
	unsigned run_n;
	bool leading;	    /* a leader is running a group */
	uint64_t next_seq;  /* seq of the last entry submitted */
	uint64_t done_seq;  /* every entry up to it is done */
	unsigned waiters;   /* entries without done_fn, not done yet */
	unsigned max_group; /* entries a leader takes at most */
	/* counters: groups committed, entries in them, groups retried alone,
	 * entries completed by callback */
	_Atomic uint64_t groups, entries, retried, called;
};

void group_commit_init(struct group_commit *g);
void group_commit_destroy(struct group_commit *g);
/* Queue @e (solo and arg set; done_fn too if it completes by callback:
 * then group_commit_lead, not group_commit_wait). */
void group_commit_submit(struct group_commit *g, struct gc_entry *e);
/* After submitting entries with done_fn: lead the queued groups if no one
 * leads (returning once none is left to this thread), else return at
 * once. */
void group_commit_lead(struct group_commit *g, gc_together_fn together,
		       void *ctx);
/* Until @e is done, leading groups (through @together, or e->solo for a
 * group of one, with @ctx) when no one else is; e->result. The queue
 * knows no store: the caller says what a group's transaction is. */
int group_commit_wait(struct group_commit *g, gc_together_fn together,
		      void *ctx, struct gc_entry *e);
/* Wait until every entry submitted before this call that changes a
 * block of @key in lo..hi is done (queued or running; the others may
 * stay queued: what they change is not what the caller reads). */
void group_commit_drain_over(struct group_commit *g, uint64_t key, uint64_t lo,
			     uint64_t hi);

#endif
