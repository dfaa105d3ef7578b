/* Private to tiers/model*.c: a rebuild's plan, and the resync of what a
 * node of several missed while it was down (model_resync.c). It calls
 * nothing of model_faults.c, which calls it. */
#ifndef ARRAYSIM_TIERS_MODEL_RESYNC_I_H
#define ARRAYSIM_TIERS_MODEL_RESYNC_I_H

#include "tiers/model_i.h"

/* Plan drive @d of @tier to rebuild @bytes from @fail_ns at the tier's
 * rebuild rate, its chunks not yet booked; counts it out. */
void model_rebuild_plan(struct model *m, unsigned tier, struct drive_fault *d,
			uint64_t fail_ns, uint64_t bytes);
/* Forget drive @d's fault and rebuild: in place, healthy. */
void model_drive_reset(struct model *m, struct drive_fault *d);
/* Node @node is back (it serves from @at): resync the writes it missed
 * while down, if any; @eff gets the resync's schedule. */
void model_resync_start(struct model *m, unsigned node, uint64_t at,
			struct model_fault_effect *eff);
/* Node @node is down again at @now: its resync stops, what it had not
 * copied yet is missed again. */
void model_resync_stop(struct model *m, unsigned node, uint64_t now);

/* Node @node is down from @now: its repair is due repair_delay later
 * (object placement over raid0 nodes only). */
void model_repair_schedule(struct model *m, unsigned node, uint64_t now);
/* Begin node @node's repair (due, enough nodes up): its drives of the
 * data tier rebuilt on the other nodes from its repair_at. */
void model_repair_start(struct model *m, unsigned node);
/* Are node @node's components whole on the other nodes (its repair
 * done)? */
bool model_node_repaired(const struct model *m, unsigned node);
/* Node @node is back: its repair stops; whether it had finished (then it
 * has nothing to resync). */
bool model_repair_stop(struct model *m, unsigned node);

#endif
