/* The timed array: a profile's model run under one lock, with requests
 * completed from the completer thread at their modelled time.
 *
 *   array_submit(io) -> timed_submit: lock; t = model_submit(now);
 *                       unlock; completer_submit(t, io) -> io->complete
 *
 * Now is CLOCK_MONOTONIC read inside the lock (so the engine sees
 * arrivals in non-decreasing time), or the request's own arrival
 * (io->submit_ns), never before the last fault change. Emulated time is
 * the host's monotonic clock: a request submitted at t with a modelled
 * latency of L completes at t + L.
 *
 * A hybrid keeps flash residency (cache_residency.c, over the LRU of
 * cache.c) by physical block when
 * the data path gives them (io->pblks), else by (inode, block): a read
 * hits when all its blocks are resident (a miss promotes them if the
 * profile says so); a write lands per policy (write-back: dirty in flash;
 * write-through: clean in flash; write-around: not in flash). A block
 * dedupe shares between files takes flash space once. The destager
 * (cache_destager.c) runs
 * inside submissions, in emulated time: from destage_start to
 * destage_stop percent dirty it moves the oldest dirty blocks to the
 * backing tier at destage_rate (model_destage), competing with the
 * foreground for the same drives. A dirty block evicted is destaged at
 * once. With [dedupe] reduce_at = destage each block carries what data
 * reduction keeps of it (io->kept) to its destage; with [cache]
 * throttle_start a write above that fill is acknowledged later by the
 * destager's lag (cache_destager_throttle).
 *
 * Paused (array_model_pause), a request updates flash residency as above
 * and completes at once: the layout the model would make, without its
 * time.
 *
 * While the model is down (beyond its controllers' tolerance) a request
 * fails with -EIO, or with `shutdown = block` waits, oldest first, until
 * a fault change brings the array back.
 */
#include "tiers/array_i.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/block.h"
#include "common/clock.h"
#include "tiers/cache.h"
#include "tiers/cache_destager.h"
#include "tiers/cache_residency.h"
#include "tiers/completer.h"
#include "tiers/model.h"
#include "tiers/model_repl.h"
#include "tiers/model_state.h"
#include "tiers/profile_calc.h"

static void model_io_of(const struct array_io *io, struct model_io *m)
{
	memset(m, 0, sizeof(*m));
	m->op = io->kind == ARRAY_IO_WRITE ? ENGINE_OP_WRITE : ENGINE_OP_READ;
	m->offset = io->offset;
	m->length = io->length;
	m->cache_hit = true; /* all-flash: everything is in flash */
	m->blocks_deduped = io->blocks_deduped;
}

/* The array is shut down: fail @io, or hold it (true: held). */
static bool shut_down(struct array *a, struct array_io *io)
{
	struct held *h;

	if (a->profile->ctl.shutdown == PROFILE_SHUTDOWN_BLOCK &&
	    (h = malloc(sizeof(*h)))) {
		h->io = io;
		h->next = NULL;
		*a->held_tail = h;
		a->held_tail = &h->next;
		return true;
	}
	io->result = -EIO;
	return false;
}

/* The model's completion time of @io arriving at @arrive_ns (locked). */
static uint64_t timed(struct array *a, struct array_io *io, uint64_t arrive_ns)
{
	struct model_io mio;
	uint64_t wait = 0;

	model_io_of(io, &mio);
	if (a->cache && io->length) {
		mio.cache_hit = cache_residency_update(
		    a->cache, &a->profile->cache, a->model, arrive_ns, io);
		cache_destager_run(&a->destager, a->cache, a->model, arrive_ns);
		if (io->kind == ARRAY_IO_WRITE)
			wait = cache_destager_throttle(&a->destager, a->cache);
	}
	return model_repl_write(
	    a->repl, model_submit(a->model, arrive_ns, &mio) + wait, &mio);
}

/* Complete what is held while shut down, with -EIO: at unmount. */
static void timed_drain(struct array *a)
{
	struct held *h = a->held;

	a->held = NULL;
	a->held_tail = &a->held;
	while (h) {
		struct held *next = h->next;

		h->io->result = -EIO;
		h->io->complete(h->io);
		free(h);
		h = next;
	}
}

/* Held while shut down, and queued in the completer. */
static unsigned timed_in_flight(struct array *a)
{
	unsigned held = 0;

	pthread_mutex_lock(&a->lock);
	for (const struct held *h = a->held; h; h = h->next)
		held++;
	pthread_mutex_unlock(&a->lock);
	return held + completer_pending(a->completer);
}

static int timed_host_bound(struct array *a, struct late_totals *out)
{
	completer_lateness(a->completer, out);
	return 0;
}

static void timed_submit(struct array *a, struct array_io *io)
{
	uint64_t arrive_ns, done_ns;

	if (io->result || io->kind == ARRAY_IO_FLUSH) {
		io->complete(io);
		return;
	}
	pthread_mutex_lock(&a->lock);
	if (model_down(a->model)) {
		bool held = shut_down(a, io);

		pthread_mutex_unlock(&a->lock);
		if (!held)
			io->complete(io);
		return;
	}
	/* The request reached the array when the FUSE op began, before the
	 * data path did its work: the model's latency counts from then.
	 * Never before the last fault change (the model's clock is
	 * monotonic). */
	arrive_ns = io->submit_ns ? io->submit_ns : clock_mono_ns();
	if (arrive_ns < a->fault_ns)
		arrive_ns = a->fault_ns;
	if (a->paused) {
		if (a->cache && io->length)
			cache_residency_update(a->cache, &a->profile->cache,
					       a->model, arrive_ns, io);
		pthread_mutex_unlock(&a->lock);
		io->complete(io);
		return;
	}
	done_ns = timed(a, io, arrive_ns);
	pthread_mutex_unlock(&a->lock);
	if (completer_submit(a->completer, done_ns, io))
		io->complete(io); /* no memory to queue it: late beats never */
}

/* Back up: the held requests arrive now, oldest first (locked). */
static void release_held(struct array *a, uint64_t now_ns)
{
	struct held *h = a->held;

	a->held = NULL;
	a->held_tail = &a->held;
	while (h) {
		struct held *next = h->next;
		uint64_t done = timed(a, h->io, now_ns);

		if (completer_submit(a->completer, done, h->io))
			h->io->complete(h->io);
		free(h);
		h = next;
	}
}

/* The model's tier for a rule's: the data tier when not given. */
static unsigned fault_tier(const struct profile *p, unsigned tier)
{
	return tier < PROFILE_TIER_COUNT ? tier : profile_data_tier(p);
}

static void fault_error(const struct array *a, const struct model_fault *f,
			int rc, char *err, size_t errlen)
{
	static const char *const what[] = {"controller", "path", "drive",
					   "drive"};
	static const char *const tiers[] = {"flash", "cache", "backing"};
	unsigned nodes =
	    a->profile->nodes.count > 1 ? a->profile->nodes.count : 1;
	/* Controllers: every node's, numbered on node by node; paths
	 * likewise (model_path_count). */
	unsigned count = f->kind == MODEL_FAULT_CONTROLLER
			     ? a->profile->ctl.count * nodes
			     : model_path_count(a->model);
	unsigned drives = f->tier < PROFILE_TIER_COUNT
			      ? a->profile->tier[f->tier].drives * nodes
			      : 0;

	if (rc == -EINVAL && f->kind == MODEL_FAULT_DRIVE_SLOW &&
	    f->id < drives)
		snprintf(err, errlen, "drive-slow: factor must be above 1");
	else if (rc == -EINVAL && f->kind <= MODEL_FAULT_PATH)
		snprintf(err, errlen, "no %s %u: profile %s has %u (0 to %u)",
			 what[f->kind], f->id, a->profile->name, count,
			 count - 1);
	else if (rc == -EINVAL)
		snprintf(err, errlen, "no drive %u in tier %s: it has %u",
			 f->id, tiers[f->tier], drives);
	else if (rc == -ENOTSUP && !a->profile->tier[f->tier].present)
		snprintf(err, errlen, "profile %s has no %s tier",
			 a->profile->name, tiers[f->tier]);
	else
		snprintf(err, errlen, "%s %u is %s already (see: fault list)",
			 what[f->kind], f->id,
			 f->kind == MODEL_FAULT_DRIVE_SLOW ? "slow" : "failed");
}

static int timed_fault(struct array *a, const struct model_fault *f, bool on,
		       uint64_t *now_ns, struct model_fault_effect *eff,
		       char *err, size_t errlen)
{
	struct model_fault mf = *f;
	int rc;

	mf.tier = fault_tier(a->profile, f->tier);
	pthread_mutex_lock(&a->lock);
	*now_ns = clock_mono_ns();
	if (*now_ns < a->fault_ns)
		*now_ns = a->fault_ns;
	a->fault_ns = *now_ns;
	rc = model_fault(a->model, *now_ns, &mf, on, eff);
	if (!rc && eff->down_changed && !eff->down)
		release_held(a, *now_ns);
	pthread_mutex_unlock(&a->lock);
	if (rc)
		fault_error(a, &mf, rc, err, errlen);
	return rc;
}

/* The rebuilds booked up to now, before a read of the model's state:
 * they run whether or not requests arrive (locked). Now. */
static uint64_t advance(struct array *a)
{
	uint64_t now = clock_mono_ns();

	if (now < a->fault_ns)
		now = a->fault_ns;
	model_advance(a->model, now);
	return now;
}

static void timed_with_engine(struct array *a,
			      void (*fn)(void *ctx, const struct engine *e),
			      void *ctx)
{
	pthread_mutex_lock(&a->lock);
	advance(a);
	fn(ctx, model_engine(a->model));
	pthread_mutex_unlock(&a->lock);
}

static void timed_with_model(struct array *a,
			     void (*fn)(void *ctx, const struct model *m,
					const struct cache *c),
			     void *ctx)
{
	pthread_mutex_lock(&a->lock);
	advance(a);
	fn(ctx, a->model, a->cache);
	pthread_mutex_unlock(&a->lock);
}

static bool timed_fault_current(struct array *a, const struct model_fault *f,
				enum model_fault_mark mark, uint64_t key_ns)
{
	struct model_fault mf = *f;
	bool cur;

	mf.tier = fault_tier(a->profile, f->tier);
	pthread_mutex_lock(&a->lock);
	advance(a);
	cur = model_fault_current(a->model, &mf, mark, key_ns);
	pthread_mutex_unlock(&a->lock);
	return cur;
}

static int timed_rebuild_end(struct array *a, const struct model_fault *f,
			     uint64_t fail_ns, uint64_t *end_ns)
{
	unsigned tier = fault_tier(a->profile, f->tier);
	int rc;

	if (f->kind != MODEL_FAULT_DRIVE && f->kind != MODEL_FAULT_CONTROLLER &&
	    f->kind != MODEL_FAULT_PATH)
		return -ENOENT;
	pthread_mutex_lock(&a->lock);
	advance(a);
	/* A controller or path: the resync of a node it brought back. */
	rc = f->kind == MODEL_FAULT_DRIVE
		 ? model_rebuild_end(a->model, tier, f->id, fail_ns, end_ns)
		 : model_resync_end(a->model, f, fail_ns, end_ns);
	pthread_mutex_unlock(&a->lock);
	return rc;
}

static size_t timed_lost_filter(struct array *a, unsigned loss, uint64_t *pblk,
				size_t n)
{
	size_t kept = 0;
	bool cache;

	pthread_mutex_lock(&a->lock);
	/* The cache tier holds copies, except for dirty blocks: only those
	 * can be lost with it, and not when a mirror holds them too. */
	cache = model_loss_tier(a->model, loss) == PROFILE_TIER_CACHE;
	if (cache && (!a->cache || a->profile->cache.mirrored))
		n = 0;
	for (size_t i = 0; i < n; i++)
		if ((!cache ||
		     cache_is_dirty(
			 a->cache,
			 (struct cache_key){.ino = 0, .block = pblk[i]})) &&
		    model_block_lost(a->model, loss, pblk[i]))
			pblk[kept++] = pblk[i];
	pthread_mutex_unlock(&a->lock);
	return kept;
}

static bool timed_block_repairable(struct array *a, uint64_t pblk)
{
	bool ok;

	pthread_mutex_lock(&a->lock);
	ok = model_block_repairable(a->model, advance(a), pblk);
	pthread_mutex_unlock(&a->lock);
	return ok;
}

const struct array_ops array_timed_ops = {
    .name = "timed",
    .timed = true,
    .drain = timed_drain,
    .in_flight = timed_in_flight,
    .host_bound = timed_host_bound,
    .submit = timed_submit,
    .fault = timed_fault,
    .fault_current = timed_fault_current,
    .rebuild_end = timed_rebuild_end,
    .lost_filter = timed_lost_filter,
    .block_repairable = timed_block_repairable,
    .with_engine = timed_with_engine,
    .with_model = timed_with_model,
};
