/* Figures derived from a resolved profile: its data tier, a tier's usable
 * capacity by RAID level, a link's payload rate. Pure functions of
 * struct profile, used by the checks, the RAID expansion, the model and
 * `profile show` alike; they call nothing else of tiers/.
 */
#include "tiers/profile_calc.h"

unsigned profile_data_tier(const struct profile *p)
{
	return p->tier[PROFILE_TIER_FLASH].present ? PROFILE_TIER_FLASH
						   : PROFILE_TIER_BACKING;
}

uint64_t profile_tier_usable_bytes(const struct profile_tier *t)
{
	uint64_t sets = t->stripe_width ? t->drives / t->stripe_width : 0;

	switch (t->raid) {
	case PROFILE_RAID0:
		return t->capacity_bytes * t->drives;
	case PROFILE_RAID1:
		return t->capacity_bytes;
	case PROFILE_RAID10:
		return t->capacity_bytes * (t->drives / 2);
	case PROFILE_RAID5:
		return t->capacity_bytes * sets * (t->stripe_width - 1);
	case PROFILE_RAID6:
		return t->capacity_bytes * sets * (t->stripe_width - 2);
	}
	return 0;
}

double profile_link_bytes_per_s(const struct profile_frontend *fe,
				enum engine_op op)
{
	return (double)fe->line_bytes_per_s *
	       (1.0 - fe->overhead_pct[op] / 100.0);
}
