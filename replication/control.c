/* The replication thread's life, the ctl verbs and the figures
 * (replication/repl.h). */
#include "replication/repl_i.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/stats.h"
#include "store/store.h"

/* A `replication sync` waits this long for its batch: the ctl client
 * gives up on a silent daemon after 10 s. */
#define SYNC_WAIT_NS (8ull * NS_PER_SEC)

/* A sync point of the source (store_sync): ship what it made durable.
 * The engine's own syncs (releasing freed blocks) are not one. */
static void sync_point(void *ctx)
{
	struct repl *r = ctx;
	if (pthread_equal(pthread_self(), r->thread))
		return;
	pthread_mutex_lock(&r->lock);
	r->kick = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
}

/* How often the thread looks at the faults and the lag while it waits:
 * a cleared fault ships within this, an event comes within this. */
#define WATCH_NS (NS_PER_SEC / 5)

static bool may_ship(struct repl *r)
{
	return r->state == REPL_RUNNING && !r->held_by;
}

/* Wait for a reason to ship: a sync point, a sync request, the rpo; none
 * counts while a fault holds batches back (the reason waits with it). */
static bool wait_turn(struct repl *r, uint64_t *asked)
{
	uint64_t due = clock_mono_ns() + r->rpo_ns;
	for (;;) {
		if ((r->state == REPL_STOPPED || r->state == REPL_FAILED) &&
		    r->prev) {
			pthread_mutex_unlock(&r->lock);
			repl_forget(r); /* the next start is a full batch */
			pthread_mutex_lock(&r->lock);
			pthread_cond_broadcast(&r->done);
		}
		repl_watch(r);
		repl_link_fault_look(r);
		uint64_t now = clock_mono_ns();
		if (r->quit || (may_ship(r) && (r->kick || now >= due)) ||
		    repl_retry_due(r, now))
			break;
		if (r->state != REPL_RUNNING)
			due = now + r->rpo_ns;
		/* Past due but held back by a fault: look again in WATCH_NS,
		 * do not spin. */
		uint64_t left = due > now ? due - now : WATCH_NS;
		left =
		    repl_retry_left(r, now, left < WATCH_NS ? left : WATCH_NS);
		struct timespec ts = clock_mono_after(left);
		pthread_cond_timedwait(&r->wake, &r->lock, &ts);
	}
	r->kick = false;
	*asked = r->asked;
	return !r->quit;
}

static void *engine_main(void *arg)
{
	struct repl *r = arg;
	char err[512];
	uint64_t asked;
	pthread_mutex_lock(&r->lock);
	while (wait_turn(r, &asked)) {
		r->busy = true;
		pthread_mutex_unlock(&r->lock);
		int e = repl_batch(r, err, sizeof(err));
		pthread_mutex_lock(&r->lock);
		r->busy = false;
		if (e)
			repl_batch_failed(r, e, err, asked);
		else
			repl_batch_shipped(r, asked);
		pthread_cond_broadcast(&r->done);
	}
	pthread_mutex_unlock(&r->lock);
	repl_forget(r);
	return NULL;
}

static int open_sides(struct repl *r, const struct repl_config *cfg, char *err,
		      size_t errlen)
{
	const char *src = store_dir(r->src);
	bool tcp = repl_link_is_tcp(cfg->dest);
	if (!tcp && !strcmp(src, cfg->dest)) {
		snprintf(err, errlen,
			 "--replicate-to %.3000s: that is the store itself",
			 cfg->dest);
		return -EINVAL;
	}
	int e = tcp ? repl_link_tcp(cfg->dest, cfg->secret_file, &r->link, err,
				    errlen)
		    : repl_link_local(cfg->dest, &r->link, err, errlen);
	if (!e && (e = backing_open(src, &r->backing, err, errlen)))
		repl_link_close(&r->link);
	if (!e)
		r->dev = backing_dev(r->backing);
	return e;
}

int repl_start(struct store *src, struct stats *stats,
	       const struct repl_config *cfg, struct repl **out, char *err,
	       size_t errlen)
{
	struct repl *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*r = (struct repl){.src = src,
			   .ms = store_ms(src),
			   .stats = stats,
			   .rpo_ns =
			       cfg->rpo_ns ? cfg->rpo_ns : REPL_DEFAULT_RPO_NS,
			   .started_ns = clock_mono_ns(),
			   .faults = cfg->faults,
			   .events = cfg->events,
			   .sync = cfg->sync,
			   .array = cfg->array,
			   .kick = true};
	snprintf(r->dest, sizeof(r->dest), "%s", cfg->dest);
	int e = open_sides(r, cfg, err, errlen);
	if (e) {
		free(r);
		return e;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->wake, &ca);
	pthread_cond_init(&r->done, &ca);
	pthread_condattr_destroy(&ca);
	metastore_hold_pending(r->ms, true);
	/* The thread reads r->thread only once it has the lock; the hook is
	 * set outside it (a sync holds the store's lock, then takes ours). */
	pthread_mutex_lock(&r->lock);
	e = -pthread_create(&r->thread, NULL, engine_main, r);
	pthread_mutex_unlock(&r->lock);
	if (!e)
		store_set_sync_hook(src, sync_point, r);
	if (e) {
		snprintf(err, errlen, "replication thread: %s", strerror(-e));
		metastore_hold_pending(r->ms, false);
		r->thread = pthread_self();
		repl_close(r);
		return e;
	}
	log_info("replication", "to %s, %s, rpo %.3f s", r->dest,
		 r->sync ? "synchronous" : "asynchronous",
		 (double)r->rpo_ns / NS_PER_SEC);
	*out = r;
	return 0;
}

/* Whether the batch of request @my may still come: running and not held
 * back, or reconnecting and no try has failed since the request (it asks
 * for one at once; a try under way counts). */
static bool awaiting(struct repl *r, uint64_t my, uint64_t tries)
{
	if (r->shipped >= my || r->quit)
		return false;
	if (r->state == REPL_RECONNECTING)
		return r->tries == tries && r->held_by == repl_link_lost_why;
	return may_ship(r);
}

int repl_await_batch(struct repl *r, uint64_t limit_ns)
{
	repl_watch(r); /* a fault set or cleared just now counts */
	uint64_t end = clock_mono_ns() + limit_ns;
	uint64_t my = ++r->asked, tries = r->tries;
	r->kick = true;
	pthread_cond_signal(&r->wake);
	/* Woken by each batch's end; a fault the thread sees meanwhile is
	 * looked at every WATCH_NS. */
	for (uint64_t now; awaiting(r, my, tries);) {
		now = clock_mono_ns();
		if (limit_ns && now >= end)
			break;
		uint64_t left =
		    limit_ns && end - now < WATCH_NS ? end - now : WATCH_NS;
		struct timespec ts = clock_mono_after(left);
		pthread_cond_timedwait(&r->done, &r->lock, &ts);
	}
	return r->shipped >= my ? 0 : -EIO;
}

/* Wait for the batch asked for now; 0, or why it did not come. */
static int ship_now(struct repl *r, char *err, size_t errlen)
{
	uint64_t id;
	const char *down = repl_fault_now(r, &id);
	if (down) {
		snprintf(err, errlen,
			 "replication sync: a %s fault holds batches back "
			 "(fault %llu: clear it to ship)",
			 down, (unsigned long long)id);
		return -EAGAIN;
	}
	if (!repl_await_batch(r, SYNC_WAIT_NS))
		return 0;
	if (r->state == REPL_RECONNECTING)
		snprintf(err, errlen,
			 "replication sync: the link is lost (%s): "
			 "reconnecting by itself",
			 r->error);
	else if (r->held_by && r->state == REPL_RUNNING)
		snprintf(err, errlen,
			 "replication sync: a %s fault came meanwhile: not "
			 "shipped",
			 r->held_by);
	else if (r->state == REPL_FAILED)
		snprintf(err, errlen, "replication failed: %s", r->error);
	else if (r->state != REPL_RUNNING)
		snprintf(err, errlen, "replication was %s meanwhile",
			 repl_state_names[r->state]);
	else
		snprintf(err, errlen,
			 "replication sync: not shipped within %llu s (still "
			 "running: ask again)",
			 (unsigned long long)(SYNC_WAIT_NS / NS_PER_SEC));
	return -ETIMEDOUT;
}

void repl_close(struct repl *r)
{
	if (!r)
		return;
	store_set_sync_hook(r->src, NULL, NULL);
	/* Not shipped last (paused, failed): freed blocks stay held through
	 * the close's sync, since the replica may still use them. */
	bool shipped = false;
	if (!pthread_equal(r->thread, pthread_self())) {
		char err[512];
		pthread_mutex_lock(&r->lock);
		/* Reconnecting: one try, its waits bounded. */
		bool live =
		    r->state == REPL_RUNNING || r->state == REPL_RECONNECTING;
		if (live && !(shipped = !ship_now(r, err, sizeof(err))))
			log_error("replication", "last batch: %s", err);
		shipped |= r->state == REPL_STOPPED;
		r->quit = true;
		pthread_cond_signal(&r->wake);
		pthread_mutex_unlock(&r->lock);
		/* A batch still waiting on a silent replica ends now (not
		 * shipped: the blocks stay held). */
		repl_link_cancel(&r->link);
		pthread_join(r->thread, NULL);
	}
	if (shipped)
		metastore_hold_pending(r->ms, false);
	repl_link_close(&r->link);
	backing_close(r->backing);
	pthread_cond_destroy(&r->wake);
	pthread_cond_destroy(&r->done);
	pthread_mutex_destroy(&r->lock);
	log_info("replication", "to %s closed", r->dest);
	free(r);
}

static int set_state(struct repl *r, enum repl_state to, char *err,
		     size_t errlen)
{
	static const enum repl_state from[] = {
	    [REPL_RUNNING] = REPL_PAUSED, /* resume */
	    [REPL_PAUSED] = REPL_RUNNING, /* pause */
	};
	if (to == REPL_STOPPED) {
		r->state = REPL_STOPPED;
		while (r->busy) /* its reads must not meet reused blocks */
			pthread_cond_wait(&r->done, &r->lock);
		metastore_hold_pending(r->ms, false);
	} else if (r->state != from[to] &&
		   !(to == REPL_PAUSED && r->state == REPL_RECONNECTING)) {
		snprintf(err, errlen, "replication is %s",
			 repl_state_names[r->state]);
		return -EINVAL;
	} else {
		r->state = to;
	}
	r->kick = to == REPL_RUNNING;
	pthread_cond_signal(&r->wake);
	repl_watch(r); /* a pause is an event now, not at the thread's look */
	log_info("replication", "%s", repl_state_names[r->state]);
	return 0;
}

static int start(struct repl *r, char *err, size_t errlen)
{
	if (r->state == REPL_RUNNING || r->state == REPL_PAUSED ||
	    r->state == REPL_RECONNECTING) {
		snprintf(err, errlen, "replication is already %s",
			 repl_state_names[r->state]);
		return -EALREADY;
	}
	while (r->busy || r->prev) /* the thread forgets the old point */
		pthread_cond_wait(&r->done, &r->lock);
	metastore_hold_pending(r->ms, true);
	r->state = REPL_RUNNING;
	r->error[0] = '\0';
	r->fig.have_point = false;
	r->started_ns = clock_mono_ns();
	r->kick = true;
	pthread_cond_signal(&r->wake);
	log_info("replication", "started: a full batch to %s", r->dest);
	return 0;
}

static int verb(struct repl *r, const char *w, const char *rest, FILE *out,
		char *err, size_t errlen)
{
	if (!strcmp(w, "status") && !*rest) {
		repl_print_text(r, out);
		return 0;
	}
	if (*rest) {
		snprintf(err, errlen, "replication %s: unexpected '%s'", w,
			 rest);
		return -EINVAL;
	}
	if (!strcmp(w, "start"))
		return start(r, err, errlen);
	if (!strcmp(w, "pause"))
		return set_state(r, REPL_PAUSED, err, errlen);
	if (!strcmp(w, "resume"))
		return set_state(r, REPL_RUNNING, err, errlen);
	if (!strcmp(w, "stop"))
		return set_state(r, REPL_STOPPED, err, errlen);
	if (!strcmp(w, "sync")) {
		if (r->state == REPL_RUNNING || r->state == REPL_RECONNECTING)
			return ship_now(r, err, errlen);
		snprintf(err, errlen, "replication is %s%s%s",
			 repl_state_names[r->state], *r->error ? ": " : "",
			 r->error);
		return -EINVAL;
	}
	snprintf(err, errlen,
		 "replication %s: not start, pause, resume, stop, sync or "
		 "status",
		 w);
	return -EINVAL;
}

int repl_control(struct repl *r, const char *args, FILE *out, char *err,
		 size_t errlen)
{
	char w[16] = "";
	args += strspn(args, " ");
	size_t n = strcspn(args, " ");
	if (!n || n >= sizeof(w)) {
		snprintf(err, errlen,
			 "replication: start, pause, resume, stop, sync or "
			 "status");
		return -EINVAL;
	}
	memcpy(w, args, n);
	const char *rest = args + n + strspn(args + n, " ");
	pthread_mutex_lock(&r->lock);
	int e = verb(r, w, rest, out, err, errlen);
	pthread_mutex_unlock(&r->lock);
	return e;
}
