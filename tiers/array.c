/* The array model: decides when each request completes.
 *
 *   FUSE worker                          completer thread
 *   -----------                          ----------------
 *   array_submit(io)
 *     null model: io->complete(io) now
 *     timed: lock; t = model_submit(now)       ...
 *            unlock; completer_submit(t, io) ---> io->complete(io) at t
 *
 * The `null` profile (the default) completes every request at once, in
 * the submitting thread: no timing, for fast CI. A timed profile runs
 * the model of tiers/model.c: under one lock, with now = CLOCK_MONOTONIC
 * read inside it (so the engine sees arrivals in non-decreasing time),
 * it computes the emulated completion time, and the completer thread
 * replies then. Emulated time is the host's monotonic clock: a request
 * submitted at t with a modelled latency of L completes at t + L.
 *
 * Not modelled yet (issue 3): tier residency. Until tiers/cache.c
 * tracks which blocks sit in flash, every read of a hybrid is taken as a
 * flash hit (the figures the hybrids were calibrated on assume most
 * reads hit); the log says so at mount. A request the data path failed
 * completes at once: it never reached the drives.
 */
#include "tiers/array.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/stats.h"
#include "tiers/completer.h"
#include "tiers/model.h"
#include "tiers/profile.h"

struct array {
	uint64_t seed;
	struct profile *profile; /* NULL: the null model */
	struct model *model;
	struct completer *completer;
	pthread_mutex_t lock; /* serialises model_submit */
};

/* Load @name and build its model; a null profile leaves a->model NULL. */
static int array_load(struct array *a, const char *name, double scale)
{
	char err[PROFILE_ERR_LEN];
	int rc;

	a->profile = malloc(sizeof(*a->profile));
	if (!a->profile)
		return -ENOMEM;
	rc = profile_load(name, a->profile, err, sizeof(err));
	if (rc) {
		log_error("array", "%s", err);
		return -EINVAL;
	}
	if (a->profile->model == PROFILE_MODEL_NULL)
		return 0;
	rc = model_new(a->profile, scale, a->seed, &a->model);
	if (!rc)
		rc = completer_new(&a->completer);
	if (rc)
		return rc;
	log_info("array", "profile %s at scale %g, seed %llu", name, scale,
		 (unsigned long long)a->seed);
	if (a->profile->tier[PROFILE_TIER_CACHE].present)
		log_warn("array", "tier residency is not modelled yet: every "
				  "read is timed as a flash-cache hit");
	return 0;
}

int array_new(const char *profile, double scale, uint64_t seed,
	      struct array **out)
{
	struct array *a;
	int rc;

	*out = NULL;
	if (!profile || !*profile || !(scale > 0.0))
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->seed = seed;
	pthread_mutex_init(&a->lock, NULL);
	rc = array_load(a, profile, scale);
	if (rc) {
		array_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void array_free(struct array *a)
{
	if (!a)
		return;
	/* Completes whatever is still queued, then the model can go. */
	completer_free(a->completer);
	model_free(a->model);
	free(a->profile);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

bool array_timed(const struct array *a)
{
	return a->model != NULL;
}

static void model_io_of(const struct array_io *io, struct model_io *m)
{
	memset(m, 0, sizeof(*m));
	m->op = io->kind == ARRAY_IO_WRITE ? ENGINE_OP_WRITE : ENGINE_OP_READ;
	m->offset = io->offset;
	m->length = io->length;
	m->cache_hit = true; /* no residency yet: see the top */
	m->blocks_deduped = io->blocks_deduped;
}

void array_submit(struct array *a, struct array_io *io)
{
	struct model_io mio;
	uint64_t done_ns;

	if (!a->model || io->result || io->kind == ARRAY_IO_FLUSH) {
		io->complete(io);
		return;
	}
	model_io_of(io, &mio);
	pthread_mutex_lock(&a->lock);
	done_ns = model_submit(a->model, stats_now_ns(), &mio);
	pthread_mutex_unlock(&a->lock);
	if (completer_submit(a->completer, done_ns, io))
		io->complete(io); /* no memory to queue it: late beats never */
}
