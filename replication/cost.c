/* A batch's cost in the source's array model (tiers/array.h,
 * tiers/model_repl.c): the blocks it ships are read on the source's
 * drives, competing with the host's I/O, and its messages cross the
 * replication link at the profile's rate, behind the sync writes and
 * batches before it; the replica gets the metadata (the batch applies)
 * no sooner than the model says the bytes arrived and were
 * acknowledged. So the lag follows the link's speed. The null model has
 * no link: nothing waits. */
#include "replication/repl_i.h"

#include <stdlib.h>

#include "common/block.h"
#include "common/clock.h"
#include "replication/diff.h"
#include "tiers/array.h"

/* The model's largest request (RAID_IO_MAX). */
#define EXTENT_MAX (1024u * 1024)

/* The blocks @verdict says the replica needs, adjacent ones merged into
 * extents of at most EXTENT_MAX; how many (0: none, or no memory: the
 * link's time is still booked). */
static size_t extents(const struct repl_diff *d, const uint8_t *verdict,
		      struct array_extent **out)
{
	struct array_extent *e = malloc((d->ncand ? d->ncand : 1) * sizeof(*e));
	size_t n = 0;

	*out = e;
	for (size_t i = 0; e && i < d->ncand; i++) {
		uint64_t off = d->cand[i].pblk * BLOCK_BYTES;

		if (verdict[i] != REPL_NEED)
			continue;
		if (n && e[n - 1].offset + e[n - 1].length == off &&
		    e[n - 1].length < EXTENT_MAX)
			e[n - 1].length += BLOCK_BYTES;
		else
			e[n++] = (struct array_extent){off, BLOCK_BYTES};
	}
	return n;
}

uint64_t repl_cost_book(struct repl *r, const struct repl_diff *d,
			const uint8_t *verdict, uint64_t wire_bytes)
{
	if (!r->array)
		return 0;
	struct array_extent *e;
	size_t n = extents(d, verdict, &e);
	uint64_t done = array_repl_batch(r->array, e, n, wire_bytes);
	free(e);
	return done;
}

void repl_cost_wait(struct repl *r, uint64_t done)
{
	/* A stop or an unmount does not wait for the model's link: the
	 * batch under way completes, as it would without one. */
	pthread_mutex_lock(&r->lock);
	uint64_t now;
	while (!r->quit && r->state != REPL_STOPPED &&
	       (now = clock_mono_ns()) < done) {
		struct timespec ts = clock_mono_after(done - now);
		pthread_cond_timedwait(&r->wake, &r->lock, &ts);
	}
	pthread_mutex_unlock(&r->lock);
}
