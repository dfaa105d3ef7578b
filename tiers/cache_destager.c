/* A hybrid's destager: moves dirty blocks from the cache tier to the
 * backing tier, in emulated time, inside submissions.
 *
 *   dirty %   >= destage_start: on     <= destage_stop: off
 *   on:       the oldest dirty blocks (cache_destage_next), one 4 KiB
 *             read from flash and write to backing each (model_destage),
 *             as far as the budget goes
 *   budget    destage_rate x time since the last run, saved over at
 *             most DESTAGE_BURST_NS of idle time
 *
 * It competes with the foreground for the same drives, as an array's
 * does; a dirty block evicted is destaged by cache_residency.c instead.
 */
#include "tiers/cache_destager.h"

#include "common/block.h"

#define DESTAGE_BURST_NS 100000000ull /* budget saved over idle time */

void cache_destager_init(struct cache_destager *d,
			 const struct profile_cache *pc, double scale)
{
	*d = (struct cache_destager){
	    .pc = pc,
	    .bytes_per_ns = (double)pc->destage_bytes_per_s * scale / 1e9,
	};
}

/* The destager, caught up to @now_ns: between the thresholds it moves
 * the oldest dirty blocks at destage_rate (budget saved over at most
 * DESTAGE_BURST_NS of idle time). */
void cache_destager_run(struct cache_destager *d, struct cache *c,
			struct model *m, uint64_t now_ns)
{
	const struct profile_cache *pc = d->pc;
	double cap_blocks = (double)(pc->size_bytes / BLOCK_BYTES);
	uint64_t idle = now_ns - d->last_ns;
	struct cache_stats st;
	struct cache_key k;

	if (idle > DESTAGE_BURST_NS)
		idle = DESTAGE_BURST_NS;
	d->budget += (double)idle * d->bytes_per_ns;
	d->last_ns = now_ns;
	for (;;) {
		double dirty_pct;

		cache_stats(c, &st);
		dirty_pct = (double)st.dirty * 100.0 / cap_blocks;
		if (dirty_pct >= pc->destage_start_pct)
			d->on = true;
		if (dirty_pct <= pc->destage_stop_pct)
			d->on = false;
		if (!d->on || d->budget < BLOCK_BYTES ||
		    !cache_destage_next(c, &k))
			break;
		model_destage(m, now_ns, k.block * BLOCK_BYTES, BLOCK_BYTES);
		d->budget -= BLOCK_BYTES;
	}
	if (!d->on && d->budget > (double)DESTAGE_BURST_NS * d->bytes_per_ns)
		d->budget = (double)DESTAGE_BURST_NS * d->bytes_per_ns;
}
