/* The array model: decides when each request completes.
 *
 *   FUSE worker                          completer thread
 *   -----------                          ----------------
 *   array_submit(io) -> a->ops->submit
 *     null  (array_null.c):  io->complete(io) now
 *     timed (array_timed.c): lock; t = model_submit(now)    ...
 *            unlock; completer_submit(t, io) ---> io->complete(io) at t
 *
 * The `null` profile (the default) completes every request at once, in
 * the submitting thread: no timing, for fast CI. A timed profile runs
 * the model of tiers/model.c and the completer thread replies at the
 * modelled time. This file loads the profile, picks the ops
 * (struct array_ops, array_i.h) and hands each public call to them; what
 * differs between the two lives in their files.
 *
 * A request the data path failed completes at once: it never reached
 * the drives.
 */
#include "tiers/array_i.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/block.h"
#include "common/clock.h"
#include "common/log.h"
#include "tiers/cache.h"
#include "tiers/completer.h"
#include "tiers/model.h"
#include "tiers/model_repl.h"
#include "tiers/profile.h"
#include "tiers/profile_calc.h"

/* Load @name and build its model; a null profile leaves a->model NULL.
 * Fault durations go by @time_scale. */
static int array_load(struct array *a, const char *name, double scale,
		      double time_scale)
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
		return 0; /* a->ops stays &array_null_ops */
	a->ops = &array_timed_ops;
	rc = model_new_timed(a->profile, scale, time_scale, a->seed, &a->model);
	if (!rc)
		rc = completer_new(&a->completer);
	if (rc)
		return rc;
	if (time_scale != scale)
		log_info("array",
			 "profile %s at scale %g, time scale %g, seed %llu",
			 name, scale, time_scale, (unsigned long long)a->seed);
	else
		log_info("array", "profile %s at scale %g, seed %llu", name,
			 scale, (unsigned long long)a->seed);
	if (a->profile->tier[PROFILE_TIER_CACHE].present) {
		rc = cache_new_policy(
		    a->profile->cache.size_bytes / BLOCK_BYTES,
		    a->profile->cache.eviction == PROFILE_EVICT_ARC, &a->cache);
		cache_destager_init(&a->destager, a->profile, scale);
	}
	return rc;
}

int array_new(const char *profile, double scale, uint64_t seed,
	      struct array **out)
{
	struct array_conf c = {
	    .profile = profile, .scale = scale, .seed = seed};

	return array_open(&c, out);
}

int array_open(const struct array_conf *conf, struct array **out)
{
	const char *profile = conf->profile;
	double scale = conf->scale, time_scale = conf->time_scale;
	uint64_t seed = conf->seed;
	struct array *a;
	int rc;

	*out = NULL;
	if (!profile || !*profile || !(scale > 0.0) || !(time_scale >= 0.0))
		return -EINVAL;
	if (time_scale == 0.0)
		time_scale = scale;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->ops = &array_null_ops;
	a->seed = seed;
	a->profile_name = strdup(profile);
	a->conf = (struct array_conf){.profile = a->profile_name,
				      .scale = scale,
				      .time_scale = time_scale,
				      .seed = seed};
	a->held_tail = &a->held;
	pthread_mutex_init(&a->lock, NULL);
	rc = a->profile_name ? completer_new(&a->arrivals) : -ENOMEM;
	if (!rc)
		rc = array_load(a, profile, scale, time_scale);
	if (rc) {
		array_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

/* What the run did, for the log at unmount: how often the host, not
 * the model, set the pace, and how the flash cache fared. */
static void array_log_summary(struct array *a)
{
	struct late_totals l;
	struct cache_stats st = {0};

	if (array_host_bound(a, &l))
		return;
	if (a->cache)
		cache_stats(a->cache, &st);
	log_info("array",
		 "%llu requests timed; host-bound (replied over 10%% later "
		 "than modelled): %llu, late by %.3f s in all; flash cache: "
		 "%llu hits, %llu misses, %llu destaged, %llu dirty left",
		 (unsigned long long)l.completed, (unsigned long long)l.late,
		 (double)l.late_ns / 1e9, (unsigned long long)st.hits,
		 (unsigned long long)st.misses, (unsigned long long)st.destaged,
		 (unsigned long long)st.dirty);
}

void array_free(struct array *a)
{
	if (!a)
		return;
	/* Delayed requests arrive at once, while the model still runs. */
	completer_free(a->arrivals);
	/* Still shut down at unmount: what waited fails, nothing hangs. */
	a->ops->drain(a);
	array_log_summary(a);
	/* Completes whatever is still queued, then the model can go. */
	completer_free(a->completer);
	cache_free(a->cache);
	model_repl_free(a->repl);
	model_free(a->model);
	free(a->profile);
	free(a->profile_name);
	free(a->stats_base);
	free(a->mark_base);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

const struct profile *array_profile(const struct array *a)
{
	return a->profile;
}

const struct array_conf *array_conf_get(const struct array *a)
{
	return &a->conf;
}

bool array_timed(const struct array *a)
{
	return a->ops->timed;
}

int array_model_pause(struct array *a, bool pause)
{
	if (!a->ops->timed)
		return -ENOTSUP;
	pthread_mutex_lock(&a->lock);
	a->paused = pause;
	pthread_mutex_unlock(&a->lock);
	return 0;
}

unsigned array_in_flight(struct array *a)
{
	return a->ops->in_flight(a);
}

int array_cache_stats(const struct array *a, struct cache_stats *st)
{
	if (!a->cache)
		return -ENOENT;
	struct model_counts mc = {0};

	pthread_mutex_lock((pthread_mutex_t *)&a->lock);
	cache_stats(a->cache, st);
	if (a->model)
		model_counts(a->model, &mc);
	st->reduce_cpu_ns = mc.reduce_cpu_ns;
	st->reduce_kept_bytes = mc.reduce_kept_bytes;
	st->throttled = a->destager.throttled;
	st->throttle_ns = a->destager.throttle_ns;
	pthread_mutex_unlock((pthread_mutex_t *)&a->lock);
	return 0;
}

bool array_wants_blocks(const struct array *a)
{
	return a->cache != NULL;
}

bool array_wants_kept(const struct array *a)
{
	return a->cache &&
	       a->profile->dedupe.reduce_at == PROFILE_REDUCE_DESTAGE;
}

int array_host_bound(struct array *a, struct late_totals *out)
{
	return a->ops->host_bound(a, out);
}

int array_host_window(struct array *a, uint64_t span_ns,
		      struct late_window *out)
{
	if (!a->completer)
		return -ENOENT;
	completer_window(a->completer, span_ns, out);
	return 0;
}

int array_cache_fail(struct array *a, uint64_t **pblk, size_t *n,
		     bool *mirrored)
{
	struct cache_stats st;
	struct cache_key *keys;
	size_t k;

	*pblk = NULL;
	*n = 0;
	if (!a->cache)
		return -ENOTSUP;
	*mirrored = a->profile->cache.mirrored;
	pthread_mutex_lock(&a->lock);
	cache_stats(a->cache, &st);
	keys = malloc((st.dirty ? st.dirty : 1) * sizeof(*keys));
	*pblk = malloc((st.dirty ? st.dirty : 1) * sizeof(**pblk));
	if (!keys || !*pblk) {
		pthread_mutex_unlock(&a->lock);
		free(keys);
		free(*pblk);
		*pblk = NULL;
		return -ENOMEM;
	}
	k = cache_dirty_keys(a->cache, keys, st.dirty);
	cache_clear(a->cache);
	pthread_mutex_unlock(&a->lock);
	/* Keys are physical blocks when the data path gives them (ino 0),
	 * as it always does for a hybrid. */
	for (size_t i = 0; i < k; i++)
		if (!keys[i].ino)
			(*pblk)[(*n)++] = keys[i].block;
	free(keys);
	return 0;
}

/* ---- the calls that differ: through a->ops ------------------------------ */

/* A delayed request's arrival, on the arrivals thread. */
static void arrive(struct array_io *io)
{
	struct array *a = io->delayed.a;

	io->complete = io->delayed.complete;
	a->ops->submit(a, io);
}

void array_submit(struct array *a, struct array_io *io)
{
	uint64_t delay_ns = io->delay_ns;

	if (delay_ns) {
		io->delay_ns = 0;
		io->delayed.a = a;
		io->delayed.complete = io->complete;
		io->complete = arrive;
		if (completer_submit(a->arrivals, clock_mono_ns() + delay_ns,
				     io) == 0)
			return;
		io->complete = io->delayed.complete; /* no memory: no delay */
	}
	a->ops->submit(a, io);
}

int array_fault(struct array *a, const struct model_fault *f, bool on,
		uint64_t *now_ns, struct model_fault_effect *eff, char *err,
		size_t errlen)
{
	memset(eff, 0, sizeof(*eff));
	*now_ns = clock_mono_ns();
	return a->ops->fault(a, f, on, now_ns, eff, err, errlen);
}

int array_rebuild_end(struct array *a, const struct model_fault *f,
		      uint64_t fail_ns, uint64_t *end_ns)
{
	return a->ops->rebuild_end(a, f, fail_ns, end_ns);
}

bool array_fault_current(struct array *a, const struct model_fault *f,
			 enum model_fault_mark mark, uint64_t key_ns)
{
	return a->ops->fault_current(a, f, mark, key_ns);
}

size_t array_lost_filter(struct array *a, unsigned loss, uint64_t *pblk,
			 size_t n)
{
	return a->ops->lost_filter(a, loss, pblk, n);
}

bool array_block_repairable(struct array *a, uint64_t pblk)
{
	return a->ops->block_repairable(a, pblk);
}

void array_with_engine(struct array *a,
		       void (*fn)(void *ctx, const struct engine *e), void *ctx)
{
	a->ops->with_engine(a, fn, ctx);
}

void array_with_model(struct array *a,
		      void (*fn)(void *ctx, const struct model *m,
				 const struct cache *c),
		      void *ctx)
{
	a->ops->with_model(a, fn, ctx);
}
