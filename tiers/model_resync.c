/* A rebuild's plan, and the resync of a node that comes back.
 *
 * On several nodes with object placement over raid0 nodes (vSAN), a node
 * down (no controller left, or partitioned) takes no writes: its members'
 * share is carried by the others (model.c node_op_down), each such write
 * adding its bytes to what the node missed. When it is back, those bytes
 * are resynced from the other members, as vSAN resyncs a returning
 * host's stale components:
 *
 *   node down      missed += each write's member bytes meant for it
 *   node back      from when it serves again, each of its drives of the
 *                  data tier rebuilds missed / drives (rounded up), as a
 *                  lost drive's rebuild does on a raid0 node
 *                  (model_faults.c book_chunk): 1 MiB chunks read from
 *                  the other nodes' members, over the interconnect,
 *                  written on the node's drives, at the tier's
 *                  rebuild_rate per drive, at most drives - 1 in flight;
 *                  until a chunk is copied, reads of it are read from the
 *                  others
 *   down again     the resync stops; what it had not copied is missed
 *                  again
 *
 * A node down for [nodes] repair_delay (vSAN's object repair timer) has
 * its components rebuilt on the others, when enough nodes are up to hold
 * the layout: each of its data-tier drives rebuilds its used space as a
 * lost drive does, its chunks read from the other members and written on
 * the other nodes' drives in turn. Done, the node no longer counts as a
 * member lost (model_node_repaired: its reads read one copy, and the
 * array survives [nodes] raid's tolerance of further nodes down); back
 * after that, it has nothing to resync (its stale components are
 * dropped); back before, the repair stops and it resyncs.
 *
 * The drives show it as a rebuild (model_drive_view: rebuilding, bytes
 * left), and the change that brought the node back carries its schedule
 * (eff->resync).
 */
#include "tiers/model_resync_i.h"

#include "tiers/profile_calc.h"

#define NEVER UINT64_MAX

void model_rebuild_plan(struct model *m, unsigned tier, struct drive_fault *d,
			uint64_t fail_ns, uint64_t bytes)
{
	double secs = (double)bytes / (double)m->f.rebuild_rate[tier];

	d->fail_ns = fail_ns;
	d->bytes = bytes;
	d->plan_end_ns = fail_ns + (uint64_t)(secs * 1e9 + 0.5);
	d->rebuild_chunks =
	    (bytes + MODEL_REBUILD_CHUNK - 1) / MODEL_REBUILD_CHUNK;
	d->chunk_ns =
	    d->rebuild_chunks ? secs * 1e9 / (double)d->rebuild_chunks : 1.0;
	d->rebuild_next = 0;
	d->last_end_ns = fail_ns;
	/* Nothing to copy, or no drive to copy from: over at its plan. */
	d->rebuild_end_ns = d->rebuild_chunks && m->p->tier[tier].drives >= 2
				? NEVER
				: d->plan_end_ns;
	m->f.drives_out++;
}

void model_drive_reset(struct model *m, struct drive_fault *d)
{
	d->pulled_ns = d->fail_ns = NEVER;
	d->rebuild_end_ns = d->rebuild_next = d->rebuild_chunks = 0;
	d->plan_end_ns = d->last_end_ns = d->bytes = 0;
	d->resync = d->elsewhere = false;
	m->f.drives_out--;
}

void model_resync_start(struct model *m, unsigned node, uint64_t at,
			struct model_fault_effect *eff)
{
	unsigned tier = profile_data_tier(m->p), per = m->p->tier[tier].drives;
	uint64_t missed = m->f.missed_bytes[node], end = at;

	/* Only where the other nodes hold the data and the node's drives
	 * none of their own redundancy (model_cross_nodes). */
	if (!missed || !model_cross_nodes(m, tier) || !m->f.drive[tier])
		return;
	m->f.missed_bytes[node] = 0;
	for (unsigned i = node * per; i < (node + 1) * per; i++) {
		struct drive_fault *d = &m->f.drive[tier][i];

		if (d->fail_ns != NEVER)
			continue; /* pulled: its rebuild copies it all */
		model_rebuild_plan(m, tier, d, at, (missed + per - 1) / per);
		d->resync = true;
		end = d->plan_end_ns > end ? d->plan_end_ns : end;
	}
	m->f.resync_ns[node] = at;
	eff->resync = true;
	eff->fail_ns = at;
	eff->rebuild_end_ns = end;
	eff->rebuild_bytes = missed;
}

void model_resync_stop(struct model *m, unsigned node, uint64_t now)
{
	unsigned tier = profile_data_tier(m->p), per = m->p->tier[tier].drives;

	if (m->f.resync_ns[node] == NEVER || !m->f.drive[tier])
		return;
	m->f.resync_ns[node] = NEVER;
	for (unsigned i = node * per; i < (node + 1) * per; i++) {
		struct drive_fault *d = &m->f.drive[tier][i];
		uint64_t done;

		if (!d->resync)
			continue;
		done = model_drive_done(m, tier, d, now) * MODEL_REBUILD_CHUNK;
		m->f.missed_bytes[node] +=
		    done < d->bytes ? d->bytes - done : 0;
		model_drive_reset(m, d);
	}
}

/* ---- a down node's repair on the others --------------------------------- */

void model_repair_schedule(struct model *m, unsigned node, uint64_t now)
{
	if (!model_cross_nodes(m, profile_data_tier(m->p)))
		return;
	m->f.repair_at[node] = now + m->f.repair_ns;
	m->f.repairs_due++;
}

void model_repair_start(struct model *m, unsigned node)
{
	unsigned tier = profile_data_tier(m->p);
	const struct profile_tier *pt = &m->p->tier[tier];
	uint64_t used =
	    (uint64_t)((double)pt->capacity_bytes * pt->fill_pct / 100.0);

	m->f.repairing[node] = true;
	m->f.repairs_due--;
	for (unsigned i = node * pt->drives; i < (node + 1) * pt->drives; i++) {
		struct drive_fault *d = &m->f.drive[tier][i];

		if (d->resync)
			model_drive_reset(m, d); /* the repair copies it all */
		if (d->fail_ns != NEVER)
			continue; /* pulled: its own rebuild */
		model_rebuild_plan(m, tier, d, m->f.repair_at[node], used);
		d->elsewhere = true;
	}
}

bool model_node_repaired(const struct model *m, unsigned node)
{
	unsigned tier = profile_data_tier(m->p), per = m->p->tier[tier].drives;

	if (!m->f.repairing[node])
		return false;
	for (unsigned i = node * per; i < (node + 1) * per; i++)
		if (m->f.drive[tier][i].elsewhere)
			return false;
	return true;
}

bool model_repair_stop(struct model *m, unsigned node)
{
	unsigned tier = profile_data_tier(m->p), per = m->p->tier[tier].drives;
	bool done = model_node_repaired(m, node);

	if (m->f.repair_at[node] != NEVER && !m->f.repairing[node])
		m->f.repairs_due--;
	m->f.repair_at[node] = NEVER;
	m->f.repairing[node] = false;
	for (unsigned i = node * per; m->f.drive[tier] && i < (node + 1) * per;
	     i++)
		if (m->f.drive[tier][i].elsewhere)
			model_drive_reset(m, &m->f.drive[tier][i]);
	/* Whole on the others: its stale components are dropped. */
	if (done)
		m->f.missed_bytes[node] = 0;
	return done;
}
