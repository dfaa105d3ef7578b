/* Private to tiers/model*.c: data loss under drive faults (model_loss.c),
 * called by model_faults.c when a drive goes. */
#ifndef ARRAYSIM_TIERS_MODEL_LOSS_I_H
#define ARRAYSIM_TIERS_MODEL_LOSS_I_H

#include "tiers/model_i.h"

/* Is drive @g (array-wide) of @tier out (pulled or rebuilding) at @t? */
bool model_drive_out(const struct model *m, unsigned tier, unsigned g,
		     uint64_t t);
/* Can the drives out of @tier at @t, @g among them, lose data (some
 * stripe has more out than it survives)? */
bool model_may_lose(const struct model *m, unsigned tier, unsigned g,
		    uint64_t t);
/* Record the state of @tier's drives at @t as a loss event; its number
 * (from 1), or 0 without memory (nothing is then reported lost). */
unsigned model_loss_record(struct model *m, unsigned tier, uint64_t t);

#endif
