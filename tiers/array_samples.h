/* The array model's members of a per-second sample (common/samples.h),
 * from one array_snapshot taken on the sampler's thread (timed profiles
 * only; nothing for the null model):
 *
 *   "tier_<tier>_iops", "tier_<tier>_mbps"   drive operations and MB/s of
 *                                            the tier in the interval
 *   "tier_<tier>_p50_us", "tier_<tier>_p99_us"  their times (arrival at
 *                                            the drive to end)
 *   "tier_<tier>_qd"                         mean queue depth (Little)
 *   "ctl_busy_pct"      the controllers' CPU in the interval by the
 *                       profile's cpu_counter (without hyper-threading
 *                       busy cores / cores), averaged over them
 *   "ctl_busy_max_pct"  the busiest controller's (on a cluster, of any
 *                       node): an average hides one saturated node
 *   "ctl_cpu_counter"   which counter: "usage", "core", "utilization"
 *   "cache_hit_ratio"   the interval's read lookups that hit the flash
 *                       cache (hybrids; absent when there were none)
 *   "rebuild_ratio"     share of running rebuilds done, 1 when none
 *   "rebuild_left_bytes", "drives_failed", "drives_rebuilding",
 *   "drives_slow", "ctls_down", "paths_down", "array_up" (0 or 1)
 *   "host_late_share"   the interval's replies the host sent late
 *                       (tiers/completer.h), 0 when none
 *   "host_worst_late_ms"  the most a reply of the last second went out
 *                       after its modelled time
 *   "host_replies", "host_late"  the interval's timed replies, and of
 *                       them those sent late: a run's share is the sums'
 *
 * <tier> is flash, cache or backing, for the tiers the profile has.
 */
#ifndef ARRAYSIM_TIERS_ARRAY_SAMPLES_H
#define ARRAYSIM_TIERS_ARRAY_SAMPLES_H

#include <stdio.h>

#include "tiers/array_snapshot.h"

/* Controllers a sample tells apart: [controllers] count x [nodes] count
 * at their largest (tiers/profile_keys.c). */
#define ARRAY_SAMPLE_CTLS (64 * 64)

/* The previous sample's counters, for the interval's differences. */
struct array_sample_prev {
	uint64_t ops[PROFILE_TIER_COUNT], bytes[PROFILE_TIER_COUNT];
	uint64_t queue_ns[PROFILE_TIER_COUNT];
	uint64_t hits, lookups;
	uint64_t completed, late; /* replies, and the late ones */
	uint64_t ctl_busy_ns;	  /* over the controllers, per core */
	uint64_t ctl_each_ns[ARRAY_SAMPLE_CTLS]; /* each, in engine order */
	struct latency_hist hist[PROFILE_TIER_COUNT];
};

/* Append @s's members over the last @interval_s seconds; @prev is
 * updated. */
void array_sample_write(FILE *out, const struct array_snapshot *s,
			struct array_sample_prev *prev, double interval_s);

#endif
