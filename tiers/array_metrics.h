/* The array model's series in the Prometheus exposition (timed profiles;
 * none for the null model), after common/metrics.c's:
 *
 *   arraysim_array_up                          gauge    0 while shut down
 *   arraysim_tier_ops_total{tier,op}           counter  drive operations
 *   arraysim_tier_bytes_total{tier,op}         counter  bytes at the drives
 *   arraysim_tier_queue_seconds_total{tier}    counter  rate = queue depth
 *   arraysim_tier_drive_latency_seconds{tier}  histogram drive op times
 *   arraysim_rebuild_progress_ratio{tier}      gauge    0..1, 1: none
 *   arraysim_rebuild_remaining_bytes{tier}     gauge
 *   arraysim_controller_up{controller}         gauge    0/1
 *   arraysim_path_up{path}                     gauge    0/1
 *   arraysim_drive_state{tier,drive,state}     gauge    1 for its state
 *   arraysim_resource_queue_seconds_total{kind,resource}  counter
 *   arraysim_resource_busy_slots{kind,resource}           gauge
 *   arraysim_resource_busy_seconds_total{kind,resource,part} counter
 *                                     rate = utilisation of slots/gate/wire;
 *                                     a controller's slots add counter
 *   arraysim_replies_total                     counter  timed replies
 *   arraysim_late_replies_total                counter  ... the host sent
 *                                                       late (host-bound)
 *   arraysim_late_seconds_total                counter  their lateness
 *   arraysim_late_share                        gauge    late share, 10 s
 *   arraysim_worst_lateness_seconds            gauge    worst, last 1 s
 *
 * And, for every profile, the null one too (array_metrics_info):
 *   arraysim_info{profile,scale,time_scale,seed,version}  gauge  1
 *
 * tier: flash, cache, backing; op: read, write; state: ok, slow,
 * rebuilding, failed; kind: link, controller, drive; counter: usage,
 * core, utilization (the profile's [controllers] cpu_counter: what a
 * controller's slots time is, tiers/README.md "CPU figures").
 */
#ifndef ARRAYSIM_TIERS_ARRAY_METRICS_H
#define ARRAYSIM_TIERS_ARRAY_METRICS_H

#include <stdio.h>

#include "tiers/array_snapshot.h"

void array_metrics_write(FILE *out, const struct array_snapshot *s);
/* What is emulated: the arraysim_info series of @c as array_open took it
 * (time_scale 0 is written as the scale it stands for) and this build's
 * version (ARRAYSIM_VERSION). */
void array_metrics_info(FILE *out, const struct array_conf *c);

#endif
