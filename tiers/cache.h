/* Flash-tier residency: which 4 KiB blocks of a hybrid sit in its cache
 * tier, which of them are dirty, and which to evict (LRU).
 *
 * The bytes live once in the store whatever the model says; this only
 * decides hit or miss and what the destager owes the backing tier. A
 * block is named by its physical block (ino 0) or by (inode, block
 * number). Not thread-safe: the timed array (array_timed.c,
 * cache_residency.c, cache_destager.c) calls it under the array's lock.
 */
#ifndef ARRAYSIM_TIERS_CACHE_H
#define ARRAYSIM_TIERS_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cache;

struct cache_key {
	uint64_t ino;
	uint64_t block; /* pblk (ino 0), else offset / BLOCK_BYTES */
};

struct cache_stats {
	uint64_t hits, misses; /* lookups */
	uint64_t resident, dirty;
	uint64_t evictions, dirty_evictions, destaged;
	/* The destager's, filled by array_cache_stats (tiers/array.h), not
	 * by cache_stats: reduction at destage (its CPU in ns, the bytes it
	 * left for the backing tier) and the throttle (writes it delayed,
	 * their delays in ns). */
	uint64_t reduce_cpu_ns, reduce_kept_bytes, throttled, throttle_ns;
};

/* A cache of @capacity_blocks (>= 1; more than 2^32 - 2 are taken as
 * that). Memory grows with the blocks resident. 0, -EINVAL or -ENOMEM. */
int cache_new(uint64_t capacity_blocks, struct cache **out);
/* The same with the eviction policy: @segmented for eviction = arc (a
 * scan-resistant segmented LRU, see cache.c), else plain LRU. */
int cache_new_policy(uint64_t capacity_blocks, bool segmented,
		     struct cache **out);
/* Free @c; NULL is a no-op. */
void cache_free(struct cache *c);
/* Whether @k is resident (counted as a hit or a miss); a hit becomes
 * the most recently used. */
bool cache_lookup(struct cache *c, struct cache_key k);
/* Make @k resident and most recently used, dirty if @dirty (a resident
 * clean block turns dirty; a dirty one stays so). Evicts the least
 * recently used block when full: returns true and sets *@victim if the
 * victim was dirty (the caller owes the backing tier its write). Out of
 * memory, @k is simply not made resident (a later lookup misses). */
bool cache_insert(struct cache *c, struct cache_key k, bool dirty,
		  struct cache_key *victim);
/* cache_insert, remembering with a dirty @k the bytes data reduction at
 * destage will leave of it (0: dedupe found it; else its compressed size,
 * at most 4096); a block still dirty keeps the larger. A dirty victim's
 * into *@victim_kept. cache_insert is this with 4096. */
bool cache_insert_kept(struct cache *c, struct cache_key k, bool dirty,
		       uint16_t kept, struct cache_key *victim,
		       uint16_t *victim_kept);
/* The oldest dirty block into *@k, now clean: true, or false if none. */
bool cache_destage_next(struct cache *c, struct cache_key *k);
/* The same, with the bytes reduction at destage leaves of it. */
bool cache_destage_next_kept(struct cache *c, struct cache_key *k,
			     uint16_t *kept);
void cache_stats(const struct cache *c, struct cache_stats *st);
/* Whether @k is resident and dirty (not counted as a lookup). */
bool cache_is_dirty(const struct cache *c, struct cache_key k);
/* Up to @max of the dirty blocks (not yet destaged), oldest first, into
 * @out; how many. */
size_t cache_dirty_keys(const struct cache *c, struct cache_key *out,
			size_t max);
/* Nothing resident any more (a new, empty cache device); the counters of
 * lookups, evictions and destaging stay. */
void cache_clear(struct cache *c);

#endif
