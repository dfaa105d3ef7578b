/* `arraysim stats --array`: the array model's figures (array_stats.c). */
#ifndef ARRAYSIM_TIERS_ARRAY_STATS_H
#define ARRAYSIM_TIERS_ARRAY_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct array;

/* Print the model's figures per tier and per resource (links,
 * controllers, drives), the flash cache and host-bound counts, as text or
 * one JSON object; rates are averages over @elapsed_ns (the mount's
 * life), or since the last array_stats_reset() when that is shorter:
 * counters, latencies and elapsed time then count from the reset. */
void array_stats_print(struct array *a, FILE *out, bool json,
		       uint64_t elapsed_ns);
/* `arraysim stats --reset` for these figures: array_stats_print counts
 * from now on. The samples and Prometheus series, which take their own
 * differences, are unchanged. A no-op for the null model. */
void array_stats_reset(struct array *a);
/* `ctl MNT stats mark`: remember the figures as they stand, so that
 * array_stats_print_since_mark gives one run's figures; a reset does not
 * move the mark. A no-op for the null model. */
void array_stats_mark(struct array *a);
/* As array_stats_print, counting from the last mark: 0, or -ENOENT with
 * nothing printed when no mark was set (timed model). */
int array_stats_print_since_mark(struct array *a, FILE *out, bool json);

#endif
