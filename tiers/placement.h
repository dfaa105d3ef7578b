/* Where each physical block of the store lives in a drive group, for data
 * loss: which drives hold it and which failures it survives.
 *
 * The timing model (raid.c) addresses drives by logical offset; loss is a
 * question about stored blocks, so it uses the store's physical block
 * numbers (pblk, 4 KiB) instead. A pblk lies in stripe unit
 * u = pblk / (stripe_unit / 4 KiB):
 *
 *   raid0   unit u on drive u % n; nothing survives losing it
 *   raid1   every drive; lost only when all are
 *   raid10  pair u % (n/2): drives 2p and 2p+1; lost when both are
 *   raid5/6 declustered: stripe g = u / D (D = width - parity data units)
 *           on `width` distinct drives drawn from all n with a stream
 *           seeded by --seed and g; data unit j on the j-th drawn, parity
 *           on the last 1 or 2. A block is lost when its own drive is
 *           unavailable and more than the parity count of its stripe's
 *           members are: the units on surviving members still read.
 *
 * Each stripe also has a place in a rebuild, pos in [0, 1): a rebuild of
 * one of its drives reaches it after pos of the rebuild's duration. The
 * store is tiny next to the capacity the model rebuilds, so stripes are
 * scattered over the whole rebuild (a seeded hash) rather than all at its
 * start.
 */
#ifndef ARRAYSIM_TIERS_PLACEMENT_H
#define ARRAYSIM_TIERS_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/profile.h"

struct placement {
	enum profile_raid raid;
	unsigned drives, width, data; /* data: units per stripe */
	unsigned tolerance;	      /* drives of a stripe it survives */
	uint64_t unit_blocks;	      /* 4 KiB blocks per stripe unit */
	uint64_t seed;
};

/* Placement of tier @t's blocks under @seed. */
void placement_init(struct placement *pl, const struct profile_tier *t,
		    uint64_t seed);
/* The stripe of @pblk (raid0/1/10: its stripe unit). */
uint64_t placement_stripe(const struct placement *pl, uint64_t pblk);
/* The drives of stripe @g into @out (room for pl->width, or 2 for
 * raid10, 1 for raid0; raid1: none, every drive holds it); how many. */
unsigned placement_members(const struct placement *pl, uint64_t g,
			   unsigned *out);
/* The drive holding @pblk's copy (raid1: 0; raid10: the first of its
 * pair). */
unsigned placement_drive(const struct placement *pl, uint64_t pblk);
/* Where stripe @g comes in a rebuild, in [0, 1). */
double placement_rebuild_pos(const struct placement *pl, uint64_t g);
/* Is @pblk lost when @out(ctx, drive, pos) tells which drives are
 * unavailable for a stripe at rebuild position pos? */
bool placement_lost(const struct placement *pl, uint64_t pblk,
		    bool (*out)(void *ctx, unsigned drive, double pos),
		    void *ctx);

#endif
