/* A hybrid's residency per request (cache_residency.c). Not thread-safe:
 * tiers/array_timed.c calls it under the array's lock. */
#ifndef ARRAYSIM_TIERS_CACHE_RESIDENCY_H
#define ARRAYSIM_TIERS_CACHE_RESIDENCY_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/array_io.h"
#include "tiers/cache.h"
#include "tiers/model.h"

/* Whether @io hits the flash tier of @c, and its blocks' new residency
 * under policy @pc at @now_ns; dirty victims are destaged on @m. */
bool cache_residency_update(struct cache *c, const struct profile_cache *pc,
			    struct model *m, uint64_t now_ns,
			    const struct array_io *io);

#endif
