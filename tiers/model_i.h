/* Private to tiers/model.c and tiers/model_faults.c: the model's state,
 * including the faults it runs under. */
#ifndef ARRAYSIM_TIERS_MODEL_I_H
#define ARRAYSIM_TIERS_MODEL_I_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/model.h"
#include "tiers/placement.h"
#include "tiers/raid.h"

#define MODEL_MAX_LINKS 64
#define MODEL_MAX_CTLS 64

/* One drive's fault state. Healthy: fail_ns == UINT64_MAX. */
struct drive_fault {
	uint64_t pulled_ns;	 /* when it went; UINT64_MAX: in place */
	uint64_t fail_ns;	 /* when the array noticed (pulled + window) */
	uint64_t rebuild_end_ns; /* fail_ns + used / rate */
	uint64_t rebuild_next;	 /* next rebuild chunk to book */
	uint64_t rebuild_chunks; /* chunks in all */
	double chunk_ns;	 /* one chunk's share of the rebuild time */
	double slow;		 /* service multiplier, 1: normal */
	uint64_t done_fail_ns;	 /* fail_ns of the last finished rebuild */
};

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
	/* Scaled durations and rates of the profile. */
	uint64_t failover_ns, recovery_ns, multipath_ns;
	uint64_t detection_ns[PROFILE_TIER_COUNT];
	uint64_t rebuild_rate[PROFILE_TIER_COUNT]; /* bytes/s, per drive */
};

struct model {
	const struct profile *p;
	double scale;
	uint64_t seed;
	struct engine *e;
	int link_in[MODEL_MAX_LINKS], link_out[MODEL_MAX_LINKS];
	int ctl[MODEL_MAX_CTLS];
	int drive0[PROFILE_TIER_COUNT]; /* resource id of drive 0 */
	unsigned next_link, next_ctl;	/* round-robin */
	/* Durations of the profile, scaled. */
	uint64_t request_ns, fe_op_ns, be_op_ns, mirror_ns, backlog_ns,
	    dedupe_ns;
	struct raid_plan *plan[2]; /* at most two tiers at once */
	struct model_counts counts;
	struct model_faults f;
};

uint64_t model_scale_ns(const struct model *m, uint64_t ns);
uint64_t model_scale_rate(const struct model *m, uint64_t per_s);

/* ---- hooks of tiers/model_faults.c into the request path ---------------- */

/* Fault state for @m's profile. 0 or -ENOMEM. */
int faults_init(struct model *m);
void faults_fini(struct model *m);
/* Bring the background (rebuilds) up to @now_ns; returns when a request
 * arriving at @now_ns may start (after a stall). */
uint64_t faults_arrive(struct model *m, uint64_t now_ns);
/* The controller that takes a request at @t (round robin over those
 * serving), and when it can start (a recovering one only later). */
unsigned faults_pick_ctl(struct model *m, uint64_t *t);
/* The partner of controller @i for mirroring, or @i when none is up. */
unsigned faults_partner(const struct model *m, unsigned i);
/* The next front-end link that is up. */
unsigned faults_pick_link(struct model *m);
/* Submit one planned operation @o of tier @tier at @from, as a
 * degraded array does (reconstructed from the others when the drive is
 * out); returns its end and counts the operations in @counts. */
uint64_t faults_drive_op(struct model *m, unsigned tier,
			 const struct raid_op *o, uint64_t from,
			 uint64_t *counts);

#endif
