/* Private to tiers/model*.c: what a request costs a controller's cores
 * beyond its fixed per-request and per-drive-operation work, dedupe's
 * (model_cpu.c; tiers/README.md, "Dedupe's CPU"). */
#ifndef ARRAYSIM_TIERS_MODEL_CPU_I_H
#define ARRAYSIM_TIERS_MODEL_CPU_I_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/model_i.h"

/* @bytes of work at @rate bytes/s of one core, in ns, rounded (0: free). */
uint64_t model_rate_ns(uint64_t bytes, uint64_t rate);
/* Whether the dedupe work runs at destage (model_destage_reduced), not on
 * the write. */
bool model_reduce_at_destage(const struct model *m);
/* Dedupe's CPU for a write of @io: the lookup per 4 KiB block, the
 * fingerprint of every byte, and (compression on) the compression of the
 * blocks dedupe did not find, each at its rate per core. */
uint64_t model_dedupe_cpu_ns(const struct model *m, const struct model_io *io);
/* The 4 KiB chunks of @io whose dedupe work a controller spreads over
 * its cores: one for a read, or a request of one block. */
uint64_t model_dedupe_chunks(const struct model_io *io);
/* Chunk @k's share of @d ns of dedupe work over @n chunks: equal shares,
 * the first d mod n a nanosecond more, so the shares sum to @d. */
uint64_t model_chunk_ns(uint64_t d, uint64_t n, uint64_t k);
/* Chunks @from to @n - 1 of @d ns of dedupe work on controller @res from
 * @t, each a stage of its own that takes the core free first, as a
 * multi-threaded stack's workers take a request's chunks: when the last
 * is done (@t for none). Parts of the request's operation (chunk 0, when
 * @from is 0, counts as an operation), not operations of their own. */
uint64_t model_run_chunks(struct model *m, int res, uint64_t t, uint64_t d,
			  uint64_t n, uint64_t from);

#endif
