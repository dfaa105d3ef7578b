/* A hybrid's destager (cache_destager.c). Not thread-safe: tiers/array_timed.c
 * runs it under the array's lock. */
#ifndef ARRAYSIM_TIERS_CACHE_DESTAGER_H
#define ARRAYSIM_TIERS_CACHE_DESTAGER_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/cache.h"
#include "tiers/model.h"

struct cache_destager {
	const struct profile_cache *pc; /* thresholds and rate */
	double bytes_per_ns;		/* scaled destage_rate */
	double budget;			/* bytes it may move now */
	uint64_t last_ns;		/* when the budget was last topped up */
	bool on;			/* between start and stop thresholds */
	uint64_t interval_ns;		/* scaled destage_interval; 0: none */
	uint64_t started_ns;		/* when the last destage began */
	bool sync;			/* this one runs until none is dirty */
	/* Writes the throttle delayed, and their delays in all (ns). */
	uint64_t throttled, throttle_ns;
};

/* A destager idle at time 0, for @p's [cache] at --scale
 * @scale (@p must outlive it). */
void cache_destager_init(struct cache_destager *d, const struct profile *p,
			 double scale);
/* Catch up to @now_ns: destage from @c on @m as the budget allows. */
void cache_destager_run(struct cache_destager *d, struct cache *c,
			struct model *m, uint64_t now_ns);
/* [cache] throttle_start: how long (ns) a write arriving now, after
 * cache_destager_run, waits before its acknowledgement: the time the
 * destager needs to bring @c's fill back to the threshold; 0 below it or
 * without a throttle. Counted in throttled and throttle_ns. */
uint64_t cache_destager_throttle(struct cache_destager *d,
				 const struct cache *c);

#endif
