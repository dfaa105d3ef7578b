/* Flash-tier residency: an LRU of 4 KiB blocks with dirty tracking.
 *
 * With eviction = arc the LRU is segmented (SLRU): a block enters a
 * probation segment and moves to a protected one when it is hit again;
 * the protected segment holds at most 3/4 of the capacity (its oldest
 * fall back to probation), and eviction takes probation's oldest first.
 * That gives ARC's point, a one-pass scan that cannot flush the blocks
 * that are used again and again, without ARC's ghost lists and adaptive
 * split.
 *
 *   entries[]   one per resident block, allocated as blocks arrive (up
 *               to the capacity), then reused by eviction
 *   hash        open addressing, linear probing: (ino, block) -> entry
 *   LRU list    most recently used at the head; the tail is evicted
 *   dirty list  written blocks not yet destaged, oldest at the tail
 *
 *   block state:   absent ──insert──> clean ──write──> dirty
 *                     ^                 │  ^             │
 *                     └────evict────────┘  └──destaged───┘
 *   (evicting a dirty block is reported: its write to the backing tier
 *   is owed at once)
 *
 * Why an intrusive array with 32-bit links: a hybrid's cache is large
 * (a million 4 KiB blocks is only 4 GiB) and the model looks blocks up
 * under its lock for every request; 40 bytes a block, no allocation per
 * block once the cache is full.
 */
#include "tiers/cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/block.h"
#include "common/prng.h"

#define NIL UINT32_MAX

enum { PROBATION, PROTECTED, SEGMENTS };

struct entry {
	struct cache_key key;
	uint32_t prev, next;   /* LRU list of its segment */
	uint32_t dprev, dnext; /* dirty list, when dirty */
	bool dirty;
	uint8_t seg; /* PROBATION (all of them, for plain LRU) or PROTECTED */
	/* Dirty: the bytes reduction at destage leaves (cache_insert_kept);
	 * in the padding after seg, so an entry stays 40 bytes. */
	uint16_t kept;
};

struct cache {
	uint64_t capacity;
	bool segmented;		/* eviction = arc: SLRU */
	uint64_t protected_max; /* blocks the protected segment may hold */
	struct entry *e;
	uint32_t n, alloc;  /* entries used, allocated */
	uint32_t *hash;	    /* entry index + 1; 0 empty */
	uint32_t hash_size; /* a power of two > 2 n */
	/* Per segment: most, least recent, and how many. */
	uint32_t head[SEGMENTS], tail[SEGMENTS], count[SEGMENTS];
	uint32_t dhead, dtail; /* dirty: newest, oldest */
	struct cache_stats st;
};

static uint32_t key_hash(struct cache_key k, uint32_t size)
{
	uint64_t h = k.ino * PRNG_GOLDEN ^ k.block;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return (uint32_t)h & (size - 1);
}

static bool key_eq(struct cache_key a, struct cache_key b)
{
	return a.ino == b.ino && a.block == b.block;
}

int cache_new(uint64_t capacity_blocks, struct cache **out)
{
	return cache_new_policy(capacity_blocks, false, out);
}

int cache_new_policy(uint64_t capacity_blocks, bool segmented,
		     struct cache **out)
{
	struct cache *c;

	*out = NULL;
	if (!capacity_blocks)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->capacity = capacity_blocks < NIL - 1 ? capacity_blocks : NIL - 1;
	c->hash_size = 1024;
	c->hash = calloc(c->hash_size, sizeof(*c->hash));
	if (!c->hash) {
		free(c);
		return -ENOMEM;
	}
	for (int s = 0; s < SEGMENTS; s++)
		c->head[s] = c->tail[s] = NIL;
	c->dhead = c->dtail = NIL;
	c->segmented = segmented;
	c->protected_max = c->capacity * 3 / 4;
	*out = c;
	return 0;
}

void cache_free(struct cache *c)
{
	if (!c)
		return;
	free(c->e);
	free(c->hash);
	free(c);
}

/* ---- hash -----------------------------------------------------------------
 */

/* The hash slot holding @k, or the empty slot where it would go. */
static uint32_t hash_slot(const struct cache *c, struct cache_key k)
{
	uint32_t i = key_hash(k, c->hash_size);

	while (c->hash[i] && !key_eq(c->e[c->hash[i] - 1].key, k))
		i = (i + 1) & (c->hash_size - 1);
	return i;
}

/* Remove slot @i, shifting back what probed past it (no tombstones). */
static void hash_remove(struct cache *c, uint32_t i)
{
	uint32_t mask = c->hash_size - 1, j = i;

	c->hash[i] = 0;
	for (;;) {
		uint32_t home;

		j = (j + 1) & mask;
		if (!c->hash[j])
			return;
		home = key_hash(c->e[c->hash[j] - 1].key, c->hash_size);
		/* Move j back to i unless its home lies in (i, j]. */
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			c->hash[i] = c->hash[j];
			c->hash[j] = 0;
			i = j;
		}
	}
}

static int hash_grow(struct cache *c)
{
	uint32_t size = c->hash_size * 2, *h = calloc(size, sizeof(*h));

	if (!h)
		return -ENOMEM;
	free(c->hash);
	c->hash = h;
	c->hash_size = size;
	for (uint32_t i = 0; i < c->n; i++)
		c->hash[hash_slot(c, c->e[i].key)] = i + 1;
	return 0;
}

/* ---- lists ------------------------------------------------------------------
 */

static void lru_unlink(struct cache *c, uint32_t i)
{
	struct entry *x = &c->e[i];
	unsigned s = x->seg;

	if (x->prev != NIL)
		c->e[x->prev].next = x->next;
	else
		c->head[s] = x->next;
	if (x->next != NIL)
		c->e[x->next].prev = x->prev;
	else
		c->tail[s] = x->prev;
	c->count[s]--;
}

static void lru_push_head(struct cache *c, uint32_t i, unsigned s)
{
	c->e[i].seg = (uint8_t)s;
	c->e[i].prev = NIL;
	c->e[i].next = c->head[s];
	if (c->head[s] != NIL)
		c->e[c->head[s]].prev = i;
	c->head[s] = i;
	if (c->tail[s] == NIL)
		c->tail[s] = i;
	c->count[s]++;
}

/* SLRU: the protected segment's oldest fall back to probation. */
static void rebalance(struct cache *c)
{
	while (c->count[PROTECTED] > c->protected_max) {
		uint32_t i = c->tail[PROTECTED];

		lru_unlink(c, i);
		lru_push_head(c, i, PROBATION);
	}
}

static void dirty_set(struct cache *c, uint32_t i)
{
	struct entry *x = &c->e[i];

	if (x->dirty)
		return;
	x->dirty = true;
	x->dprev = NIL;
	x->dnext = c->dhead;
	if (c->dhead != NIL)
		c->e[c->dhead].dprev = i;
	c->dhead = i;
	if (c->dtail == NIL)
		c->dtail = i;
	c->st.dirty++;
}

static void dirty_clear(struct cache *c, uint32_t i)
{
	struct entry *x = &c->e[i];

	if (!x->dirty)
		return;
	if (x->dprev != NIL)
		c->e[x->dprev].dnext = x->dnext;
	else
		c->dhead = x->dnext;
	if (x->dnext != NIL)
		c->e[x->dnext].dprev = x->dprev;
	else
		c->dtail = x->dprev;
	x->dirty = false;
	c->st.dirty--;
}

/* ---- operations -------------------------------------------------------------
 */

bool cache_lookup(struct cache *c, struct cache_key k)
{
	uint32_t slot = hash_slot(c, k);

	if (!c->hash[slot]) {
		c->st.misses++;
		return false;
	}
	c->st.hits++;
	lru_unlink(c, c->hash[slot] - 1);
	/* Hit again: used more than once, so protected (SLRU). */
	lru_push_head(c, c->hash[slot] - 1,
		      c->segmented ? PROTECTED : PROBATION);
	rebalance(c);
	return true;
}

/* An entry for a new block: a fresh one below capacity, else the LRU
 * tail, evicted (reporting a dirty victim and its kept bytes). NIL on no
 * memory. */
static uint32_t entry_take(struct cache *c, bool *dirty_victim,
			   struct cache_key *victim, uint16_t *victim_kept)
{
	uint32_t i;

	if (c->n < c->capacity) {
		if (c->n == c->alloc) {
			uint32_t alloc = c->alloc ? c->alloc * 2 : 1024;
			struct entry *e;

			if (alloc > c->capacity)
				alloc = (uint32_t)c->capacity;
			e = realloc(c->e, (size_t)alloc * sizeof(*e));
			if (!e)
				return NIL;
			c->e = e;
			c->alloc = alloc;
		}
		if ((uint64_t)(c->n + 1) * 2 > c->hash_size && hash_grow(c))
			return NIL;
		c->st.resident++;
		return c->n++;
	}
	i = c->tail[PROBATION] != NIL ? c->tail[PROBATION] : c->tail[PROTECTED];
	*dirty_victim = c->e[i].dirty;
	if (*dirty_victim) {
		*victim = c->e[i].key;
		*victim_kept = c->e[i].kept;
		c->st.dirty_evictions++;
	}
	c->st.evictions++;
	dirty_clear(c, i);
	lru_unlink(c, i);
	hash_remove(c, hash_slot(c, c->e[i].key));
	return i;
}

bool cache_insert(struct cache *c, struct cache_key k, bool dirty,
		  struct cache_key *victim)
{
	uint16_t kept;

	return cache_insert_kept(c, k, dirty, BLOCK_BYTES, victim, &kept);
}

bool cache_insert_kept(struct cache *c, struct cache_key k, bool dirty,
		       uint16_t kept, struct cache_key *victim,
		       uint16_t *victim_kept)
{
	uint32_t slot = hash_slot(c, k), i;
	bool dirty_victim = false;
	unsigned seg = PROBATION;

	if (c->hash[slot]) {
		i = c->hash[slot] - 1;
		seg = c->e[i].seg; /* a rewrite keeps its standing */
		lru_unlink(c, i);
	} else {
		i = entry_take(c, &dirty_victim, victim, victim_kept);
		if (i == NIL)
			return false;
		c->e[i].key = k;
		c->e[i].dirty = false;
		c->hash[hash_slot(c, k)] = i + 1;
	}
	lru_push_head(c, i, seg);
	if (dirty) {
		/* Still dirty from an earlier write: its data is not on the
		 * backing tier yet, whatever this one reduces to. */
		if (!c->e[i].dirty || kept > c->e[i].kept)
			c->e[i].kept = kept;
		dirty_set(c, i);
	}
	return dirty_victim;
}

bool cache_destage_next(struct cache *c, struct cache_key *k)
{
	uint16_t kept;

	return cache_destage_next_kept(c, k, &kept);
}

bool cache_destage_next_kept(struct cache *c, struct cache_key *k,
			     uint16_t *kept)
{
	if (c->dtail == NIL)
		return false;
	*k = c->e[c->dtail].key;
	*kept = c->e[c->dtail].kept;
	dirty_clear(c, c->dtail);
	c->st.destaged++;
	return true;
}

void cache_stats(const struct cache *c, struct cache_stats *st)
{
	*st = c->st;
}

bool cache_is_dirty(const struct cache *c, struct cache_key k)
{
	uint32_t slot = hash_slot(c, k);

	return c->hash[slot] && c->e[c->hash[slot] - 1].dirty;
}

size_t cache_dirty_keys(const struct cache *c, struct cache_key *out,
			size_t max)
{
	size_t n = 0;

	for (uint32_t i = c->dtail; i != NIL && n < max; i = c->e[i].dprev)
		out[n++] = c->e[i].key;
	return n;
}

void cache_clear(struct cache *c)
{
	c->n = 0;
	memset(c->hash, 0, c->hash_size * sizeof(*c->hash));
	for (int s = 0; s < SEGMENTS; s++) {
		c->head[s] = c->tail[s] = NIL;
		c->count[s] = 0;
	}
	c->dhead = c->dtail = NIL;
	c->st.resident = c->st.dirty = 0;
}
