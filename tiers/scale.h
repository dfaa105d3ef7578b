/* --scale F: every duration of a profile divided by F, every rate
 * multiplied by it, rounded to the nearest integer. */
#ifndef ARRAYSIM_TIERS_SCALE_H
#define ARRAYSIM_TIERS_SCALE_H

#include <stdint.h>

static inline uint64_t scale_ns(double scale, uint64_t ns)
{
	return (uint64_t)((double)ns / scale + 0.5);
}

static inline uint64_t scale_rate(double scale, uint64_t per_s)
{
	return (uint64_t)((double)per_s * scale + 0.5);
}

#endif
