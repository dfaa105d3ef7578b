/* The array model: a resolved profile as engine resources, and one host
 * I/O as the stages it takes through them.
 *
 * model_new() turns a profile (every rate times @scale) into resources of
 * the timing engine (tiers/engine.h): each front-end link (one resource
 * per direction), each controller, each drive of each tier.
 * model_submit() returns when one I/O completes, in emulated ns; see
 * model.c for the path a read and a write take. Not thread-safe: the
 * caller serialises submissions (tiers/array.c holds a lock).
 */
#ifndef ARRAYSIM_TIERS_MODEL_H
#define ARRAYSIM_TIERS_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/engine.h"
#include "tiers/profile.h"

struct model;

struct model_io {
	enum engine_op op;
	uint64_t offset; /* bytes, logical */
	uint64_t length; /* bytes, at most RAID_IO_MAX (1 MiB) */
	bool cache_hit;	 /* hybrid: the blocks sit in the flash tier */
	/* Blocks of this write that dedupe found already stored: when all
	 * of them were, no drive is written. */
	uint32_t blocks_deduped;
};

/* Back-end operations a submission caused, for tests and stats. */
struct model_counts {
	uint64_t drive_ops[ENGINE_OP_COUNT];	  /* foreground */
	uint64_t background_ops[ENGINE_OP_COUNT]; /* after the ack */
};

/* Build the model of @p (kept by reference: it must outlive the model)
 * with every rate multiplied by @scale (> 0). 0, -EINVAL (a null or
 * impossible profile), or -ENOMEM. */
int model_new(const struct profile *p, double scale, uint64_t seed,
	      struct model **out);
/* Free @m; NULL is a no-op. */
void model_free(struct model *m);
/* Emulated completion time (>= @now_ns) of @io arriving at @now_ns.
 * Submit in non-decreasing @now_ns. @io->length 0 or > 1 MiB: completes
 * at @now_ns untimed. */
uint64_t model_submit(struct model *m, uint64_t now_ns,
		      const struct model_io *io);
/* Move @length dirty bytes at @offset from the cache tier to the backing
 * tier, starting at @now_ns (hybrid; the destager's work); returns when
 * it is done. */
uint64_t model_destage(struct model *m, uint64_t now_ns, uint64_t offset,
		       uint64_t length);
/* Drive operations so far. */
void model_counts(const struct model *m, struct model_counts *c);
/* The engine, for per-resource stats (engine_resource_stats). */
const struct engine *model_engine(const struct model *m);

#endif
