/* The array model: which resources one host I/O passes through, when.
 *
 * Resources (engine, one each):
 *   link<i>.in, link<i>.out   a front-end link per direction (full duplex),
 *                             bandwidth = line rate x (1 - overhead)
 *   ctl<i>                    a controller: `cores` slots, CPU per request
 *   <tier><i>                 a drive: slots, latency, caps, HDD seek
 *   ic<n>.<p>.in, .out        [nodes]: node n's interconnect port p
 * With [nodes], each node has its own links, controllers and drives,
 * numbered on from node 0's, and a request takes submit_nodes() below
 * (tiers/README.md, "Several nodes"); with one node, the path drawn here.
 *
 * One request (times in emulated ns; "||" runs in parallel, the request
 * ends when both sides have):
 *
 *   write  +request_latency ─┬─ link.in: the data ──────────────┐
 *                            ├─ ctl: CPU ──────────┬─ drives ────┴ ack
 *                            └─ [partner: mirror] ─┘
 *   read   +request_latency ─ ctl: CPU ─┬─ drives ──────────┐
 *                                       └─ link.out: data ──┴ done
 *
 * request_latency is one round trip; the protocol (profile_calc.c) adds
 * iSCSI's PDU headers to the wire and its initiator and R2T round trips
 * to the request.
 *
 * CPU per request = frontend_op_cost + drive ops x backend_op_cost
 * (+ when dedupe is on, per write: cpu_cost per 4 KiB, and its bytes
 * at hash_rate, and with compression on the bytes of the blocks dedupe did
 * not find at compress_rate, each a rate of one core, cut into 4 KiB
 * chunks that the controller's cores take in parallel, the first with
 * the rest of the request's work (model_cpu.c; tiers/README.md, "Dedupe's
 * CPU"); with after_ack and a write cache, that part runs after the ack;
 * with reduce_at = destage, none of it: model_destage_reduced books it
 * on the holding node's controller as each block leaves the cache).
 * Transfers are cut-through: data streams between wire and drives, so a
 * large I/O costs the slower of the two, not their sum; except that with
 * write_staging a write is received whole before its back-end work
 * starts: the front-end work (the protocol stack taking the request in)
 * runs while the data arrives, the RAID and drive work only after.
 *
 * Which drives (RAID expansion in raid.c):
 *   all-flash     the flash tier
 *   hybrid read   hit: the cache tier; miss: the backing tier, then (if
 *                 promote_on_read_miss) a background write to the cache
 *   hybrid write  write-back: cache tier; write-through: both tiers;
 *                 write-around: backing tier
 *
 * With a controller write cache a write is acknowledged once in RAM
 * (and, mirrored, in the partner's): its drive operations run in the
 * background from then on, competing with later I/O, and a write waits
 * only when the drives lag more than write_backlog behind.
 *
 * --scale F: every duration is divided by F and every rate multiplied by
 * it, so the whole array runs F times as fast (or, below 1, as slow).
 *
 * Faults (model_faults.c) hook in at four points: an arrival waits out a
 * stall, the controller and link are picked among those up, and each
 * drive operation of a lost drive is reconstructed from the others; on
 * several nodes, a node with no controller left has its reads read from
 * the other nodes (node_op_down).
 */
#include "tiers/model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/block.h"
#include "tiers/drive.h"
#include "tiers/model_cpu_i.h"
#include "tiers/model_faults_i.h"
#include "tiers/model_i.h"
#include "tiers/model_nodes_i.h"
#include "tiers/model_resync_i.h"
#include "tiers/profile_calc.h"
#include "tiers/raid.h"

/* ---- scaling ------------------------------------------------------------ */

static struct engine_dist scale_dist(const struct model *m,
				     const struct engine_dist *d)
{
	struct engine_dist out = *d;

	out.fixed_ns = model_scale_ns(m, d->fixed_ns);
	for (unsigned i = 0; i < d->n_points; i++)
		out.points[i].ns = model_scale_ns(m, d->points[i].ns);
	return out;
}

/* ---- building ----------------------------------------------------------- */

static int add_links(struct model *m)
{
	const struct profile_frontend *fe = &m->p->fe;
	struct engine_resource_conf c = {.slots = 1};
	char name[32];

	c.name = name;
	for (unsigned i = 0; i < m->nodes * fe->links; i++) {
		for (int op = 0; op < ENGINE_OP_COUNT; op++) {
			uint64_t bw = model_scale_rate(
			    m, (uint64_t)profile_link_bytes_per_s(fe, op));
			int *ids =
			    op == ENGINE_OP_READ ? m->link_out : m->link_in;

			c.bandwidth_bytes_per_s[ENGINE_OP_READ] = bw;
			c.bandwidth_bytes_per_s[ENGINE_OP_WRITE] = bw;
			snprintf(name, sizeof(name), "link%u.%s", i,
				 op == ENGINE_OP_READ ? "out" : "in");
			ids[i] = engine_add_resource(m->e, &c);
			if (ids[i] < 0)
				return ids[i];
		}
	}
	return 0;
}

/* A controller: cores x threads_per_core slots, the threads of a core
 * sharing it by smt_yield (engine.h, struct engine_resource_conf;
 * tiers/README.md, "CPU figures"). */
static int add_controllers(struct model *m)
{
	const struct profile_controllers *p = &m->p->ctl;
	struct engine_resource_conf c = {.slots =
					     p->cores * p->threads_per_core,
					 .threads = p->threads_per_core,
					 .smt_yield = p->smt_yield};
	char name[32];

	c.name = name;
	for (unsigned i = 0; i < m->nodes * m->p->ctl.count; i++) {
		snprintf(name, sizeof(name), "ctl%u", i);
		m->ctl[i] = engine_add_resource(m->e, &c);
		if (m->ctl[i] < 0)
			return m->ctl[i];
	}
	return 0;
}

/* A drive of tier @t as an engine resource configuration. */
static struct engine_resource_conf drive_conf(const struct model *m,
					      const struct profile_tier *t)
{
	struct engine_resource_conf c = {.slots = t->slots};

	for (int op = 0; op < ENGINE_OP_COUNT; op++) {
		c.service[op] = scale_dist(m, &t->latency[op]);
		c.bandwidth_bytes_per_s[op] =
		    model_scale_rate(m, t->bandwidth_bytes_per_s[op]);
		c.max_ops_per_s[op] = model_scale_rate(m, t->iops[op]);
		c.gate_bytes_per_s[op] =
		    model_scale_rate(m, t->media_bytes_per_s[op]);
	}
	drive_ops_of(t->kind)->engine_conf(t, m->scale, &c);
	return c;
}

static int add_drives(struct model *m)
{
	for (unsigned tier = 0; tier < PROFILE_TIER_COUNT; tier++) {
		const struct profile_tier *t = &m->p->tier[tier];
		struct engine_resource_conf c;
		static const char *const names[] = {"flash", "cache",
						    "backing"};
		char name[32];

		m->drive0[tier] = -1;
		if (!t->present)
			continue;
		c = drive_conf(m, t);
		c.name = name;
		/* Node by node: node n's drive i is drive n x drives + i. */
		for (unsigned i = 0; i < m->nodes * t->drives; i++) {
			int id;

			snprintf(name, sizeof(name), "%s%u", names[tier], i);
			id = engine_add_resource(m->e, &c);
			if (id < 0)
				return id;
			if (i == 0)
				m->drive0[tier] = id;
		}
	}
	return 0;
}

int model_new(const struct profile *p, double scale, uint64_t seed,
	      struct model **out)
{
	return model_new_timed(p, scale, scale, seed, out);
}

int model_new_timed(const struct profile *p, double scale, double time_scale,
		    uint64_t seed, struct model **out)
{
	unsigned nodes = p->nodes.count > 1 ? p->nodes.count : 1;
	struct model *m;
	int rc;

	*out = NULL;
	if (p->model != PROFILE_MODEL_TIMED || !(scale > 0.0) ||
	    !(time_scale > 0.0) || nodes * p->fe.links > MODEL_MAX_LINKS ||
	    nodes * p->ctl.count > MODEL_MAX_CTLS ||
	    (nodes > 1 && nodes * p->nodes.net.links > MODEL_MAX_LINKS))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->p = p;
	m->nodes = nodes;
	m->scale = scale;
	m->time_scale = time_scale;
	m->seed = seed;
	m->plan[0] = malloc(sizeof(*m->plan[0]));
	m->plan[1] = malloc(sizeof(*m->plan[1]));
	rc = engine_new(seed, &m->e);
	if (!rc && (!m->plan[0] || !m->plan[1]))
		rc = -ENOMEM;
	if (!rc)
		rc = add_links(m);
	if (!rc)
		rc = add_controllers(m);
	if (!rc)
		rc = add_drives(m);
	if (!rc)
		rc = model_nodes_init(m);
	if (!rc)
		rc = model_fault_init(m);
	if (rc) {
		model_free(m);
		return rc;
	}
	m->request_ns = model_scale_ns(m, p->fe.request_ns);
	m->fe_op_ns = model_scale_ns(m, p->ctl.frontend_op_ns);
	m->be_op_ns = model_scale_ns(m, p->ctl.backend_op_ns);
	m->mirror_ns = model_scale_ns(m, p->ctl.mirror_ns);
	m->backlog_ns = model_scale_ns(m, p->ctl.write_backlog_ns);
	m->dedupe_ns =
	    p->dedupe.enabled ? model_scale_ns(m, p->dedupe.cpu_ns) : 0;
	if (p->dedupe.enabled) {
		m->dedupe_rate[0] =
		    model_scale_rate(m, p->dedupe.hash_bytes_per_s);
		if (p->dedupe.compression != PROFILE_COMPRESS_NONE)
			m->dedupe_rate[1] =
			    model_scale_rate(m, p->dedupe.compress_bytes_per_s);
	}
	*out = m;
	return 0;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	model_fault_fini(m);
	model_nodes_free(m);
	engine_free(m->e);
	free(m->plan[0]);
	free(m->plan[1]);
	free(m);
}

/* ---- one request --------------------------------------------------------- */

/* The drive work of one request: up to two tier plans, on one node. */
struct work {
	int tier[2]; /* -1: none */
	unsigned n;
	unsigned ops;  /* drive operations in all plans */
	unsigned node; /* whose drives */
};

static void work_add(struct model *m, struct work *w, int tier,
		     enum engine_op op, uint64_t off, uint64_t len)
{
	struct raid_plan *plan = m->plan[w->n];

	/* The cache tier is addressed by cache slot, not logical offset. */
	if (tier == PROFILE_TIER_CACHE)
		off %= m->p->cache.size_bytes;
	if (raid_plan(&m->p->tier[tier], op, off, len, plan))
		return;
	w->tier[w->n++] = tier;
	w->ops += plan->n;
}

/* Run plan @i of @w from @start; its end time. Phases in order, each
 * phase's operations in parallel. */
static uint64_t run_plan(struct model *m, const struct work *w, unsigned i,
			 uint64_t start, uint64_t *counts)
{
	const struct raid_plan *plan = m->plan[i];
	uint64_t end = start;

	for (unsigned phase = 0; phase < plan->phases; phase++) {
		uint64_t from = end;

		for (unsigned k = 0; k < plan->n; k++) {
			const struct raid_op *o = &plan->ops[k];
			uint64_t t;

			if (o->phase != phase)
				continue;
			t = model_fault_drive_op(m, (unsigned)w->tier[i],
						 w->node, o, from, counts);
			end = t > end ? t : end;
		}
	}
	return end;
}

static uint64_t run_work(struct model *m, const struct work *w, uint64_t start,
			 uint64_t *counts)
{
	uint64_t end = start;

	for (unsigned i = 0; i < w->n; i++) {
		uint64_t t = run_plan(m, w, i, start, counts);

		end = t > end ? t : end;
	}
	return end;
}

/* The drive work a host I/O implies, by layout and cache policy. */
static void plan_io(struct model *m, const struct model_io *io, struct work *w)
{
	const struct profile *p = m->p;
	bool hybrid = p->tier[PROFILE_TIER_CACHE].present;
	enum profile_policy pol = p->cache.policy;
	uint64_t blocks = (io->length + BLOCK_BYTES - 1) / BLOCK_BYTES;

	w->n = w->ops = 0;
	/* All references: metadata only (at destage, the cache tier takes
	 * the whole write and the destager reduces it). */
	if (io->op == ENGINE_OP_WRITE && p->dedupe.enabled &&
	    io->blocks_deduped >= blocks && !model_reduce_at_destage(m))
		return;
	if (!hybrid) {
		work_add(m, w, PROFILE_TIER_FLASH, io->op, io->offset,
			 io->length);
		return;
	}
	if (io->op == ENGINE_OP_READ) {
		work_add(m, w,
			 io->cache_hit ? PROFILE_TIER_CACHE
				       : PROFILE_TIER_BACKING,
			 io->op, io->offset, io->length);
		return;
	}
	if (pol != PROFILE_POLICY_WRITE_AROUND)
		work_add(m, w, PROFILE_TIER_CACHE, io->op, io->offset,
			 io->length);
	if (pol != PROFILE_POLICY_WRITE_BACK)
		work_add(m, w, PROFILE_TIER_BACKING, io->op, io->offset,
			 io->length);
}

/* The CPU work one controller does for a request: on one node, @front
 * (the front-end work and dedupe: the controller that takes the request),
 * the back-end work of @ops drive operations, and @mirror (a mirrored
 * write's copy on the partner). One node does all of it. */
struct ctl_work {
	unsigned node, ops;
	bool front, mirror;
	unsigned link; /* several nodes, @front: the node's link it came on */
	uint64_t extra_ns; /* several nodes: interconnect messages' CPU */
};

/* Which of node @cw->node's controllers works (several nodes): the one
 * whose port took the request (ports are spread over the controllers in
 * turn), and for back-end work each in turn; active-standby, the first;
 * the next serving one when that one is lost (from @t: a recovering one
 * only later). */
static unsigned node_ctl(struct model *m, const struct ctl_work *cw,
			 uint64_t *t)
{
	unsigned n = m->p->ctl.count, want = 0;

	if (m->p->ctl.ha == PROFILE_HA_ACTIVE_ACTIVE)
		want =
		    cw->front ? cw->link % n : m->node_next_ctl[cw->node]++ % n;
	return model_fault_node_ctl(m, cw->node, want, t);
}

/* CPU, on a controller of @cw->node (and its partner for a mirrored
 * write); returns when the controllers are done. @whole: when a staged
 * write's data is all in (0: not staged), before which only the front-end
 * work can run. A write's dedupe work is per chunk: the first chunk's
 * with the request's own work, each further chunk on the core free
 * first from when that work may start (a request of one block: one
 * stage, as ever).
 */
static uint64_t run_controller(struct model *m, const struct model_io *io,
			       const struct ctl_work *cw, uint64_t start,
			       uint64_t whole)
{
	const struct profile_controllers *c = &m->p->ctl;
	unsigned local = m->nodes > 1 ? node_ctl(m, cw, &start)
				      : model_fault_pick_ctl(m, &start);
	unsigned partner;
	unsigned i = cw->node * c->count + local;
	struct engine_stage st = {.res = m->ctl[i], .op = io->op};
	uint64_t t = start, back = cw->ops * m->be_op_ns + cw->extra_ns;
	uint64_t after = 0, d = 0, chunks = model_dedupe_chunks(io),
		 from = start;

	if (io->op == ENGINE_OP_WRITE && cw->front) {
		d = model_dedupe_cpu_ns(m, io);
		if (m->p->dedupe.after_ack &&
		    c->write_cache != PROFILE_WCACHE_NONE) {
			after = d;
			d = 0;
		} else {
			back += model_chunk_ns(d, chunks, 0);
		}
	}
	st.work_ns = (cw->front ? m->fe_op_ns : 0) + (whole ? 0 : back);
	if (cw->front || st.work_ns)
		t = engine_submit(m->e, start, &st, 1);
	if (whole) {
		from = whole > t ? whole : t;
		st.work_ns = back;
		t = engine_submit(m->e, from, &st, 1);
	}
	if (d) {
		uint64_t e = model_run_chunks(m, m->ctl[i], from, d, chunks, 1);

		t = e > t ? e : t;
	}
	partner = model_fault_partner(m, cw->node, local);
	if (cw->mirror && io->op == ENGINE_OP_WRITE &&
	    c->write_cache == PROFILE_WCACHE_MIRRORED && partner != local) {
		/* The partner copies the data as it arrives, alongside the
		 * owner's work (booked at the same arrival, so the engine
		 * sees controller bookings in time order). */
		uint64_t mirrored;

		st.res = m->ctl[cw->node * c->count + partner];
		st.work_ns = m->mirror_ns;
		mirrored = engine_submit(m->e, start, &st, 1);
		t = mirrored > t ? mirrored : t;
	}
	/* Dedupe on the way from the write cache to the drives: the owner's
	 * cores, after the ack. */
	if (after)
		model_run_chunks(m, m->ctl[i], t, after, chunks, 0);
	return t;
}

/* The data on the wire, alongside the rest (cut-through). */
static uint64_t run_link(struct model *m, const struct model_io *io,
			 unsigned link, uint64_t start)
{
	struct engine_stage st = {
	    .res = io->op == ENGINE_OP_WRITE ? m->link_in[link]
					     : m->link_out[link],
	    .op = io->op,
	    .bytes = profile_wire_bytes(&m->p->fe, io->length),
	};

	return engine_submit(m->e, start, &st, 1);
}

/* The drives' part of @io once its controller work ends at @t (@wire:
 * when its data is through the front end): with a write cache, the ack,
 * the drive work in the background within write_backlog; else the drive
 * work, and a hybrid's promotion of a read miss after it. */
static uint64_t run_drives(struct model *m, const struct model_io *io,
			   struct work *w, uint64_t t, uint64_t wire)
{
	uint64_t end, bg;

	if (io->op == ENGINE_OP_WRITE &&
	    m->p->ctl.write_cache != PROFILE_WCACHE_NONE) {
		end = t > wire ? t : wire;
		bg = run_work(m, w, end, m->counts.background_ops);
		/* The write cache holds write_backlog of drive work. */
		if (bg > m->backlog_ns && bg - m->backlog_ns > end)
			end = bg - m->backlog_ns;
		return end;
	}
	end = run_work(m, w, t, m->counts.drive_ops);
	end = end > wire ? end : wire;
	if (io->op == ENGINE_OP_READ && !io->cache_hit &&
	    m->p->tier[PROFILE_TIER_CACHE].present &&
	    m->p->cache.promote_on_read_miss) {
		w->n = w->ops = 0;
		work_add(m, w, PROFILE_TIER_CACHE, ENGINE_OP_WRITE, io->offset,
			 io->length);
		run_work(m, w, end, m->counts.background_ops);
	}
	return end;
}

/* Node operation @o of @io (tiers/model_nodes.c), asked for by node @a at
 * @from: the hop there (with a write's data), the node's back-end CPU and
 * mirror, its drives, the hop back (with a read's data). When @a has the
 * answer. */
static uint64_t node_op(struct model *m, const struct model_io *io, unsigned a,
			const struct raid_op *o, uint64_t arrival,
			uint64_t from)
{
	bool write = o->op == ENGINE_OP_WRITE;
	struct model_io sub = *io;
	struct work w = {.node = o->drive};
	uint64_t blocks = (io->length + BLOCK_BYTES - 1) / BLOCK_BYTES, t, cpu;
	uint64_t idle, extra;

	sub.op = o->op;
	sub.offset = o->offset;
	sub.length = o->bytes;
	/* All deduped or none: the model's rule for a whole request. */
	sub.blocks_deduped =
	    io->blocks_deduped >= blocks
		? (uint32_t)((o->bytes + BLOCK_BYTES - 1) / BLOCK_BYTES)
		: 0;
	plan_io(m, &sub, &w);
	t = model_nodes_hop(m, a, o->drive, write ? o->bytes : 0, from);
	/* Remote: the request's message in, the answer's out. */
	extra = a != o->drive ? 2 * m->hop_cpu_ns : 0;
	/* The node's CPU is booked at the request's arrival, in submission
	 * order as the engine grants (booked at @t, ahead of later
	 * arrivals, it leaves gaps before it no core fills); it counts from
	 * when the data is there, @t, so an idle node takes as long as if it
	 * had started then. */
	cpu = run_controller(m, &sub,
			     &(struct ctl_work){.node = o->drive,
						.ops = w.ops,
						.mirror = true,
						.extra_ns = extra},
			     arrival, 0);
	idle = w.ops * m->be_op_ns + extra;
	if (write && m->p->ctl.write_cache == PROFILE_WCACHE_MIRRORED &&
	    m->mirror_ns > idle)
		idle = m->mirror_ns;
	t += idle;
	t = run_drives(m, &sub, &w, cpu > t ? cpu : t, 0);
	return model_nodes_hop(m, o->drive, a, write ? 0 : o->bytes, t);
}

/* Node operation @o of @io whose node is down (its controllers lost;
 * [nodes] raid keeps the array up): a read reads as much from as many
 * other nodes up as the layout needs (raid6: 4, raid5: 3, raid1: 1), each
 * a node operation of its own, the next nodes up in turn (the stripe's
 * own members cost the same: model_nodes.c rotates stripes over all
 * nodes); a write is left to the members up (parity or the copy carry
 * it), the node resyncing its bytes when back (model_resync.c). */
static uint64_t node_op_down(struct model *m, const struct model_io *io,
			     unsigned a, const struct raid_op *o,
			     uint64_t arrival, uint64_t from)
{
	/* Repaired on the others: one copy, no reconstruction. */
	unsigned need =
	    model_node_repaired(m, o->drive) ? 1 : model_node_sources(m);
	struct raid_op r = *o;
	uint64_t end = from;

	if (o->op == ENGINE_OP_WRITE) {
		m->f.missed_bytes[o->drive] += o->bytes;
		return from;
	}
	for (unsigned k = 1; k < m->nodes && need; k++) {
		uint64_t t;

		r.drive = (o->drive + k) % m->nodes;
		if (model_node_down(m, r.drive))
			continue;
		t = node_op(m, io, a, &r, arrival, from);
		end = t > end ? t : end;
		need--;
	}
	return end;
}

/* @io on several nodes: node @a takes it on front-end link @link (the
 * front-end work and dedupe on one of its controllers), then the node
 * operations its placement implies, phase after phase; the data on the
 * front-end link alongside (cut-through). */
static uint64_t submit_nodes(struct model *m, const struct model_io *io,
			     unsigned link, uint64_t t)
{
	unsigned a = link / m->p->fe.links;
	bool write = io->op == ENGINE_OP_WRITE;
	bool staged = m->p->fe.write_staging && write;
	uint64_t wire = write ? run_link(m, io, link, t) : 0, end, arrival = t;
	const struct raid_plan *x =
	    model_nodes_split(m, io->op, io->offset, io->length);
	struct ctl_work cw = {
	    .node = a, .front = true, .link = link % m->p->fe.links};

	/* Its messages to and from other nodes, two each, with the rest of
	 * the taking node's work. */
	for (unsigned k = 0; k < x->n; k++)
		cw.extra_ns += x->ops[k].drive != a ? 2 * m->hop_cpu_ns : 0;
	t = run_controller(m, io, &cw, t, staged ? wire : 0);
	if (!write)
		wire = run_link(m, io, link, t);
	end = t;
	for (unsigned phase = 0; phase < x->phases; phase++) {
		uint64_t from = end;

		for (unsigned k = 0; k < x->n; k++)
			if (x->ops[k].phase == phase) {
				const struct raid_op *o = &x->ops[k];
				uint64_t e =
				    model_node_down(m, o->drive)
					? node_op_down(m, io, a, o, arrival,
						       from)
					: node_op(m, io, a, o, arrival, from);

				end = e > end ? e : end;
			}
	}
	return end > wire ? end : wire;
}

uint64_t model_submit(struct model *m, uint64_t now_ns,
		      const struct model_io *io)
{
	unsigned link;
	uint64_t t, wire;
	struct work w = {.n = 0};
	struct ctl_work cw = {.front = true, .mirror = true};

	if (io->length == 0 || io->length > RAID_IO_MAX)
		return now_ns;
	/* A stall (failover, path loss) holds the request at the door. */
	now_ns = model_fault_arrive(m, now_ns);
	link = model_fault_pick_link(m);
	/* A replicated write (a replica's, tiers/model_repl.c) comes in over
	 * the replication link: no front end. */
	bool front = !io->replicated;
	t = !front ? now_ns
		   : now_ns + m->request_ns +
			 model_scale_ns(m, profile_protocol_ns(
					       &m->p->fe, io->op, io->length));
	if (m->nodes > 1)
		return submit_nodes(m, io, link, t);
	plan_io(m, io, &w);
	/* A write's data arrives before the controller works on it; a
	 * read's leaves once the controller has sent it to the drives. */
	bool write = io->op == ENGINE_OP_WRITE;
	wire = write && front ? run_link(m, io, link, t) : 0;
	cw.ops = w.ops;
	t = run_controller(m, io, &cw, t,
			   m->p->fe.write_staging && write && front ? wire : 0);
	if (!write && front)
		wire = run_link(m, io, link, t);
	return run_drives(m, io, &w, t, wire);
}

/* Reduction at destage on node @node: what to do with @length bytes of
 * which reduction keeps @kept per 4 KiB (0: a dedupe hit). */
struct reduce {
	bool on;
	uint32_t kept;
};

/* The reduction work of @length bytes on one of node @node's controllers
 * from @t, as model_dedupe_cpu_ns charges it on a write: the lookup, the
 * fingerprint, and the compression unless dedupe found the block. It
 * queues with the foreground's work on the same cores. */
static uint64_t destage_cpu(struct model *m, unsigned node, uint64_t t,
			    uint64_t length, const struct reduce *r)
{
	struct ctl_work cw = {.node = node};
	unsigned local =
	    m->nodes > 1 ? node_ctl(m, &cw, &t) : model_fault_pick_ctl(m, &t);
	struct engine_stage st = {.res = m->ctl[node * m->p->ctl.count + local],
				  .op = ENGINE_OP_WRITE};

	st.work_ns = (length + BLOCK_BYTES - 1) / BLOCK_BYTES * m->dedupe_ns +
		     model_rate_ns(length, m->dedupe_rate[0]) +
		     (r->kept ? model_rate_ns(length, m->dedupe_rate[1]) : 0);
	m->counts.reduce_cpu_ns += st.work_ns;
	return engine_submit(m->e, t, &st, 1);
}

/* Destage @length bytes at @offset of node @node's cache tier: read them,
 * reduce them when @r->on, write what is left to the backing tier
 * (compressed data in whole 512-byte sectors). */
static uint64_t destage_on(struct model *m, unsigned node, uint64_t now_ns,
			   uint64_t offset, uint64_t length,
			   const struct reduce *r)
{
	struct work w = {.node = node};
	uint64_t t = now_ns, out = length;

	if (m->p->cache.destage_from == PROFILE_DESTAGE_CACHE) {
		work_add(m, &w, PROFILE_TIER_CACHE, ENGINE_OP_READ, offset,
			 length);
		t = run_work(m, &w, now_ns, m->counts.background_ops);
	}
	if (r->on) {
		t = destage_cpu(m, node, t, length, r);
		out = (length * r->kept / BLOCK_BYTES + 511) / 512 * 512;
		m->counts.reduce_kept_bytes += out;
		if (!out)
			return t; /* a dedupe hit: metadata only */
	}
	w.n = w.ops = 0;
	work_add(m, &w, PROFILE_TIER_BACKING, ENGINE_OP_WRITE, offset, out);
	return run_work(m, &w, t, m->counts.background_ops);
}

static uint64_t destage(struct model *m, uint64_t now_ns, uint64_t offset,
			uint64_t length, const struct reduce *r)
{
	const struct raid_plan *x;
	uint64_t end;

	if (!m->p->tier[PROFILE_TIER_CACHE].present || length == 0 ||
	    length > RAID_IO_MAX)
		return now_ns;
	now_ns = model_fault_arrive(m, now_ns);
	if (m->nodes == 1)
		return destage_on(m, 0, now_ns, offset, length, r);
	/* Each node that a write of these bytes wrote destages its part. */
	x = model_nodes_split(m, ENGINE_OP_WRITE, offset, length);
	end = now_ns;
	for (unsigned k = 0; k < x->n; k++) {
		const struct raid_op *o = &x->ops[k];
		uint64_t t;

		/* A node down took no write (node_op_down). */
		if (o->op != ENGINE_OP_WRITE || model_node_down(m, o->drive))
			continue;
		t = destage_on(m, o->drive, now_ns, o->offset, o->bytes, r);
		end = t > end ? t : end;
	}
	return end;
}

uint64_t model_destage(struct model *m, uint64_t now_ns, uint64_t offset,
		       uint64_t length)
{
	return destage(m, now_ns, offset, length, &(struct reduce){0});
}

uint64_t model_destage_reduced(struct model *m, uint64_t now_ns,
			       uint64_t offset, uint32_t kept)
{
	struct reduce r = {.on = model_reduce_at_destage(m),
			   .kept = kept < BLOCK_BYTES ? kept : BLOCK_BYTES};

	return destage(m, now_ns, offset, BLOCK_BYTES, &r);
}

void model_counts(const struct model *m, struct model_counts *c)
{
	*c = m->counts;
}

const struct engine *model_engine(const struct model *m)
{
	return m->e;
}
