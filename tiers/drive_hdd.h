/* The HDD drive kind's positioning model (drive_hdd.c), for the engine's
 * position_ns hook. */
#ifndef ARRAYSIM_TIERS_DRIVE_HDD_H
#define ARRAYSIM_TIERS_DRIVE_HDD_H

#include <stdint.h>

#include "tiers/engine.h"

/* HDD positioning (struct engine_hdd): @s's service time with the head
 * at *@head_bytes, moving the head. */
uint64_t drive_hdd_position_ns(const struct engine_hdd *h, uint64_t *head_bytes,
			       const struct engine_stage *s);

#endif
