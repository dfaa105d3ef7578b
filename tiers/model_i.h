/* Private to tiers/model*.c: the model's state, including the faults it
 * runs under, and its scaling. Types and inline helpers only: model.c
 * calls into model_faults.c (model_faults_i.h), never the reverse. */
#ifndef ARRAYSIM_TIERS_MODEL_I_H
#define ARRAYSIM_TIERS_MODEL_I_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "tiers/model.h"
#include "tiers/placement.h"
#include "tiers/profile_calc.h"
#include "tiers/raid.h"
#include "tiers/scale.h"

#define MODEL_MAX_LINKS 64
#define MODEL_MAX_CTLS 64

/* At most this many rebuild chunks of one drive in flight: the
 * rebuild's window (model_faults.c uses drives - 1, up to this). */
#define MODEL_REBUILD_WINDOW 64
/* A rebuild copies in chunks of this many bytes. */
#define MODEL_REBUILD_CHUNK (1ull << 20)

/* One drive's fault state. Healthy: fail_ns == UINT64_MAX. */
struct drive_fault {
	uint64_t pulled_ns;   /* when it went; UINT64_MAX: in place */
	uint64_t fail_ns;     /* when the array noticed (pulled + window) */
	uint64_t plan_end_ns; /* fail_ns + used / rate: the soonest end */
	/* When the drives finish its last chunk: UINT64_MAX until that
	 * chunk is booked. */
	uint64_t rebuild_end_ns;
	uint64_t rebuild_next;	 /* chunks booked (from the start) */
	uint64_t rebuild_chunks; /* chunks in all */
	double chunk_ns;	 /* one chunk's share of used / rate */
	uint64_t last_end_ns;	 /* the latest end of a chunk booked */
	/* End of the chunk booked MODEL_REBUILD_WINDOW before (ring). */
	uint64_t win[MODEL_REBUILD_WINDOW];
	uint64_t bytes; /* to copy: the used space, or a resync's share */
	bool resync;	/* copies what its node missed while down */
	bool elsewhere; /* its node down: rebuilt on the other nodes */
	double slow;	/* service multiplier, 1: normal */
	uint64_t done_fail_ns; /* fail_ns of the last finished rebuild */
	uint64_t done_end_ns;  /* ... and when it ended */
};

/* In flight at once for one rebuild of @drives' tier: a chunk of each
 * drive left, 1 to MODEL_REBUILD_WINDOW. */
static inline unsigned model_rebuild_window(unsigned drives)
{
	unsigned w = drives > 1 ? drives - 1 : 1;

	return w > MODEL_REBUILD_WINDOW ? MODEL_REBUILD_WINDOW : w;
}

/* Chunks of @d's rebuild the drives have finished by @t, of those booked
 * (the last @w booked may still be in flight: the ring says). */
static inline uint64_t model_rebuild_done(const struct drive_fault *d,
					  unsigned w, uint64_t t)
{
	uint64_t n = d->rebuild_next;

	if (t >= d->rebuild_end_ns)
		return d->rebuild_chunks;
	for (uint64_t j = 0; j < w && j < d->rebuild_next; j++)
		if (d->win[(d->rebuild_next - 1 - j) % w] > t)
			n--;
	return n;
}

/* A moment failures went beyond a tier's tolerance: each drive's
 * (fail_ns, rebuild_end_ns) then, to tell which stripes it cost. */
struct loss_event {
	unsigned tier;
	uint64_t at;
	uint64_t *fail, *end; /* per drive; fail UINT64_MAX: in place */
};

struct model_faults {
	uint64_t stall_from, stall_until; /* [from, until): I/O waits */
	bool ctl_down[MODEL_MAX_CTLS];
	uint64_t ctl_serves_ns[MODEL_MAX_CTLS]; /* back after recovery */
	unsigned ctls_down;
	bool link_down[MODEL_MAX_LINKS];
	unsigned links_down;
	struct drive_fault *drive[PROFILE_TIER_COUNT]; /* per drive */
	unsigned drives_out; /* pulled or rebuilding */
	struct placement place[PROFILE_TIER_COUNT];
	struct loss_event *loss; /* every loss so far, in order */
	unsigned n_loss;
	/* Several nodes, object placement (model_resync.c): the bytes of
	 * writes each node missed while down, and when its resync of them
	 * began (UINT64_MAX: none). */
	uint64_t missed_bytes[MODEL_MAX_CTLS], resync_ns[MODEL_MAX_CTLS];
	/* A node down: when its components are to be rebuilt on the others
	 * (UINT64_MAX: not down, or no such repair), and whether that
	 * repair has begun. */
	uint64_t repair_at[MODEL_MAX_CTLS];
	bool repairing[MODEL_MAX_CTLS];
	unsigned repairs_due; /* nodes with repair_at set, not begun */
	/* Scaled durations and rates of the profile. */
	uint64_t failover_ns, recovery_ns, multipath_ns, repair_ns;
	uint64_t detection_ns[PROFILE_TIER_COUNT];
	uint64_t rebuild_rate[PROFILE_TIER_COUNT]; /* bytes/s, per drive */
};

struct model {
	const struct profile *p;
	double scale;
	double time_scale; /* fault durations and rebuild rate (> 0) */
	uint64_t seed;
	struct engine *e;
	int link_in[MODEL_MAX_LINKS], link_out[MODEL_MAX_LINKS];
	int ctl[MODEL_MAX_CTLS];
	int drive0[PROFILE_TIER_COUNT]; /* resource id of drive 0 */
	unsigned next_link, next_ctl;	/* round-robin */
	/* Durations of the profile, scaled. */
	uint64_t request_ns, fe_op_ns, be_op_ns, mirror_ns, backlog_ns,
	    dedupe_ns;
	uint64_t dedupe_rate[2]; /* hash, compress: bytes/s per core, scaled */
	struct raid_plan *plan[2]; /* at most two tiers at once */
	struct model_counts counts;
	struct model_faults f;
	/* Nodes (model_nodes.c): 1, or [nodes] count with the interconnect
	 * ports per node (node n's port j at n x links + j), one hop's
	 * latency (scaled), the layout across nodes (object placement) and
	 * the current request's node operations. */
	unsigned nodes;
	int ic_in[MODEL_MAX_LINKS], ic_out[MODEL_MAX_LINKS];
	unsigned next_ic;
	unsigned node_next_ctl[MODEL_MAX_CTLS]; /* back-end work, in turn */
	uint64_t hop_ns, hop_cpu_ns;
	struct profile_tier xtier;
	struct raid_plan *xplan;
};

/* Drives of tier @tier in the whole array: node n's are n x drives on,
 * as the resources and the snapshot number them. */
static inline unsigned model_drives(const struct model *m, unsigned tier)
{
	return m->nodes * m->p->tier[tier].drives;
}

/* Are a node's paths (path faults) its network ports rather than its
 * front-end links? On several nodes with a local front end (vSAN: the VM's
 * virtual disk on its own host, no wire) what a host can lose is its
 * network links (NIC teaming), which carry its traffic to the others. */
static inline bool model_paths_net(const struct model *m)
{
	return m->nodes > 1 && m->p->fe.protocol == PROFILE_PROTO_LOCAL;
}

/* Paths per node: front-end links, or network ports (model_paths_net).
 * Path id g is node g / this, its path g mod this, as the resources
 * (link<g>, ic<node>.<port>) number them; f.link_down[] by that id. */
static inline unsigned model_node_paths(const struct model *m)
{
	return model_paths_net(m) ? m->p->nodes.net.links : m->p->fe.links;
}

/* Path ids run over every node's paths (model_node_paths each). */
static inline unsigned model_paths(const struct model *m)
{
	return m->nodes * model_node_paths(m);
}

/* The node a controller or path fault is on (several nodes), else
 * UINT_MAX: what a node's resync is keyed by. */
static inline unsigned model_fault_node(const struct model *m,
					const struct model_fault *f)
{
	if (m->nodes > 1 && f->kind == MODEL_FAULT_CONTROLLER)
		return f->id / m->p->ctl.count;
	if (m->nodes > 1 && f->kind == MODEL_FAULT_PATH)
		return f->id / model_node_paths(m);
	return UINT_MAX;
}

/* Is the data laid out with redundancy across nodes (object placement
 * with [nodes] raid), so that a node's share can be read from the
 * others? */
static inline bool model_nodes_redundant(const struct model *m)
{
	return m->nodes > 1 && m->p->nodes.placement == PROFILE_PLACE_OBJECT &&
	       m->p->nodes.raid != PROFILE_NRAID_NONE;
}

/* Does tier @tier lean on the redundancy across nodes, having none of
 * its own (vSAN: raid0 inside a host)? Then a lost drive's components
 * are read and rebuilt from the other nodes' members (model_faults.c). */
static inline bool model_cross_nodes(const struct model *m, unsigned tier)
{
	return model_nodes_redundant(m) &&
	       m->p->tier[tier].raid == PROFILE_RAID0;
}

/* Members of a stripe across nodes it survives losing ([nodes] raid). */
static inline unsigned model_node_tolerance(const struct model *m)
{
	static const unsigned tol[] = {[PROFILE_NRAID_NONE] = 0,
				       [PROFILE_NRAID_RAID1] = 1,
				       [PROFILE_NRAID_RAID5] = 1,
				       [PROFILE_NRAID_RAID6] = 2};

	return tol[m->p->nodes.raid];
}

/* Members across nodes that one member's data is read back from: the
 * stripe's data members (raid5: 3, raid6: 4), or the other copy (raid1:
 * 1); [nodes] raid none has no such stripe and is never asked. */
static inline unsigned model_node_sources(const struct model *m)
{
	return profile_node_width(m->p->nodes.raid) - model_node_tolerance(m);
}

/* Chunks of drive @d of @tier rebuilt by @t (its window: the node's
 * drives). */
static inline uint64_t model_drive_done(const struct model *m, unsigned tier,
					const struct drive_fault *d, uint64_t t)
{
	return model_rebuild_done(
	    d, model_rebuild_window(m->p->tier[tier].drives), t);
}

/* A profile's duration, divided by --scale (tiers/scale.h). */
static inline uint64_t model_scale_ns(const struct model *m, uint64_t ns)
{
	return scale_ns(m->scale, ns);
}

/* A fault's duration (failover, recovery, multipath timeout, detection
 * window), divided by --time-scale (by default --scale). */
static inline uint64_t model_fault_ns(const struct model *m, uint64_t ns)
{
	return scale_ns(m->time_scale, ns);
}

/* A profile's rate, times --scale. */
static inline uint64_t model_scale_rate(const struct model *m, uint64_t per_s)
{
	return scale_rate(m->scale, per_s);
}

#endif
