/* Dedupe's CPU on a write (tiers/model_cpu_i.h): what it costs, and how
 * a controller's cores share a large write's chunks of it.
 *
 * The rule (tiers/README.md, "Dedupe's CPU"): the work is per 4 KiB
 * chunk, in equal shares that sum to what the profile's costs give for
 * the whole request. The first chunk's share runs with the request's own
 * work; each further chunk is a stage of its own on the same controller,
 * from the same moment, on whichever core is free first, as a
 * multi-threaded storage stack's workers take a request's chunks. A
 * request of one block is one stage, as it always was.
 */
#include "tiers/model_cpu_i.h"

#include "common/block.h"
#include "tiers/engine.h"

uint64_t model_rate_ns(uint64_t bytes, uint64_t rate)
{
	if (!rate)
		return 0;
	return (uint64_t)(((unsigned __int128)bytes * 1000000000u + rate / 2) /
			  rate);
}

bool model_reduce_at_destage(const struct model *m)
{
	return m->p->dedupe.enabled &&
	       m->p->dedupe.reduce_at == PROFILE_REDUCE_DESTAGE;
}

uint64_t model_dedupe_cpu_ns(const struct model *m, const struct model_io *io)
{
	uint64_t blocks = (io->length + BLOCK_BYTES - 1) / BLOCK_BYTES;
	uint64_t unique = 0;

	if (model_reduce_at_destage(m))
		return 0;
	if (io->blocks_deduped < blocks)
		unique = io->length - io->blocks_deduped * BLOCK_BYTES;
	return blocks * m->dedupe_ns +
	       model_rate_ns(io->length, m->dedupe_rate[0]) +
	       model_rate_ns(unique, m->dedupe_rate[1]);
}

uint64_t model_dedupe_chunks(const struct model_io *io)
{
	uint64_t blocks = (io->length + BLOCK_BYTES - 1) / BLOCK_BYTES;

	return io->op == ENGINE_OP_WRITE && blocks > 1 ? blocks : 1;
}

uint64_t model_chunk_ns(uint64_t d, uint64_t n, uint64_t k)
{
	return d / n + (k < d % n ? 1 : 0);
}

uint64_t model_run_chunks(struct model *m, int res, uint64_t t, uint64_t d,
			  uint64_t n, uint64_t from)
{
	struct engine_stage st = {
	    .res = res, .op = ENGINE_OP_WRITE, .part = from > 0};
	uint64_t end = t;

	for (uint64_t k = from; k < n; k++) {
		uint64_t e;

		st.work_ns = model_chunk_ns(d, n, k);
		e = engine_submit(m->e, t, &st, 1);
		end = e > end ? e : end;
		st.part = true;
	}
	return end;
}
