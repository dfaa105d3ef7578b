/* Several nodes in the model ([nodes]): the interconnect between them and
 * where a request's data lives.
 *
 * Each node is a copy of the profile's controllers, front-end links and
 * drives (model.c numbers them node by node: node n's controllers are
 * ctl<n x count> on, its drives <tier><n x drives> on). The interconnect
 * is each node's `interconnect_links` ports, one resource per direction
 * (ic<n>.<port>.in / .out); a hop of data from node a to node b holds a's
 * out and b's in at once (cut-through through a switch) and then pays
 * interconnect_latency; a hop with no data (a read's request, a write's
 * acknowledgement) pays the latency alone. Each message costs
 * interconnect_cpu on both ends (model.c books it; 0 for RDMA, where the
 * adapters move the data).
 *
 * Where the data lives, as node operations (struct raid_op with .drive
 * the node), in phases as raid.c gives them:
 *   fingerprint  each 4 KiB block on node hash(block) mod count: the
 *                model has no content, so a hash of the block's address
 *                stands in for its SHA-1 fingerprint (both spread blocks
 *                uniformly); consecutive blocks on one node are one
 *                operation. Protection is inside each node (its tiers'
 *                raid): one phase.
 *   object       the logical space laid out by [nodes] raid as raid.c
 *                lays out a RAID set of width members (none: 1, raid1: 2,
 *                raid5: 4, raid6: 6), each member on its own node:
 *                stripe s's member k on node (s + k) mod count. Rotating
 *                by stripe spreads many objects' components over all the
 *                nodes, as vSAN balances placement (one object alone
 *                would sit on width nodes). A partial-stripe write reads
 *                and writes members on other nodes (read-modify-write).
 */
#include "tiers/model_nodes_i.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/block.h"
#include "tiers/profile_calc.h"

int model_nodes_init(struct model *m)
{
	const struct profile_nodes *n = &m->p->nodes;
	struct engine_resource_conf c = {.slots = 1};
	char name[32];

	m->nodes = n->count > 1 ? n->count : 1;
	if (m->nodes == 1)
		return 0;
	m->hop_ns = model_scale_ns(m, n->net.request_ns);
	m->hop_cpu_ns = model_scale_ns(m, n->hop_cpu_ns);
	m->xplan = malloc(sizeof(*m->xplan));
	if (!m->xplan)
		return -ENOMEM;
	static const enum profile_raid as_raid[] = {
	    [PROFILE_NRAID_NONE] = PROFILE_RAID0,
	    [PROFILE_NRAID_RAID1] = PROFILE_RAID1,
	    [PROFILE_NRAID_RAID5] = PROFILE_RAID5,
	    [PROFILE_NRAID_RAID6] = PROFILE_RAID6,
	};
	m->xtier.raid = as_raid[n->raid];
	m->xtier.drives = m->xtier.stripe_width = profile_node_width(n->raid);
	m->xtier.stripe_unit_bytes = n->stripe_unit_bytes;
	/* Large enough that no offset wraps (raid_plan takes it modulo). */
	m->xtier.capacity_bytes = 1ull << 50;
	c.name = name;
	for (unsigned i = 0; i < m->nodes * n->net.links; i++) {
		uint64_t bw = model_scale_rate(
		    m, (uint64_t)profile_link_bytes_per_s(&n->net, 0));

		c.bandwidth_bytes_per_s[ENGINE_OP_READ] = bw;
		c.bandwidth_bytes_per_s[ENGINE_OP_WRITE] = bw;
		snprintf(name, sizeof(name), "ic%u.%u.in", i / n->net.links,
			 i % n->net.links);
		m->ic_in[i] = engine_add_resource(m->e, &c);
		snprintf(name, sizeof(name), "ic%u.%u.out", i / n->net.links,
			 i % n->net.links);
		m->ic_out[i] = engine_add_resource(m->e, &c);
		if (m->ic_in[i] < 0 || m->ic_out[i] < 0)
			return -ENOMEM;
	}
	return 0;
}

void model_nodes_free(struct model *m)
{
	free(m->xplan);
}

/* splitmix64's finaliser: a well-mixed 64-bit hash of @x. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

unsigned model_nodes_owner(const struct model *m, uint64_t block)
{
	return (unsigned)(mix(block + 1) % m->nodes);
}

static void add_node_op(struct raid_plan *x, unsigned node, enum engine_op op,
			uint64_t off, uint64_t bytes)
{
	struct raid_op *o = &x->ops[x->n++];

	*o = (struct raid_op){
	    .drive = node, .op = op, .offset = off, .bytes = bytes};
	if (op == ENGINE_OP_READ)
		x->reads++;
	else
		x->writes++;
	x->phases = 1;
}

/* Fingerprint placement: runs of blocks on one node. */
static void split_fingerprint(const struct model *m, enum engine_op op,
			      uint64_t off, uint64_t len, struct raid_plan *x)
{
	uint64_t pos = off, end = off + len;

	while (pos < end) {
		unsigned node = model_nodes_owner(m, pos / BLOCK_BYTES);
		uint64_t next = (pos / BLOCK_BYTES + 1) * BLOCK_BYTES;

		while (next < end &&
		       model_nodes_owner(m, next / BLOCK_BYTES) == node)
			next += BLOCK_BYTES;
		if (next > end)
			next = end;
		add_node_op(x, node, op, pos, next - pos);
		pos = next;
	}
}

const struct raid_plan *model_nodes_split(struct model *m, enum engine_op op,
					  uint64_t off, uint64_t len)
{
	struct raid_plan *x = m->xplan;

	memset(x, 0, offsetof(struct raid_plan, ops));
	if (m->p->nodes.placement == PROFILE_PLACE_FINGERPRINT) {
		split_fingerprint(m, op, off, len, x);
		return x;
	}
	if (raid_plan(&m->xtier, op, off, len, x))
		return x;
	for (unsigned k = 0; k < x->n; k++) {
		struct raid_op *o = &x->ops[k];
		uint64_t stripe = o->offset / m->xtier.stripe_unit_bytes;

		o->drive = (unsigned)((stripe + o->drive) % m->nodes);
	}
	return x;
}

/* Node @node's port for a hop, from @port on: the next one up when its
 * network ports are paths that can be lost (model_paths_net), as NIC
 * teaming moves a lost uplink's traffic to the others. */
static unsigned port_up(const struct model *m, unsigned node, unsigned port)
{
	unsigned links = m->p->nodes.net.links;

	for (unsigned k = 0; model_paths_net(m) && k < links; k++)
		if (!m->f.link_down[node * links + (port + k) % links])
			return (port + k) % links;
	return port;
}

uint64_t model_nodes_hop(struct model *m, unsigned from, unsigned to,
			 uint64_t bytes, uint64_t start)
{
	unsigned links = m->p->nodes.net.links, port;
	struct engine_stage st = {.op = ENGINE_OP_WRITE, .bytes = bytes};
	uint64_t end = start, t;

	if (from == to)
		return start;
	if (bytes) {
		/* Through a switch: each end's own port up. */
		port = m->next_ic++ % links;
		st.res = m->ic_out[from * links + port_up(m, from, port)];
		end = engine_submit(m->e, start, &st, 1);
		st.res = m->ic_in[to * links + port_up(m, to, port)];
		t = engine_submit(m->e, start, &st, 1);
		end = t > end ? t : end;
	}
	return end + m->hop_ns;
}
