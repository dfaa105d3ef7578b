/* Inside replication: the engine's state, shared by engine.c (the thread
 * and its batches) and control.c (the ctl verbs and the figures). */
#ifndef ARRAYSIM_REPLICATION_REPL_I_H
#define ARRAYSIM_REPLICATION_REPL_I_H

#include <lmdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "replication/link.h"
#include "replication/repl.h"
#include "common/clock.h"
#include "tiers/backing.h"

/* RECONNECTING: the link failed (repl_link_lost); the thread tries
 * again by itself after a backoff (replication/retry.c). */
enum repl_state {
	REPL_RUNNING,
	REPL_PAUSED,
	REPL_STOPPED,
	REPL_FAILED,
	REPL_RECONNECTING,
};

/* What the batches did; under repl.lock. */
struct repl_figures {
	uint64_t batches;
	uint64_t wire_bytes;	/* every message's bytes, both ways */
	uint64_t block_bytes;	/* block payloads shipped */
	uint64_t saved_bytes;	/* logical bytes changed not shipped */
	uint64_t logical_bytes; /* logical bytes the batches changed */
	uint64_t blocks_shipped, blocks_local, blocks_have;
	uint64_t meta_ops;
	uint64_t rep_txnid;	  /* the source's txn the replica holds */
	int64_t rep_mono_ns;	  /* when that cut was taken */
	uint64_t rep_write_bytes; /* the source's write bytes then */
	int64_t last_batch_ns;	  /* the last batch's duration */
	bool have_point;	  /* the replica holds a state of ours */
	uint64_t link_losses;	  /* times running turned reconnecting */
};

struct repl {
	struct store *src;
	struct metastore *ms; /* the source's */
	struct stats *stats;
	struct backing *backing; /* the source's blocks, read apart */
	struct backing_dev dev;
	struct repl_link link; /* to the replica */
	char dest[4096];
	uint64_t rpo_ns;
	struct faults *faults;
	struct events *events;
	int64_t started_ns;
	bool sync;	     /* --replication-mode sync (sync.c) */
	struct array *array; /* the source's model, or NULL */

	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake, done;
	bool quit, kick;
	bool busy; /* a batch is under way */
	enum repl_state state;
	uint64_t asked, shipped; /* sync requests; the last one served */
	/* Reconnecting: the last request a failed try served, failed tries
	 * (a request waits for the next), when the next try is due, the
	 * backoff that set it, when the link was lost. */
	uint64_t tried, tries;
	uint64_t retry_ns, backoff_ns, lost_ns;
	char error[512];
	struct repl_figures fig;

	/* The snapshot the replica holds: the engine thread's, changed under
	 * the lock (start() waits for a stop's to go). */
	MDB_txn *prev;

	/* What the event log was last told, under the lock: the fault (or
	 * "pause") that holds batches back, or NULL; lag beyond the
	 * threshold since lagging_ns (0: not). */
	const char *held_by;
	int64_t lagging_ns;
	/* The sampler's alone: the previous sample's counters. */
	uint64_t sample_wire, sample_block;
};

/* How far behind the replica is: seconds since the cut it holds and the
 * bytes written since, when the source has committed anything since;
 * the backlog in the source's transactions. Under the lock. */
struct repl_lag {
	double secs;
	uint64_t bytes, txns;
};
struct repl_lag repl_lag_of(struct repl *r);
extern const char *const repl_state_names[];
/* `replication status`'s lines. Under the lock. */
void repl_print_text(struct repl *r, FILE *out);
/* The fault that holds batches back now ("replication-link", "replica"),
 * its id in *id; NULL: none. */
const char *repl_fault_now(struct repl *r, uint64_t *id);
/* Tell the event log what changed since it was last told: held back or
 * not (a fault, a pause), lag beyond REPL_LAG_RPOS x rpo or back under
 * it. Under the lock; the thread calls it at each wake. */
void repl_watch(struct repl *r);

/* Ask the thread for a batch and wait, under the lock, until it ships
 * (0), or can no longer come (held back by a fault, failed, paused,
 * stopped, a reconnect try failed, the unmount) or @limit_ns passes (0:
 * no limit): -EIO. `replication sync` and sync mode's fsync both. */
int repl_await_batch(struct repl *r, uint64_t limit_ns);
/* Reconnecting (replication/retry.c). The first try comes
 * REPL_RETRY_MIN_NS after the loss; each failed one doubles the wait, up
 * to REPL_RETRY_MAX_NS. */
#define REPL_RETRY_MIN_NS (NS_PER_SEC / 10)
#define REPL_RETRY_MAX_NS (2 * NS_PER_SEC)
/* The wait after one of @prev_ns (0: the first). */
uint64_t repl_backoff_next(uint64_t prev_ns);
/* held_by while reconnecting (no fault standing): "link-lost". */
extern const char repl_link_lost_why[];
/* What the thread does with a batch that failed (-errno @e, one line in
 * @err) or shipped, @asked: the sync requests it served. Under the
 * lock. */
void repl_batch_failed(struct repl *r, int e, const char *err, uint64_t asked);
void repl_batch_shipped(struct repl *r, uint64_t asked);
/* Reconnecting and not held back by a fault: whether to try at @now (a
 * sync request asks for a try at once); the wait @left_ns shortened to
 * the next try. Under the lock. */
bool repl_retry_due(struct repl *r, uint64_t now);
uint64_t repl_retry_left(struct repl *r, uint64_t now, uint64_t left_ns);
/* While a replication-link fault stands, the connection goes too (the
 * batch after the clear connects again). The thread's, under the lock. */
void repl_link_fault_look(struct repl *r);
struct repl_diff;
/* cost.c: book batch @d's cost in the source's model (its needed blocks,
 * by @verdict, read on the source's drives; @wire_bytes over the link):
 * when the model says the replica has them (clock_mono_ns time; now
 * without a timed model). */
uint64_t repl_cost_book(struct repl *r, const struct repl_diff *d,
			const uint8_t *verdict, uint64_t wire_bytes);
/* Wait until @due, the batch's booked arrival; at once on a stop or an
 * unmount. */
void repl_cost_wait(struct repl *r, uint64_t due);

/* One batch from the replica's state to a cut taken now (engine.c). */
int repl_batch(struct repl *r, char *err, size_t errlen);
/* Drop the replica's snapshot (a next batch is a full one); takes the
 * lock. */
void repl_forget(struct repl *r);

#endif
