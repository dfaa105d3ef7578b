/* `arraysim stats --array`: the array model's figures (array_stats.c). */
#ifndef ARRAYSIM_TIERS_ARRAY_STATS_H
#define ARRAYSIM_TIERS_ARRAY_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct array;

/* Print the model's figures per tier and per resource (links,
 * controllers, drives), the flash cache and host-bound counts, as text or
 * one JSON object; rates are averages over @elapsed_ns. */
void array_stats_print(struct array *a, FILE *out, bool json,
		       uint64_t elapsed_ns);

#endif
