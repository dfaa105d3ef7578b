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

int repl_sync_wait(struct repl *r)
{
	if (!r || !r->sync)
		return 0;
	pthread_mutex_lock(&r->lock);
	/* Paused or stopped by the user: the guarantee is suspended, the
	 * sync is the source's alone. */
	bool suspended = r->state == REPL_PAUSED || r->state == REPL_STOPPED;
	int e = suspended ? 0 : repl_await_batch(r, 0);
	pthread_mutex_unlock(&r->lock);
	return e;
}

bool repl_mode(const struct repl *r)
{
	return r->sync;
}
