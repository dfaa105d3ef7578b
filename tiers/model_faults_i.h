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
/* Several nodes: node @node's controller (local number) for work that
 * would go to its @want, the next serving one in turn when that one is
 * not (and when it can start: a recovering one only later). */
unsigned model_fault_node_ctl(const struct model *m, unsigned node,
			      unsigned want, uint64_t *t);
/* The partner of node @node's controller @i (local numbers) for
 * mirroring, or @i when none is up. */
unsigned model_fault_partner(const struct model *m, unsigned node, unsigned i);
/* The next front-end link that is up (several nodes: of all nodes', on
 * a node up). */
unsigned model_fault_pick_link(struct model *m);
/* Several nodes: are node @node's controllers all lost (beyond its
 * mode's tolerance)? Its drives' data is then read from the other
 * nodes' members where [nodes] raid keeps any. */
bool model_node_down(const struct model *m, unsigned node);
/* Submit one planned operation @o of tier @tier on node @node's drive
 * o->drive at @from, as a degraded array does (reconstructed from the
 * others when the drive is out); returns its end and counts the
 * operations in @counts. */
uint64_t model_fault_drive_op(struct model *m, unsigned tier, unsigned node,
			      const struct raid_op *o, uint64_t from,
			      uint64_t *counts);

#endif
