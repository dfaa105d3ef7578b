/* Private to tiers/model*.c: several nodes (model_nodes.c), the
 * interconnect and where a request's data lives. model.c calls these;
 * they call nothing of model.c. */
#ifndef ARRAYSIM_TIERS_MODEL_NODES_I_H
#define ARRAYSIM_TIERS_MODEL_NODES_I_H

#include "tiers/model_i.h"

/* m->nodes, and with more than one the interconnect's resources and the
 * split's state. 0 or -ENOMEM. */
int model_nodes_init(struct model *m);
void model_nodes_free(struct model *m);
/* The node 4 KiB block @block lives on (fingerprint placement). */
unsigned model_nodes_owner(const struct model *m, uint64_t block);
/* The node operations (.drive: the node; .offset: the logical offset for
 * fingerprint placement, the member's for object placement) a host @op
 * of @len bytes at @off implies, in phases. Valid until the next call. */
const struct raid_plan *model_nodes_split(struct model *m, enum engine_op op,
					  uint64_t off, uint64_t len);
/* A hop of @bytes (0: a message) from node @from to node @to starting at
 * @start: when it has arrived. @start itself when @from == @to. */
uint64_t model_nodes_hop(struct model *m, unsigned from, unsigned to,
			 uint64_t bytes, uint64_t start);

#endif
