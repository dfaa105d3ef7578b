/* Synchronous replication (`--replication-mode sync`): a sync point of
 * the source (fsync, `ctl MNT sync`) returns only once the replica has
 * applied a batch that covers it, and the model's figures for the link.
 *
 * The batch is the engine's own (engine.c): a waiter asks for one as
 * `replication sync` does, after its own store_sync, so the cut the
 * thread takes next holds what it made durable; the waiters that came
 * meanwhile share that batch. The model's side (each write's latency
 * gains the link's round trip, the payload's transfer and the replica's
 * ack) is tiers/model_repl.c's.
 */
#include "replication/repl_i.h"

#include <errno.h>
#include <inttypes.h>

#include "common/clock.h"
#include "tiers/array.h"
#include "tiers/model_repl.h"

/* How often a waiter looks at the faults: one that comes while it waits
 * fails it within this. */
#define SYNC_LOOK_NS (NS_PER_SEC / 5)

/* Whether a waiter's batch may still come: running, nothing holding
 * batches back (held_by: the thread looks at the faults each time it
 * wakes, and a waiter wakes it). */
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

/* The model's figures of the link (nothing without a timed model):
 * its round trip, rate, and what sync mode adds to a 4 KiB write on
 * idle arrays. */
void repl_sync_print(struct repl *r, FILE *out, bool json)
{
	struct model_repl_figures f;

	if (!r->array || array_repl_figures(r->array, 4096, &f))
		return;
	double add = (double)(f.rtt_ns + f.transfer_ns + f.ack_ns) / 1e3;
	if (json) {
		fprintf(out,
			",\"link_rtt_us\":%.1f,\"link_mb_s\":%.1f,"
			"\"sync_write_4k_us\":%.1f",
			(double)f.rtt_ns / 1e3, f.bytes_per_s / 1e6, add);
		return;
	}
	fprintf(out,
		"link_rtt_us %.1f\nlink_mb_s %.1f\nsync_write_4k_us %.1f "
		"(round trip %.1f + transfer %.1f + replica ack %.1f)\n",
		(double)f.rtt_ns / 1e3, f.bytes_per_s / 1e6, add,
		(double)f.rtt_ns / 1e3, (double)f.transfer_ns / 1e3,
		(double)f.ack_ns / 1e3);
}

const char *repl_mode_name(const struct repl *r)
{
	return r->sync ? "synchronous" : "asynchronous";
}

bool repl_mode(const struct repl *r)
{
	return r->sync;
}
