/* A hybrid's destager: moves dirty blocks from the cache tier to the
 * backing tier, in emulated time, inside submissions.
 *
 *   dirty %   >= destage_start: on     <= destage_stop: off
 *   time      destage_interval since the last one began, and any block
 *             dirty: on until none is (ZFS's transaction group, synced
 *             on its timeout when the dirty share has not already)
 *   on:       the oldest dirty blocks (cache_destage_next), one 4 KiB
 *             read from flash and write to backing each (model_destage),
 *             as far as the budget goes
 *   budget    destage_rate x time since the last run, saved over at
 *             most DESTAGE_BURST_NS of idle time
 *
 * It competes with the foreground for the same drives, as an array's
 * does; a dirty block evicted is destaged by cache_residency.c instead.
 *
 * With [dedupe] reduce_at = destage each block is also fingerprinted and
 * compressed on its node's cores on the way (model_destage_reduced): that
 * work queues with the foreground's on the same cores, so on a CPU-bound
 * array the writes slow down to what the cores leave them.
 *
 * Above [cache] throttle_start, each write waits (cache_destager_throttle).
 */
#include "tiers/cache_destager.h"

#include "common/block.h"
#include "tiers/scale.h"

#define DESTAGE_BURST_NS 100000000ull /* budget saved over idle time */

void cache_destager_init(struct cache_destager *d, const struct profile *p,
			 double scale)
{
	const struct profile_cache *pc = &p->cache;

	*d = (struct cache_destager){
	    .pc = pc,
	    .bytes_per_ns = (double)pc->destage_bytes_per_s * scale / 1e9,
	    .interval_ns = scale_ns(scale, pc->destage_interval_ns),
	};
}

/* Whether the destager is on at @c's fill at @now_ns (hysteresis between
 * the two thresholds; a timed one goes on until no block is dirty). */
static bool destager_on(struct cache_destager *d, const struct cache *c,
			uint64_t now_ns)
{
	struct cache_stats st;
	double dirty_pct;
	bool was = d->on;

	cache_stats(c, &st);
	dirty_pct = (double)st.dirty * 100.0 /
		    (double)(d->pc->size_bytes / BLOCK_BYTES);
	if (!d->on && d->interval_ns && st.dirty &&
	    now_ns - d->started_ns >= d->interval_ns)
		d->on = d->sync = true;
	if (dirty_pct >= d->pc->destage_start_pct)
		d->on = true;
	if (d->sync ? !st.dirty : dirty_pct <= d->pc->destage_stop_pct)
		d->on = d->sync = false;
	if (d->on && !was)
		d->started_ns = now_ns;
	return d->on;
}

/* The destager, caught up to @now_ns: between the thresholds it moves
 * the oldest dirty blocks at destage_rate (budget saved over at most
 * DESTAGE_BURST_NS of idle time). */
void cache_destager_run(struct cache_destager *d, struct cache *c,
			struct model *m, uint64_t now_ns)
{
	uint64_t idle = now_ns - d->last_ns;
	struct cache_key k;
	uint16_t kept;

	if (idle > DESTAGE_BURST_NS)
		idle = DESTAGE_BURST_NS;
	d->budget += (double)idle * d->bytes_per_ns;
	d->last_ns = now_ns;
	while (destager_on(d, c, now_ns) && d->budget >= BLOCK_BYTES &&
	       cache_destage_next_kept(c, &k, &kept)) {
		model_destage_reduced(m, now_ns, k.block * BLOCK_BYTES, kept);
		d->budget -= BLOCK_BYTES;
	}
	if (!d->on && d->budget > (double)DESTAGE_BURST_NS * d->bytes_per_ns)
		d->budget = (double)DESTAGE_BURST_NS * d->bytes_per_ns;
}

/* Why this law: a write past the threshold waits as long as the destager
 * needs, at destage_rate, to bring the fill back down to the threshold.
 * Zero at the threshold and growing with the backlog (progressive, as
 * vSAN's congestion is), it slows writers only as far as they outrun the
 * destager: W writers of b bytes with latency L write at W b / (L + x /
 * rate) with x dirty bytes over the threshold, which equals the destage
 * rate at x = W b - L rate, a few writes' worth. So the fill settles just
 * above the threshold and the writes go at the destage rate, instead of
 * the cache filling up and every write paying a dirty block's eviction.
 *
 * What vSAN publishes (Broadcom KB 326870): as free write-buffer space
 * shrinks it "gradually throttles back the rate of write operations" by
 * injecting growing latency, until incoming writes match the destage
 * rate; its congestion runs 0..255, "exceeded" at 200. No fill percentage
 * at which it starts is published: throttle_start is that assumption,
 * and the law above stands in for its adaptive algorithm. */
uint64_t cache_destager_throttle(struct cache_destager *d,
				 const struct cache *c)
{
	struct cache_stats st;
	double over, delay;

	if (!(d->pc->throttle_start_pct > 0.0) || !(d->bytes_per_ns > 0.0))
		return 0;
	cache_stats(c, &st);
	over = (double)st.dirty * BLOCK_BYTES -
	       d->pc->throttle_start_pct / 100.0 * (double)d->pc->size_bytes;
	if (over <= 0.0)
		return 0;
	delay = over / d->bytes_per_ns;
	d->throttled++;
	d->throttle_ns += (uint64_t)delay;
	return (uint64_t)delay;
}
