/* A hybrid's residency, request by request: which cache keys an I/O's
 * blocks are, whether a read hits, and what a request leaves resident by
 * the profile's policy, over the LRU of cache.c.
 *
 *   read    hit when every block is resident (holes do not count); a
 *           miss promotes the blocks if promote_on_read_miss
 *   write   write-back: dirty in flash; write-through: clean in flash;
 *           write-around: not in flash, and never a hit
 *
 * Keys are physical blocks when the data path gives them (io->pblks): a
 * block dedupe shares between files or offsets takes flash space once.
 * Else (inode, logical block). A dirty block evicted to make room is
 * destaged at once (model_destage).
 */
#include "tiers/cache_residency.h"

#include "common/block.h"

/* Make block @k resident (dirty or not, with @kept bytes left after
 * reduction); a dirty victim is destaged. */
static void residency_insert(struct cache *c, struct model *m, uint64_t now_ns,
			     struct cache_key k, bool dirty, uint16_t kept)
{
	struct cache_key victim;
	uint16_t victim_kept;

	if (cache_insert_kept(c, k, dirty, kept, &victim, &victim_kept))
		model_destage_reduced(m, now_ns, victim.block * BLOCK_BYTES,
				      victim_kept);
}

/* What reduction keeps of block @i of write @io: the data path's figure,
 * else the model's rule for a whole request (all deduped or none). */
static uint16_t kept_of(const struct array_io *io, uint64_t i, uint64_t n)
{
	if (io->kept)
		return io->kept[i];
	return io->blocks_deduped >= n ? 0 : BLOCK_BYTES;
}

/* The residency key of block @i of @io, false for a hole (nothing on
 * any drive). With physical blocks, a block that dedupe shares between
 * files or offsets is one key: it takes flash space once. */
static bool key_of(const struct array_io *io, uint64_t i, struct cache_key *k)
{
	if (!io->pblks) {
		*k = (struct cache_key){.ino = io->ino,
					.block = io->offset / BLOCK_BYTES + i};
		return true;
	}
	*k = (struct cache_key){.ino = 0, .block = io->pblks[i]};
	return k->block != 0;
}

bool cache_residency_update(struct cache *c, const struct profile_cache *pc,
			    struct model *m, uint64_t now_ns,
			    const struct array_io *io)
{
	uint64_t n = (io->offset + io->length - 1) / BLOCK_BYTES -
		     io->offset / BLOCK_BYTES + 1;
	struct cache_key k;
	bool hit = true;

	if (io->kind == ARRAY_IO_READ) {
		for (uint64_t i = 0; i < n; i++)
			if (key_of(io, i, &k))
				hit &= cache_lookup(c, k);
		if (!hit && pc->promote_on_read_miss)
			for (uint64_t i = 0; i < n; i++)
				if (key_of(io, i, &k))
					residency_insert(c, m, now_ns, k, false,
							 BLOCK_BYTES);
		return hit;
	}
	if (pc->policy == PROFILE_POLICY_WRITE_AROUND)
		return false;
	for (uint64_t i = 0; i < n; i++)
		if (key_of(io, i, &k))
			residency_insert(c, m, now_ns, k,
					 pc->policy ==
					     PROFILE_POLICY_WRITE_BACK,
					 kept_of(io, i, n));
	return true;
}
