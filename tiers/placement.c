/* Physical placement of stored blocks for data loss; see placement.h.
 *
 * Why declustered for raid5/6: Infinidat's InfiniRAID, like dRAID and
 * most large arrays, spreads each stripe over a different subset of all
 * the group's drives, so that a rebuild reads from every drive. A second
 * failure then loses only the stripes that hold both failed drives (with
 * width w of n drives, a fraction w(w-1) / n(n-1)) instead of a whole
 * set, which is what the real array reports after a double failure.
 */
#include "tiers/placement.h"

#include "common/block.h"
#include "tiers/engine.h"

#define SEED_MEMBERS PRNG_GOLDEN
#define SEED_POS 0xc2b2ae3d27d4eb4full

void placement_init(struct placement *pl, const struct profile_tier *t,
		    uint64_t seed)
{
	unsigned parity = t->raid == PROFILE_RAID6 ? 2 : 1;

	pl->raid = t->raid;
	pl->drives = t->drives;
	pl->seed = seed;
	pl->unit_blocks = t->stripe_unit_bytes / BLOCK_BYTES;
	if (!pl->unit_blocks)
		pl->unit_blocks = 1;
	switch (t->raid) {
	case PROFILE_RAID0:
		pl->width = pl->data = 1;
		pl->tolerance = 0;
		break;
	case PROFILE_RAID1:
		pl->width = t->drives;
		pl->data = 1;
		pl->tolerance = t->drives - 1;
		break;
	case PROFILE_RAID10:
		pl->width = 2;
		pl->data = 1;
		pl->tolerance = 1;
		break;
	default:
		pl->width =
		    t->stripe_width < t->drives ? t->stripe_width : t->drives;
		if (pl->width > PROFILE_MAX_WIDTH)
			pl->width = PROFILE_MAX_WIDTH;
		pl->data = pl->width > parity ? pl->width - parity : 1;
		pl->tolerance = parity;
	}
}

uint64_t placement_stripe(const struct placement *pl, uint64_t pblk)
{
	return pblk / pl->unit_blocks / pl->data;
}

/* @w distinct drives of @n drawn from the stream of @seed. */
static void draw(uint64_t seed, unsigned n, unsigned w, unsigned *out)
{
	uint64_t r;

	r = seed;
	for (unsigned k = 0; k < w;) {
		unsigned d = (unsigned)(prng_next(&r) % n);
		unsigned i = 0;

		while (i < k && out[i] != d)
			i++;
		if (i == k)
			out[k++] = d;
	}
}

unsigned placement_members(const struct placement *pl, uint64_t g,
			   unsigned *out)
{
	switch (pl->raid) {
	case PROFILE_RAID0:
		out[0] = (unsigned)(g % pl->drives);
		return 1;
	case PROFILE_RAID1:
		return 0;
	case PROFILE_RAID10:
		out[0] = (unsigned)(g % (pl->drives / 2)) * 2;
		out[1] = out[0] + 1;
		return 2;
	default:
		draw(pl->seed ^ SEED_MEMBERS ^ (g * 0xff51afd7ed558ccdull),
		     pl->drives, pl->width, out);
		return pl->width;
	}
}

unsigned placement_drive(const struct placement *pl, uint64_t pblk)
{
	unsigned m[PROFILE_MAX_WIDTH];
	uint64_t unit = pblk / pl->unit_blocks;

	if (!placement_members(pl, placement_stripe(pl, pblk), m))
		return 0;
	return m[unit % pl->data];
}

double placement_rebuild_pos(const struct placement *pl, uint64_t g)
{
	uint64_t r;

	r = pl->seed ^ SEED_POS ^ (g * 0x94d049bb133111ebull);
	return prng_unit(&r);
}

bool placement_lost(const struct placement *pl, uint64_t pblk,
		    bool (*out)(void *ctx, unsigned drive, double pos),
		    void *ctx)
{
	uint64_t g = placement_stripe(pl, pblk);
	double pos = placement_rebuild_pos(pl, g);
	unsigned m[PROFILE_MAX_WIDTH], n = placement_members(pl, g, m);
	unsigned gone = 0;

	if (pl->raid == PROFILE_RAID1) {
		for (unsigned d = 0; d < pl->drives; d++)
			if (!out(ctx, d, pos))
				return false;
		return true;
	}
	if (!out(ctx, placement_drive(pl, pblk), pos))
		return false;
	for (unsigned i = 0; i < n; i++)
		gone += out(ctx, m[i], pos);
	return gone > pl->tolerance;
}
