/* One consistent picture of the array model for observability: per tier
 * (operations, bytes, drive-operation latency, drive states, rebuild),
 * per resource (queueing), controllers, paths and the flash cache, all
 * read under the model's one lock at a single moment.
 *
 * Taken by the threads that publish it (the --metrics scrape thread, the
 * per-second sampler), never by a FUSE worker: the lock is held for one
 * pass over the resources (a few microseconds per hundred drives) and the
 * copy is rendered after it is released.
 */
#ifndef ARRAYSIM_TIERS_ARRAY_SNAPSHOT_H
#define ARRAYSIM_TIERS_ARRAY_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "common/stats.h"
#include "tiers/array.h"
#include "tiers/cache.h"
#include "tiers/model_state.h"

enum array_res_kind { ARRAY_RES_LINK, ARRAY_RES_CTL, ARRAY_RES_DRIVE };

struct array_snap_tier {
	bool present;
	unsigned drives;
	uint64_t ops[ENGINE_OP_COUNT], bytes[ENGINE_OP_COUNT];
	uint64_t queue_ns; /* time queued + in service, over its drives */
	/* Drive-operation times (arrival at the drive to end, queueing
	 * included), over all the tier's drives. */
	struct latency_hist hist;
	unsigned in_state[MODEL_DRIVE_STATES]; /* drives in each state */
	uint64_t rebuild_bytes, rebuild_left;  /* over running rebuilds */
};

struct array_snap_res {
	char name[24]; /* as the model names it: ctl0, link1.in, flash3 */
	enum array_res_kind kind;
	unsigned tier, id;	      /* drives */
	enum model_drive_state state; /* drives */
	unsigned slots, busy_slots;
	uint64_t queue_ns; /* time queued + in service, all operations */
	/* Busy time of its parts (engine_resource_stats): slot-time over
	 * the slots (a controller's busy cores / cores, as seconds), the
	 * ops/s gate's and the wire's. */
	uint64_t busy_ns, gate_ns, wire_ns;
};

/* Replies the host sent later than the model's time (host-bound,
 * tiers/completer.h): since the mount, and over the last 1 s and 10 s. */
struct array_snap_host {
	uint64_t completed, late, late_ns, worst_ns; /* since the mount */
	uint64_t completed_1s, late_1s, worst_1s_ns;
	uint64_t completed_10s, late_10s, worst_10s_ns;
};

struct array_snapshot {
	bool timed; /* false: the null model, nothing else is set */
	struct array_snap_host host;
	bool down;	    /* shut down (model_down) */
	unsigned in_flight; /* array_in_flight */
	uint64_t now_ns;
	struct array_snap_tier tier[PROFILE_TIER_COUNT];
	bool has_cache;
	struct cache_stats cache;
	unsigned nctl, npath;
	bool ctl_up[64], path_up[64];
	/* What a controller's busy_ns is ([controllers] cpu_counter). */
	char cpu_counter[16];
	unsigned nres;
	struct array_snap_res *res; /* nres of them, in engine order */
};

/* Fill @s from @a now. 0, or -ENOMEM (then @s is as for the null model).
 * Free with array_snapshot_free. */
int array_snapshot(struct array *a, struct array_snapshot *s);
void array_snapshot_free(struct array_snapshot *s);
/* A tier's name as in metrics and samples: flash, cache, backing. */
const char *array_tier_name(unsigned tier);
/* A drive state's name: ok, slow, rebuilding, failed. */
const char *array_drive_state_name(enum model_drive_state st);

#endif
