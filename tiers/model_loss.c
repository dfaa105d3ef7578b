/* Data loss under drive faults: when failures go beyond what a tier's
 * stripes survive, and which stored blocks that cost (placement.h).
 *
 * On several nodes each node lays out its share of the blocks alike:
 *   protection inside a node (XtremIO: raid6 in each brick) a block
 *       lives on node model_nodes_owner(pblk) (the hash that stands in
 *       for its fingerprint) and is lost as on one node, by that node's
 *       drives alone;
 *   across nodes (model_cross_nodes: vSAN, raid0 in each host under
 *       [nodes] raid5/6) the block's stripe across nodes is
 *       g = unit / data (unit: its [nodes] stripe unit), member k on node
 *       (g + k) mod count as model_nodes.c lays them, and each member's
 *       component of it on the drive placement_drive(pblk) of its node.
 *       The block is lost when its own member's drive and more members'
 *       than [nodes] raid survives are unavailable. Simplification: the
 *       cache and backing tiers are judged apart (a cache device down on
 *       one host and a capacity device on another do not add up), and a
 *       member's component sits on the same drive number in every node.
 */
#include <stdlib.h>

#include "common/block.h"
#include "tiers/model_loss_i.h"
#include "tiers/model_nodes_i.h"
#include "tiers/profile_calc.h"

#define NEVER UINT64_MAX

bool model_drive_out(const struct model *m, unsigned tier, unsigned g,
		     uint64_t t)
{
	const struct drive_fault *d = &m->f.drive[tier][g];

	return d->fail_ns != NEVER &&
	       (d->pulled_ns != NEVER || t < d->rebuild_end_ns);
}

/* For the stripes (out_for_stripe): the end a rebuild at its progress
 * at @t would have had at a steady pace, fail + (t - fail) / done share;
 * NEVER with nothing done yet. */
static uint64_t stripe_end(const struct model *m, unsigned tier,
			   const struct drive_fault *d, uint64_t t)
{
	double frac;

	if (d->rebuild_end_ns != NEVER && t >= d->rebuild_end_ns)
		return d->rebuild_end_ns;
	if (t <= d->fail_ns || !d->rebuild_chunks)
		return d->rebuild_end_ns;
	frac =
	    (double)model_drive_done(m, tier, d, t) / (double)d->rebuild_chunks;
	if (frac <= 0)
		return NEVER;
	return d->fail_ns + (uint64_t)((double)(t - d->fail_ns) / frac);
}

/* ---- data loss ------------------------------------------------------------
 */

/* Nodes (of all) with a drive of @tier out at @t. */
static unsigned nodes_out(const struct model *m, unsigned tier, uint64_t t)
{
	unsigned per = m->p->tier[tier].drives, n = 0;

	for (unsigned node = 0; node < m->nodes; node++)
		for (unsigned j = 0; j < per; j++)
			if (model_drive_out(m, tier, node * per + j, t)) {
				n++;
				break;
			}
	return n;
}

/* Exact for raid0/1/10; for declustered raid5/6, more drives of the node
 * out than the parity count: then some stripes hold them all. Across
 * nodes, likewise with nodes for drives. */
bool model_may_lose(const struct model *m, unsigned tier, unsigned g,
		    uint64_t t)
{
	const struct profile_tier *pt = &m->p->tier[tier];
	unsigned out = 0, base = g - g % pt->drives, l = g - base;

	if (model_cross_nodes(m, tier))
		return nodes_out(m, tier, t) > model_node_tolerance(m);
	if (pt->raid == PROFILE_RAID0)
		return true;
	if (pt->raid == PROFILE_RAID10)
		return (l ^ 1u) < pt->drives &&
		       model_drive_out(m, tier, base + (l ^ 1u), t);
	for (unsigned j = 0; j < pt->drives; j++)
		out += model_drive_out(m, tier, base + j, t);
	return out > m->f.place[tier].tolerance;
}

unsigned model_loss_record(struct model *m, unsigned tier, uint64_t t)
{
	struct model_faults *f = &m->f;
	unsigned n = model_drives(m, tier);
	struct loss_event *grown, *ev;

	grown = realloc(f->loss, (f->n_loss + 1) * sizeof(*f->loss));
	if (!grown)
		return 0;
	f->loss = grown;
	ev = &f->loss[f->n_loss];
	*ev = (struct loss_event){.tier = tier, .at = t};
	ev->fail = malloc(n * sizeof(*ev->fail));
	ev->end = malloc(n * sizeof(*ev->end));
	if (!ev->fail || !ev->end) {
		free(ev->fail);
		free(ev->end);
		return 0;
	}
	for (unsigned j = 0; j < n; j++) {
		const struct drive_fault *d = &f->drive[tier][j];

		ev->fail[j] =
		    model_drive_out(m, tier, j, t) ? d->fail_ns : NEVER;
		ev->end[j] = stripe_end(m, tier, d, t);
	}
	return ++f->n_loss;
}

/* Is a drive that failed at @fail (NEVER: in place) and is rebuilt by
 * @end unavailable at @at for a stripe at rebuild position @pos? */
static bool out_for_stripe(uint64_t fail, uint64_t end, uint64_t at, double pos)
{
	if (fail == NEVER)
		return false;
	if (at <= fail)
		return true; /* pulled, not yet noticed or rebuilding */
	return (double)(at - fail) < pos * (double)(end - fail);
}

/* A loss event seen from one node: its drives from @base on. */
struct node_ev {
	const struct loss_event *ev;
	unsigned base;
};

/* Was the node's @drive unavailable at the loss event @ctx, for a stripe
 * at rebuild position @pos? */
static bool unavailable(void *ctx, unsigned drive, double pos)
{
	const struct node_ev *c = ctx;
	unsigned g = c->base + drive;

	return out_for_stripe(c->ev->fail[g], c->ev->end[g], c->ev->at, pos);
}

/* Across nodes (see the top): is @pblk lost by @ev? */
static bool cross_lost(const struct model *m, const struct loss_event *ev,
		       uint64_t pblk)
{
	const struct placement *pl = &m->f.place[ev->tier];
	unsigned data = model_node_sources(m), out = 0;
	uint64_t unit_blocks = m->p->nodes.stripe_unit_bytes / BLOCK_BYTES;
	uint64_t unit = pblk / (unit_blocks ? unit_blocks : 1);
	uint64_t g = unit / data;
	unsigned own = (unsigned)(unit % data),
		 drive = placement_drive(pl, pblk);
	double pos = placement_rebuild_pos(pl, g);
	bool own_out = false;

	if (m->p->nodes.raid == PROFILE_NRAID_RAID1)
		own = 0; /* two copies: either serves */
	for (unsigned k = 0; k < profile_node_width(m->p->nodes.raid); k++) {
		unsigned node = (unsigned)((g + k) % m->nodes);
		bool gone = unavailable(
		    &(struct node_ev){ev, node * pl->drives}, drive, pos);

		out += gone;
		own_out |= gone && k == own;
	}
	return own_out && out > model_node_tolerance(m);
}

bool model_block_lost(const struct model *m, unsigned loss, uint64_t pblk)
{
	const struct loss_event *ev;
	const struct placement *pl;
	unsigned node;

	if (loss == 0 || loss > m->f.n_loss)
		return false;
	ev = &m->f.loss[loss - 1];
	pl = &m->f.place[ev->tier];
	if (model_cross_nodes(m, ev->tier))
		return cross_lost(m, ev, pblk);
	node = m->nodes > 1 ? model_nodes_owner(m, pblk) : 0;
	return placement_lost(pl, pblk, unavailable,
			      &(struct node_ev){ev, node * pl->drives});
}

/* A drive out at ctx's moment for a stripe at rebuild position @pos, or
 * the one whose copy of the block went bad. */
struct rot_ctx {
	const struct model *m;
	unsigned tier, own, base;
	uint64_t now;
};

static bool out_or_rotted(void *ctx, unsigned drive, double pos)
{
	const struct rot_ctx *c = ctx;
	unsigned g = c->base + drive;
	const struct drive_fault *d = &c->m->f.drive[c->tier][g];

	if (drive == c->own)
		return true;
	return out_for_stripe(
	    model_drive_out(c->m, c->tier, g, c->now) ? d->fail_ns : NEVER,
	    stripe_end(c->m, c->tier, d, c->now), c->now, pos);
}

bool model_block_repairable(const struct model *m, uint64_t now_ns,
			    uint64_t pblk)
{
	unsigned tier = profile_data_tier(m->p);
	const struct placement *pl = &m->f.place[tier];
	struct rot_ctx c = {.m = m, .tier = tier, .now = now_ns};

	if (!m->p->tier[tier].present || pl->tolerance == 0)
		return false;
	/* Across nodes (tolerance 0 inside one) this says no: a bad copy
	 * there is not repaired from the other nodes' members. */
	c.own = placement_drive(pl, pblk);
	c.base = m->nodes > 1 ? model_nodes_owner(m, pblk) * pl->drives : 0;
	return !placement_lost(pl, pblk, out_or_rotted, &c);
}

unsigned model_loss_tier(const struct model *m, unsigned loss)
{
	if (loss == 0 || loss > m->f.n_loss)
		return PROFILE_TIER_COUNT;
	return m->f.loss[loss - 1].tier;
}
