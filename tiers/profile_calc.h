/* Figures derived from a resolved profile (profile_calc.c). */
#ifndef ARRAYSIM_TIERS_PROFILE_CALC_H
#define ARRAYSIM_TIERS_PROFILE_CALC_H

#include "tiers/profile_types.h"

/* Usable bytes of tier @t after RAID (the capacity data can fill). */
uint64_t profile_tier_usable_bytes(const struct profile_tier *t);
/* The tier that holds the data: flash (all-flash), else backing. */
unsigned profile_data_tier(const struct profile *p);
/* One link's data rate in direction @op after protocol overhead. */
double profile_link_bytes_per_s(const struct profile_frontend *fe,
				enum engine_op op);

#endif
