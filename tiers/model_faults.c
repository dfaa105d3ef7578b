/* Array-level faults in the model: what a failed controller, a lost
 * front-end path, a pulled or slow drive do to the requests that follow.
 *
 * All in emulated time, deterministic (no randomness of their own):
 *
 *   controller fails   a serving one: every request arriving in the next
 *                      failover_time waits until it ends (the other
 *                      controllers take over its work); then the
 *                      survivors share all requests (less CPU, so more
 *                      queueing under load). Too many failed (single: its
 *                      one; active-standby: all; active-active: a
 *                      majority, as Infinidat's 3 with 2 down): the array
 *                      shuts down (model_down; tiers/array_timed.c fails or
 *                      holds the I/O per `shutdown`). Restored: it serves
 *                      again recovery_time later.
 *   path lost          requests arriving in the next multipath_timeout
 *                      wait until it ends, then use the remaining links.
 *                      All lost: shut down, as above. Several nodes: a
 *                      node's paths are its front-end links (all of a
 *                      node lost: the hosts use the others'), or with a
 *                      local front end its network ports (all lost: the
 *                      node is partitioned, a node down).
 *   drive pulled       noticed detection_window later (back before that:
 *                      nothing happened). From then reads of its data
 *                      are reconstructed (raid5/6: the other data and
 *                      parity members of the stripe, width - parity
 *                      reads; raid1/10: the mirror) and writes to it are
 *                      dropped (parity or mirror carry them), until the
 *                      rebuild reaches them. The rebuild copies
 *                      capacity x fill in 1 MiB chunks, declustered
 *                      (sources and spare space rotate through the tier,
 *                      as InfiniRAID or dRAID do), on its own clock:
 *                      chunk k starts at fail + k x chunk / rate, or when
 *                      the chunk W before it ends if later (at most W =
 *                      drives - 1 in flight, up to 64), booked on the
 *                      drives alongside the foreground whether or not
 *                      requests arrive (model_advance, and every arrival
 *                      and change, book what can start by then). Idle
 *                      drives finish it in used / rate; loaded ones
 *                      later, and the foreground waits behind its
 *                      chunks. It ends when the drives finish its last
 *                      chunk (model_rebuild_end). A drive returned after it was
 * noticed changes nothing: the rebuild completes onto spare space. A failure
 * beyond the level's tolerance (raid0: any; raid5: a second; raid6: a third;
 *                      raid10: both of a pair) loses the blocks whose
 *                      stripes then have too few members left, on the
 *                      store's physical placement (placement.h): the
 *                      stripes a rebuild had reached already survive.
 *                      The loss is recorded as it stands at that moment
 *                      (model_block_lost); nothing brings it back. raid0
 *                      has nothing to rebuild from: a pull loses its
 *                      drive's units and starts no rebuild. On the cache
 *                      tier only dirty blocks can be lost (array_timed.c).
 *   drive slow         its service times are multiplied by the factor.
 *
 * Requests already booked when a fault begins keep their times: a stall
 * delays arrivals, not work in flight.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tiers/model_faults_i.h"
#include "tiers/model_i.h"
#include "tiers/model_loss_i.h"
#include "tiers/model_nodes_i.h"
#include "tiers/model_resync_i.h"
#include "tiers/profile_calc.h"

#define REBUILD_CHUNK MODEL_REBUILD_CHUNK
#define NEVER UINT64_MAX

int model_fault_init(struct model *m)
{
	struct model_faults *f = &m->f;
	const struct profile *p = m->p;

	f->failover_ns = model_fault_ns(m, p->ctl.failover_ns);
	f->recovery_ns = model_fault_ns(m, p->ctl.recovery_ns);
	f->multipath_ns = model_fault_ns(m, p->fe.multipath_timeout_ns);
	f->repair_ns = model_fault_ns(m, p->nodes.repair_delay_ns);
	for (unsigned t = 0; t < PROFILE_TIER_COUNT; t++) {
		const struct profile_tier *pt = &p->tier[t];

		if (!pt->present)
			continue;
		f->detection_ns[t] = model_fault_ns(m, pt->detection_ns);
		/* A rebuild's length is a fault duration: its rate goes by
		 * --time-scale (used / rate divided by it). */
		f->rebuild_rate[t] =
		    scale_rate(m->time_scale, pt->rebuild_bytes_per_s);
		if (!f->rebuild_rate[t])
			f->rebuild_rate[t] = 1;
		placement_init(&f->place[t], pt, m->seed);
		f->drive[t] = calloc(model_drives(m, t), sizeof(*f->drive[t]));
		if (!f->drive[t])
			return -ENOMEM;
		for (unsigned i = 0; i < model_drives(m, t); i++) {
			f->drive[t][i].pulled_ns = NEVER;
			f->drive[t][i].fail_ns = NEVER;
			f->drive[t][i].slow = 1.0;
			f->drive[t][i].done_fail_ns = NEVER;
		}
	}
	for (unsigned n = 0; n < MODEL_MAX_CTLS; n++)
		f->resync_ns[n] = f->repair_at[n] = NEVER;
	return 0;
}

void model_fault_fini(struct model *m)
{
	for (unsigned t = 0; t < PROFILE_TIER_COUNT; t++)
		free(m->f.drive[t]);
	for (unsigned i = 0; i < m->f.n_loss; i++) {
		free(m->f.loss[i].fail);
		free(m->f.loss[i].end);
	}
	free(m->f.loss);
}

/* ---- shutdown and stalls ------------------------------------------------ */

/* Are @down of a node's controllers more than its mode survives? */
static bool exhausted(const struct model *m, unsigned down)
{
	unsigned n = m->p->ctl.count;

	switch (m->p->ctl.ha) {
	case PROFILE_HA_SINGLE:
		return down >= 1;
	case PROFILE_HA_ACTIVE_STANDBY:
		return down >= n;
	default:
		return 2 * down > n;
	}
}

/* Has node @node lost all its network ports (model_paths_net)? Then it
 * is partitioned from the others: a node down, as with no controller. */
static bool partitioned(const struct model *m, unsigned node)
{
	unsigned n = model_node_paths(m);

	if (!model_paths_net(m))
		return false;
	for (unsigned i = 0; i < n; i++)
		if (!m->f.link_down[node * n + i])
			return false;
	return true;
}

bool model_node_down(const struct model *m, unsigned node)
{
	unsigned n = m->p->ctl.count, down = 0;

	if (m->nodes == 1)
		return false;
	for (unsigned i = 0; i < n; i++)
		down += m->f.ctl_down[node * n + i];
	return exhausted(m, down) || partitioned(m, node);
}

/* One node: its controllers. Several: a node down (no controller, or
 * partitioned) leaves its data only
 * on the other nodes' members, so the array stays up while the nodes
 * down are within [nodes] raid's tolerance, and with no redundancy
 * across nodes (XtremIO: protection inside each brick) not at all. */
static bool ctls_exhausted(const struct model *m)
{
	unsigned down = 0;

	if (m->nodes == 1)
		return exhausted(m, m->f.ctls_down);
	/* A node repaired on the others is no member lost. */
	for (unsigned node = 0; node < m->nodes; node++)
		down +=
		    model_node_down(m, node) && !model_node_repaired(m, node);
	return model_nodes_redundant(m) ? down > model_node_tolerance(m)
					: down > 0;
}

bool model_down(const struct model *m)
{
	/* Network paths: a node without any is a node down (above). */
	if (model_paths_net(m))
		return ctls_exhausted(m);
	return ctls_exhausted(m) || m->f.links_down >= model_paths(m);
}

/* Requests arriving in [now, now + ns) wait until its end; an overlapping
 * stall extends the one running. */
static void stall(struct model *m, uint64_t now, uint64_t ns,
		  struct model_fault_effect *eff)
{
	struct model_faults *f = &m->f;

	if (now >= f->stall_until)
		f->stall_from = now;
	if (now + ns > f->stall_until)
		f->stall_until = now + ns;
	eff->stall_from = f->stall_from;
	eff->stall_until = f->stall_until;
}

/* ---- routing ------------------------------------------------------------- */

static bool ctl_serves(const struct model *m, unsigned i, uint64_t t)
{
	return !m->f.ctl_down[i] && m->f.ctl_serves_ns[i] <= t;
}

/* Node @node's controller (local number) to take work at @t, from
 * @first on in turn: the first serving (@serving set), else the earliest
 * back, and @t then. */
static unsigned pick_in(const struct model *m, unsigned node, unsigned first,
			uint64_t *t, bool *serving)
{
	unsigned n = m->p->ctl.count, best = first;
	uint64_t best_ns = NEVER;

	*serving = false;
	for (unsigned k = 0; k < n; k++) {
		unsigned i = (first + k) % n, g = node * n + i;

		if (ctl_serves(m, g, *t)) {
			*serving = true;
			return i;
		}
		if (!m->f.ctl_down[g] && m->f.ctl_serves_ns[g] < best_ns) {
			best = i;
			best_ns = m->f.ctl_serves_ns[g];
		}
	}
	/* Only recovering ones: the earliest back takes it then. */
	if (best_ns != NEVER && best_ns > *t)
		*t = best_ns;
	return best;
}

unsigned model_fault_pick_ctl(struct model *m, uint64_t *t)
{
	const struct profile_controllers *c = &m->p->ctl;
	bool aa = c->ha == PROFILE_HA_ACTIVE_ACTIVE, serving;
	unsigned i =
	    pick_in(m, 0, aa ? m->next_ctl % c->count : 0, t, &serving);

	/* Round robin over those serving: the hosts' multipathing spreads a
	 * failed controller's share over the others evenly, not onto the
	 * next one alone. */
	if (aa && serving)
		m->next_ctl = i + 1;
	return i;
}

unsigned model_fault_node_ctl(const struct model *m, unsigned node,
			      unsigned want, uint64_t *t)
{
	bool serving;

	return pick_in(m, node, want, t, &serving);
}

unsigned model_fault_partner(const struct model *m, unsigned node, unsigned i)
{
	unsigned n = m->p->ctl.count;

	for (unsigned k = 1; k < n; k++)
		if (!m->f.ctl_down[node * n + (i + k) % n])
			return (i + k) % n;
	return i;
}

unsigned model_fault_pick_link(struct model *m)
{
	unsigned links = m->p->fe.links, n = m->nodes * links;
	unsigned first = m->next_link++ % n;

	/* Round robin over the links up, the turn moving past the one
	 * taken: the hosts' multipathing spreads a lost link's share over
	 * all the others, not onto the next one alone. On several nodes,
	 * every node's links in turn, of the nodes up; a node with no
	 * front-end link left still serves its data (XtremIO: hosts use the
	 * other bricks'), and where a node's paths are its network ports
	 * (model_paths_net) losing one leaves the front end as it was. */
	for (unsigned k = 0; k < n; k++) {
		unsigned l = (first + k) % n;

		if (!model_node_down(m, l / links) &&
		    (model_paths_net(m) || !m->f.link_down[l])) {
			m->next_link = l + 1;
			return l;
		}
	}
	return first;
}

/* ---- drives -------------------------------------------------------------- */

/* Is @off of drive @g lost at @t (noticed, not yet rebuilt)? */
static bool degraded(const struct model *m, unsigned tier, unsigned g,
		     uint64_t off, uint64_t t)
{
	const struct drive_fault *d = &m->f.drive[tier][g];

	return t >= d->fail_ns && t < d->rebuild_end_ns &&
	       off >= model_drive_done(m, tier, d, t) * REBUILD_CHUNK;
}

/* @o on drive @g (array-wide: node n's drives from n x drives on). */
static uint64_t submit_on(struct model *m, unsigned tier, unsigned g,
			  const struct raid_op *o, uint64_t from,
			  uint64_t *counts)
{
	struct engine_stage st = {
	    .res = m->drive0[tier] + (int)g,
	    .op = o->op,
	    .bytes = o->bytes,
	    .offset_bytes = o->offset,
	};

	counts[o->op]++;
	return engine_submit(m->e, from, &st, 1);
}

/* The members inside its node that hold what drive @g held: its mirror,
 * or the rest of its raid5/6 stripe (the width - parity needed). Fills
 * @out (array-wide), returns how many. */
static unsigned sources(const struct model *m, unsigned tier, unsigned g,
			uint64_t off, uint64_t t, unsigned *out)
{
	const struct profile_tier *pt = &m->p->tier[tier];
	unsigned base = g - g % pt->drives, drive = g - base;
	unsigned n = 0, first = 0, span = pt->drives, need = 1;

	if (pt->raid == PROFILE_RAID10) {
		out[0] = base + (drive ^ 1u);
		return (drive ^ 1u) < pt->drives ? 1 : 0;
	}
	if (pt->raid == PROFILE_RAID5 || pt->raid == PROFILE_RAID6) {
		span = pt->stripe_width;
		first = drive / span * span;
		need = span - (pt->raid == PROFILE_RAID6 ? 2 : 1);
	}
	if (need > PROFILE_MAX_WIDTH) /* raid_plan refuses such sets */
		need = PROFILE_MAX_WIDTH;
	for (unsigned k = 1; k < span && n < need; k++) {
		unsigned j = first + (drive - first + k) % span;

		if (j < pt->drives && !degraded(m, tier, base + j, off, t))
			out[n++] = base + j;
	}
	return n;
}

/* What drive @g held, read from the other nodes' members of its stripe
 * across nodes (model_cross_nodes): the data members' worth, the same
 * drive of the next nodes up, each a request hop there and the data's
 * hop back. Simplification: the members are the next nodes in turn, not
 * the stripe's own (model_nodes.c rotates stripes over all nodes, so the
 * cost is the same), and @asker asks them (the lost drive's node, or
 * where a down node's repair writes). */
static uint64_t cross_read(struct model *m, unsigned tier, unsigned g,
			   unsigned asker, const struct raid_op *o,
			   uint64_t from, uint64_t *counts)
{
	unsigned per = m->p->tier[tier].drives, node = g / per, l = g % per;
	unsigned need = model_node_sources(m);
	uint64_t end = from;

	for (unsigned k = 1; k < m->nodes && need; k++) {
		unsigned other = (node + k) % m->nodes, src = other * per + l;
		uint64_t t;

		if (degraded(m, tier, src, o->offset, from) ||
		    model_node_down(m, other))
			continue;
		t = model_nodes_hop(m, asker, other, 0, from);
		t = submit_on(m, tier, src, o, t, counts);
		t = model_nodes_hop(m, other, asker, o->bytes, t);
		end = t > end ? t : end;
		need--;
	}
	return end;
}

/* A read of what a lost drive @g held: all sources in parallel. */
static uint64_t reconstruct(struct model *m, unsigned tier, unsigned g,
			    const struct raid_op *o, uint64_t from,
			    uint64_t *counts)
{
	unsigned src[PROFILE_MAX_WIDTH];
	unsigned n;
	uint64_t end = from;

	if (model_cross_nodes(m, tier))
		return cross_read(m, tier, g, g / m->p->tier[tier].drives, o,
				  from, counts);
	n = sources(m, tier, g, o->offset, from, src);
	for (unsigned k = 0; k < n; k++) {
		uint64_t t = submit_on(m, tier, src[k], o, from, counts);

		end = t > end ? t : end;
	}
	return end;
}

uint64_t model_fault_drive_op(struct model *m, unsigned tier, unsigned node,
			      const struct raid_op *o, uint64_t from,
			      uint64_t *counts)
{
	unsigned g = node * m->p->tier[tier].drives + o->drive;

	if (!m->f.drives_out || !degraded(m, tier, g, o->offset, from))
		return submit_on(m, tier, g, o, from, counts);
	if (o->op == ENGINE_OP_WRITE)
		return from; /* parity or mirror has it; the rebuild writes it
			      */
	return reconstruct(m, tier, g, o, from, counts);
}

/* The node up that chunk @k of down node @node's repair goes to: the
 * others in turn. */
static unsigned repair_node(const struct model *m, unsigned node, uint64_t k)
{
	for (unsigned j = 0; j + 1 < m->nodes; j++) {
		unsigned to = (unsigned)((node + 1 + (k + j) % (m->nodes - 1)) %
					 m->nodes);

		if (!model_node_down(m, to))
			return to;
	}
	return node;
}

/* Rebuild chunk @k of drive @g, starting at @at: read the sources, then
 * write spare space, both rotating through the node's drives of the tier
 * (declustered); across nodes, read from the other nodes' members and
 * write on the node's own other drives, or for a down node's repair on
 * the other nodes' drives. When the write ends. */
static uint64_t book_chunk(struct model *m, unsigned tier, unsigned g,
			   uint64_t k, uint64_t at)
{
	const struct profile_tier *pt = &m->p->tier[tier];
	struct raid_op o = {.op = ENGINE_OP_READ, .bytes = REBUILD_CHUNK};
	unsigned need = pt->raid == PROFILE_RAID5   ? pt->stripe_width - 1
			: pt->raid == PROFILE_RAID6 ? pt->stripe_width - 2
						    : 1;
	unsigned others = pt->drives - 1, base = g - g % pt->drives;
	unsigned drive = g - base;
	uint64_t end = at;

	o.offset = k * REBUILD_CHUNK % pt->capacity_bytes;
	if (model_cross_nodes(m, tier) && m->f.drive[tier][g].elsewhere) {
		unsigned to = repair_node(m, g / pt->drives, k);

		end = cross_read(m, tier, g, to, &o, at, m->counts.rebuild_ops);
		o.op = ENGINE_OP_WRITE;
		return submit_on(m, tier,
				 to * pt->drives +
				     (unsigned)((drive + k) % pt->drives),
				 &o, end, m->counts.rebuild_ops);
	}
	if (model_cross_nodes(m, tier)) {
		need = 0;
		end = cross_read(m, tier, g, g / pt->drives, &o, at,
				 m->counts.rebuild_ops);
	}
	for (unsigned j = 0; j < need; j++) {
		unsigned src =
		    pt->raid == PROFILE_RAID10
			? drive ^ 1u
			: (unsigned)((drive + 1 + (k * need + j) % others) %
				     pt->drives);
		uint64_t t;

		if (src >= pt->drives)
			continue;
		t = submit_on(m, tier, base + src, &o, at,
			      m->counts.rebuild_ops);
		end = t > end ? t : end;
	}
	o.op = ENGINE_OP_WRITE;
	return submit_on(
	    m, tier, base + (unsigned)((drive + 1 + k % others) % pt->drives),
	    &o, end, m->counts.rebuild_ops);
}

/* Book drive @i's rebuild chunks that can start by @now: chunk k at its
 * due time (the rate) or when chunk k - W ends, the later; the last
 * booked fixes rebuild_end_ns. */
static void rebuild_run(struct model *m, unsigned tier, unsigned i,
			uint64_t now)
{
	struct drive_fault *d = &m->f.drive[tier][i];
	unsigned w = model_rebuild_window(m->p->tier[tier].drives);

	if (now < d->fail_ns || d->rebuild_end_ns != NEVER)
		return;
	while (d->rebuild_next < d->rebuild_chunks) {
		uint64_t k = d->rebuild_next;
		uint64_t start =
		    d->fail_ns + (uint64_t)((double)k * d->chunk_ns);
		uint64_t end;

		if (k >= w && d->win[k % w] > start)
			start = d->win[k % w];
		if (start > now)
			break;
		end = book_chunk(m, tier, i, k, start);
		d->win[k % w] = end;
		if (end > d->last_end_ns)
			d->last_end_ns = end;
		d->rebuild_next++;
	}
	if (d->rebuild_next == d->rebuild_chunks)
		d->rebuild_end_ns = d->last_end_ns;
}

/* Rebuilds caught up to @now; a returned drive done rebuilding is
 * forgotten. */
static void drives_run(struct model *m, uint64_t now)
{
	for (unsigned t = 0; t < PROFILE_TIER_COUNT && m->f.drives_out; t++)
		for (unsigned i = 0; m->f.drive[t] && i < model_drives(m, t);
		     i++) {
			struct drive_fault *d = &m->f.drive[t][i];

			if (d->fail_ns == NEVER)
				continue;
			rebuild_run(m, t, i, now);
			if (now >= d->rebuild_end_ns && d->pulled_ns == NEVER) {
				d->done_fail_ns = d->fail_ns;
				d->done_end_ns = d->rebuild_end_ns;
				model_drive_reset(m, d);
			}
		}
}

/* Down nodes whose repair is due by @now begin it, when enough nodes are
 * up to hold the layout across nodes (else they wait). */
static void repairs_run(struct model *m, uint64_t now)
{
	unsigned up = 0;

	for (unsigned n = 0; n < m->nodes; n++)
		up += !model_node_down(m, n);
	for (unsigned n = 0; n < m->nodes && m->f.repairs_due; n++)
		if (m->f.repair_at[n] <= now && !m->f.repairing[n] &&
		    up >= profile_node_width(m->p->nodes.raid))
			model_repair_start(m, n);
}

void model_advance(struct model *m, uint64_t now_ns)
{
	if (m->f.repairs_due)
		repairs_run(m, now_ns);
	if (m->f.drives_out)
		drives_run(m, now_ns);
}

uint64_t model_fault_arrive(struct model *m, uint64_t now_ns)
{
	model_advance(m, now_ns);
	if (now_ns >= m->f.stall_from && now_ns < m->f.stall_until)
		return m->f.stall_until;
	return now_ns;
}

/* ---- setting and clearing ------------------------------------------------ */

static int fault_ctl(struct model *m, uint64_t now, unsigned id, bool on,
		     struct model_fault_effect *eff)
{
	struct model_faults *f = &m->f;
	bool serving;

	if (id >= m->nodes * m->p->ctl.count)
		return -EINVAL;
	if (f->ctl_down[id] == on)
		return -EALREADY;
	if (!on) {
		f->ctl_down[id] = false;
		f->ctls_down--;
		f->ctl_serves_ns[id] = now + f->recovery_ns;
		eff->serves_ns = f->ctl_serves_ns[id];
		return 0;
	}
	/* Active-active: every controller serves; otherwise only the
	 * first one up (the standby takes over from it). */
	serving = ctl_serves(m, id, now);
	for (unsigned i = id - id % m->p->ctl.count;
	     i < id && m->p->ctl.ha != PROFILE_HA_ACTIVE_ACTIVE; i++)
		serving &= !ctl_serves(m, i, now);
	f->ctl_down[id] = true;
	f->ctls_down++;
	if (serving && !model_down(m))
		stall(m, now, f->failover_ns, eff);
	return 0;
}

static int fault_path(struct model *m, uint64_t now, unsigned id, bool on,
		      struct model_fault_effect *eff)
{
	struct model_faults *f = &m->f;

	if (id >= model_paths(m))
		return -EINVAL;
	if (f->link_down[id] == on)
		return -EALREADY;
	f->link_down[id] = on;
	f->links_down = on ? f->links_down + 1 : f->links_down - 1;
	if (on && !model_down(m))
		stall(m, now, f->multipath_ns, eff);
	return 0;
}

static void drive_pull(struct model *m, unsigned tier, struct drive_fault *d,
		       uint64_t now, struct model_fault_effect *eff)
{
	const struct profile_tier *pt = &m->p->tier[tier];
	/* raid0 has nothing to rebuild from: its units are simply lost
	 * (unless the other nodes hold them: model_cross_nodes). */
	uint64_t used =
	    pt->raid == PROFILE_RAID0 && !model_cross_nodes(m, tier)
		? 0
		: (uint64_t)((double)pt->capacity_bytes * pt->fill_pct / 100.0);

	d->pulled_ns = now;
	model_rebuild_plan(m, tier, d, now + m->f.detection_ns[tier], used);
	eff->fail_ns = d->fail_ns;
	eff->rebuild_end_ns = d->plan_end_ns;
	eff->rebuild_bytes = used;
}

static int fault_drive(struct model *m, uint64_t now, unsigned tier,
		       unsigned id, bool on, struct model_fault_effect *eff)
{
	struct drive_fault *d = &m->f.drive[tier][id];

	if (m->f.drives_out)
		drives_run(m, now); /* forget finished rebuilds first */
	if (on && d->resync)
		model_drive_reset(m, d); /* its rebuild will copy it all */
	if (!on) {
		if (d->pulled_ns == NEVER)
			return -EALREADY;
		if (now < d->fail_ns) {
			eff->unnoticed = true;
			model_drive_reset(m, d);
			return 0;
		}
		d->pulled_ns = NEVER; /* the rebuild finishes onto spare */
		eff->rebuild_end_ns = d->rebuild_end_ns != NEVER
					  ? d->rebuild_end_ns
					  : d->plan_end_ns;
		return 0;
	}
	if (d->fail_ns != NEVER)
		return -EALREADY;
	drive_pull(m, tier, d, now, eff);
	if (model_may_lose(m, tier, id, now))
		eff->loss = model_loss_record(m, tier, now);
	return 0;
}

static int fault_slow(struct model *m, unsigned tier, unsigned id, bool on,
		      double factor)
{
	struct drive_fault *d = &m->f.drive[tier][id];

	if (on && !(factor > 1.0))
		return -EINVAL;
	if ((d->slow != 1.0) == on)
		return -EALREADY;
	d->slow = on ? factor : 1.0;
	return engine_set_slowdown(m->e, m->drive0[tier] + (int)id, d->slow);
}

/* Node @node down (@was: before the change) or back: its resync stops and
 * its repair is due, or its repair stops and it resyncs once it serves,
 * unless repaired (model_resync.c). */
static void node_change(struct model *m, unsigned node, bool was, uint64_t now,
			struct model_fault_effect *eff)
{
	bool is = model_node_down(m, node);

	if (is && !was) {
		model_resync_stop(m, node, now);
		model_repair_schedule(m, node, now);
	} else if (was && !is && !model_repair_stop(m, node)) {
		model_resync_start(m, node,
				   eff->serves_ns ? eff->serves_ns : now, eff);
	}
}

bool model_fault_current(const struct model *m, const struct model_fault *f,
			 enum model_fault_mark mark, uint64_t key_ns)
{
	const struct model_faults *mf = &m->f;

	switch (mark) {
	case MODEL_MARK_STALL:
		return mf->stall_until == key_ns;
	case MODEL_MARK_SERVES:
		return f->id < m->nodes * m->p->ctl.count &&
		       !mf->ctl_down[f->id] &&
		       mf->ctl_serves_ns[f->id] == key_ns;
	default:
		/* A node back: its resync. */
		if (f->kind == MODEL_FAULT_CONTROLLER ||
		    f->kind == MODEL_FAULT_PATH)
			return model_fault_node(m, f) < m->nodes &&
			       mf->resync_ns[model_fault_node(m, f)] == key_ns;
		return f->tier < PROFILE_TIER_COUNT && mf->drive[f->tier] &&
		       f->id < model_drives(m, f->tier) &&
		       (mf->drive[f->tier][f->id].fail_ns == key_ns ||
			mf->drive[f->tier][f->id].done_fail_ns == key_ns);
	}
}

int model_fault(struct model *m, uint64_t now_ns, const struct model_fault *f,
		bool on, struct model_fault_effect *eff)
{
	bool was_down = model_down(m);
	unsigned node = model_fault_node(m, f);
	bool node_was = node < m->nodes && model_node_down(m, node);
	int rc;

	memset(eff, 0, sizeof(*eff));
	if (f->kind == MODEL_FAULT_CONTROLLER) {
		rc = fault_ctl(m, now_ns, f->id, on, eff);
		eff->serving = m->nodes * m->p->ctl.count - m->f.ctls_down;
	} else if (f->kind == MODEL_FAULT_PATH) {
		rc = fault_path(m, now_ns, f->id, on, eff);
		eff->serving = model_paths(m) - m->f.links_down;
	} else if (f->tier >= PROFILE_TIER_COUNT ||
		   !m->p->tier[f->tier].present) {
		return -ENOTSUP;
	} else if (f->id >= model_drives(m, f->tier)) {
		return -EINVAL;
	} else if (f->kind == MODEL_FAULT_DRIVE) {
		rc = fault_drive(m, now_ns, f->tier, f->id, on, eff);
	} else {
		rc = fault_slow(m, f->tier, f->id, on, f->factor);
	}
	if (!rc && node < m->nodes)
		node_change(m, node, node_was, now_ns, eff);
	eff->down = model_down(m);
	eff->down_changed = eff->down != was_down;
	return rc;
}
