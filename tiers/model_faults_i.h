/* Private to tiers/model*.c: where the faults of tiers/model_faults.c
 * hook into the request path. */
#ifndef ARRAYSIM_TIERS_MODEL_FAULTS_I_H
#define ARRAYSIM_TIERS_MODEL_FAULTS_I_H

#include "tiers/model_i.h"

/* Fault state for @m's profile. 0 or -ENOMEM. */
int model_fault_init(struct model *m);
void model_fault_fini(struct model *m);
/* Bring the background (rebuilds) up to @now_ns; returns when a request
 * arriving at @now_ns may start (after a stall). */
uint64_t model_fault_arrive(struct model *m, uint64_t now_ns);
/* The controller that takes a request at @t (round robin over those
 * serving), and when it can start (a recovering one only later). */
unsigned model_fault_pick_ctl(struct model *m, uint64_t *t);
/* The partner of controller @i for mirroring, or @i when none is up. */
unsigned model_fault_partner(const struct model *m, unsigned i);
/* The next front-end link that is up. */
unsigned model_fault_pick_link(struct model *m);
/* Submit one planned operation @o of tier @tier on node @node's drive
 * o->drive at @from, as a degraded array does (reconstructed from the
 * others when the drive is out); returns its end and counts the
 * operations in @counts. */
uint64_t model_fault_drive_op(struct model *m, unsigned tier, unsigned node,
			      const struct raid_op *o, uint64_t from,
			      uint64_t *counts);

#endif
