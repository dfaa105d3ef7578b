/* The null array: every request completes at once, in the submitting
 * thread; no model, no completer, no faults. The default profile, for
 * fast CI and for measuring the ceiling a timed profile is held to.
 */
#include "tiers/array_i.h"

#include <errno.h>
#include <stdio.h>

static void null_drain(struct array *a)
{
}

static unsigned null_in_flight(struct array *a)
{
	return 0; /* each request completed before array_submit returned */
}

static int null_host_bound(struct array *a, struct late_totals *out)
{
	return -ENOENT;
}

static void null_submit(struct array *a, struct array_io *io)
{
	io->complete(io);
}

static int null_fault(struct array *a, const struct model_fault *f, bool on,
		      uint64_t *now_ns, struct model_fault_effect *eff,
		      char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "array faults need a timed array profile (mount "
		 "--profile NAME); this mount has the null model");
	return -ENOTSUP;
}

static int null_rebuild_end(struct array *a, const struct model_fault *f,
			    uint64_t fail_ns, uint64_t *end_ns)
{
	(void)a;
	(void)f;
	(void)fail_ns;
	(void)end_ns;
	return -ENOENT;
}

static bool null_fault_current(struct array *a, const struct model_fault *f,
			       enum model_fault_mark mark, uint64_t key_ns)
{
	return false;
}

/* Nothing is lost, and nothing can be rebuilt: there are no drives. */
static size_t null_lost_filter(struct array *a, unsigned loss, uint64_t *pblk,
			       size_t n)
{
	return 0;
}

static bool null_block_repairable(struct array *a, uint64_t pblk)
{
	return false;
}

static void null_with_engine(struct array *a,
			     void (*fn)(void *ctx, const struct engine *e),
			     void *ctx)
{
	fn(ctx, NULL);
}

static void null_with_model(struct array *a,
			    void (*fn)(void *ctx, const struct model *m,
				       const struct cache *c),
			    void *ctx)
{
}

const struct array_ops array_null_ops = {
    .name = "null",
    .timed = false,
    .drain = null_drain,
    .in_flight = null_in_flight,
    .host_bound = null_host_bound,
    .submit = null_submit,
    .fault = null_fault,
    .fault_current = null_fault_current,
    .rebuild_end = null_rebuild_end,
    .lost_filter = null_lost_filter,
    .block_repairable = null_block_repairable,
    .with_engine = null_with_engine,
    .with_model = null_with_model,
};
