/* Synchronous replication (`--replication-mode sync`): a sync point of
 * the source (fsync, `ctl MNT sync`) returns only once the replica has
 * applied a batch that covers it.
 *
 * The batch is the engine's own (engine.c): a waiter asks for one as
 * `replication sync` does, after its own store_sync, so the cut the
 * thread takes next holds what it made durable; the waiters that came
 * meanwhile share that batch. The model's side (each write's latency
 * gains the link's round trip, the payload's transfer and the replica's
 * ack) is tiers/model_repl.c's, its figures figures.c's.
 */
#include "replication/repl_i.h"

#include <errno.h>

#include "common/clock.h"

/* How often a waiter looks at the faults: one that comes while it waits
 * fails it within this. */
#define SYNC_LOOK_NS (NS_PER_SEC / 5)

/* Whether a waiter's batch may still come: running, nothing holding
 * batches back (held_by: the waiter looks at the faults first, the
 * thread each time it wakes). */
static bool may_come(const struct repl *r)
{
	return r->state == REPL_RUNNING && !r->quit && !r->held_by;
}

int repl_sync_wait(struct repl *r)
{
	if (!r || !r->sync)
		return 0;
	pthread_mutex_lock(&r->lock);
	/* Paused or stopped by the user: the guarantee is suspended, the
	 * sync is the source's alone. */
	if (r->state == REPL_PAUSED || r->state == REPL_STOPPED) {
		pthread_mutex_unlock(&r->lock);
		return 0;
	}
	repl_watch(r); /* a fault set or cleared just now counts */
	uint64_t my = ++r->asked;
	r->kick = true;
	pthread_cond_signal(&r->wake);
	while (r->shipped < my && may_come(r)) {
		struct timespec ts = clock_mono_after(SYNC_LOOK_NS);
		pthread_cond_timedwait(&r->done, &r->lock, &ts);
	}
	int e = r->shipped >= my ? 0 : -EIO;
	pthread_mutex_unlock(&r->lock);
	return e;
}

bool repl_mode(const struct repl *r)
{
	return r->sync;
}
