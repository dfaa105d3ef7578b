/* The array kinds' shared part; see faults/array_fault.h. */
#include "faults/array_fault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "faults/events.h"

int fault_array_check(const struct fault_rule *r, unsigned seen, char *err,
		      size_t errlen)
{
	if (seen & FAULT_KEY_ID)
		return 0;
	snprintf(err, errlen, "%s needs id=N", fault_kind_name(r->kind));
	return -EINVAL;
}

static struct fault_array array_of(const struct fault_rule *r,
				   enum fault_array_kind kind)
{
	return (struct fault_array){
	    .kind = kind, .tier = r->tier, .id = r->id, .factor = r->factor};
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* A transition the model fixed at a change, logged live when it comes.
 * Dropped when a later change moved or cancelled it, or when the mount
 * ends first. */
struct mark {
	struct fault_timer timer; /* first: the hook hands this back */
	struct fault_env env;
	uint64_t id, due_ns, key_ns;
	struct fault_array f;
	enum fault_array_mark what;
	const char *event;
	unsigned pct;		/* rebuild_progress */
	bool until_drives_done; /* rebuild_end: when the drives finish */
};

#define MARK_SLACK_NS 1000000ull /* a timer this close is on time */
/* Re-ask a rebuild's end at most this often. */
#define MARK_STEP_NS 10000000ull

/* A rebuild's end mark fires at the planned end; the drives may finish
 * later under load. Re-arm @k at their end (or, while chunks remain, at
 * the soonest they can end). true: re-armed, not due yet. */
static bool rebuild_later(struct mark *k)
{
	const struct fault_hooks *h = k->env.hooks;
	uint64_t end_ns = 0;
	int r = h->rebuild_end
		    ? h->rebuild_end(k->env.ctx, &k->f, k->key_ns, &end_ns)
		    : -ENOSYS;

	if (r == 0 && end_ns <= k->due_ns + MARK_SLACK_NS)
		return false;
	if (r != 0 && r != -EAGAIN)
		return false;
	k->due_ns = end_ns > k->due_ns + MARK_STEP_NS
			? end_ns
			: k->due_ns + MARK_STEP_NS;
	return h->timer(k->env.ctx, k->due_ns, &k->timer) == 0;
}

static void mark_fire(struct fault_timer *t)
{
	struct mark *k = (struct mark *)t;
	const struct fault_env *env = &k->env;

	/* Early only when the mount ends (the timers are flushed). */
	if (clock_mono_ns() + MARK_SLACK_NS < k->due_ns ||
	    !env->hooks->array_current(env->ctx, &k->f, k->what, k->key_ns)) {
		free(k);
		return;
	}
	if (k->until_drives_done && rebuild_later(k))
		return;
	if (k->pct)
		events_emit(env->events, k->event, "\"id\":%llu,\"pct\":%u",
			    (unsigned long long)k->id, k->pct);
	else
		events_emit(env->events, k->event, "\"id\":%llu",
			    (unsigned long long)k->id);
	free(k);
}

static void mark_at(const struct fault_env *env, uint64_t id,
		    const struct fault_array *f, enum fault_array_mark what,
		    uint64_t key_ns, uint64_t due_ns, const char *event,
		    unsigned pct)
{
	struct mark *k = calloc(1, sizeof(*k));

	if (!k)
		return; /* the schedule was logged already */
	*k = (struct mark){.env = *env,
			   .id = id,
			   .due_ns = due_ns,
			   .key_ns = key_ns,
			   .f = *f,
			   .what = what,
			   .event = event,
			   .pct = pct,
			   .until_drives_done = !strcmp(event, "rebuild_end") ||
						!strcmp(event, "resync_end")};
	k->timer.fire = mark_fire;
	if (env->hooks->timer(env->ctx, due_ns, &k->timer))
		free(k);
}

/* The live events of effect @e: stall_end, serving_again, noticed,
 * rebuild_progress every 10%, rebuild_end (a node's resync:
 * resync_progress, resync_end). */
static void mark_effects(const struct fault_env *env, uint64_t id,
			 const struct fault_array *f,
			 const struct fault_array_effect *e)
{
	if (e->stall_until)
		mark_at(env, id, f, FAULT_MARK_STALL, e->stall_until,
			e->stall_until, "stall_end", 0);
	if (e->serves_ns)
		mark_at(env, id, f, FAULT_MARK_SERVES, e->serves_ns,
			e->serves_ns, "serving_again", 0);
	if (!e->rebuild_bytes)
		return;
	if (!e->resync)
		mark_at(env, id, f, FAULT_MARK_DRIVE, e->fail_ns, e->fail_ns,
			"noticed", 0);
	for (unsigned pct = 10; pct < 100; pct += 10)
		mark_at(
		    env, id, f, FAULT_MARK_DRIVE, e->fail_ns,
		    e->fail_ns + (e->rebuild_end_ns - e->fail_ns) / 100 * pct,
		    e->resync ? "resync_progress" : "rebuild_progress", pct);
	mark_at(env, id, f, FAULT_MARK_DRIVE, e->fail_ns, e->rebuild_end_ns,
		e->resync ? "resync_end" : "rebuild_end", 0);
}

/* Seconds from @now to @at, 0 when @at is not after @now: the model's
 * times can lie before the change (a stall an earlier change began), and
 * an unsigned difference would wrap to 1.8e10 s. */
static double secs_after(uint64_t at, uint64_t now)
{
	return at > now ? secs(at - now) : 0;
}

/* What the model said the change does, as events: times are seconds
 * from this event, which the model fixed at the change.
 *
 *   stall  in_s: until I/O starts to wait; 0 when the stall is under way
 *          already (it overlaps one an earlier change began, or starts
 *          now). lasts_s: from the later of the event and the stall's
 *          start to its end, so t + in_s + lasts_s is always when I/O
 *          moves again, whichever change began the stall.
 *   serving, recovering, rebuild: in_s / serves_in_s likewise never
 *          below 0.
 */
static void emit_effects(struct events *ev, uint64_t id, uint64_t now,
			 const struct fault_array_effect *e)
{
	if (e->stall_until) {
		uint64_t from = e->stall_from > now ? e->stall_from : now;
		events_emit(ev, "stall",
			    "\"id\":%llu,\"in_s\":%.6f,\"lasts_s\":%.6f",
			    (unsigned long long)id, secs_after(from, now),
			    secs_after(e->stall_until, from));
	}
	if (e->down_changed)
		events_emit(ev, e->down ? "shutdown" : "online", "\"id\":%llu",
			    (unsigned long long)id);
	if (e->serving)
		events_emit(
		    ev, "serving", "\"id\":%llu,\"serving\":%u,\"in_s\":%.6f",
		    (unsigned long long)id, e->serving,
		    e->stall_until ? secs_after(e->stall_until, now) : 0);
	if (e->serves_ns)
		events_emit(
		    ev, "recovering", "\"id\":%llu,\"serves_in_s\":%.6f",
		    (unsigned long long)id, secs_after(e->serves_ns, now));
	if (e->rebuild_bytes)
		events_emit(ev, e->resync ? "resync" : "rebuild",
			    "\"id\":%llu,\"in_s\":%.6f,\"lasts_s\":%.6f,"
			    "\"bytes\":%llu",
			    (unsigned long long)id, secs_after(e->fail_ns, now),
			    secs_after(e->rebuild_end_ns, e->fail_ns),
			    (unsigned long long)e->rebuild_bytes);
	if (e->unnoticed)
		events_emit(ev, "unnoticed",
			    "\"id\":%llu,\"why\":\"back within the "
			    "detection window\"",
			    (unsigned long long)id);
}

/* Set or clear array fault @r (rule @id); *loss: the loss event it
 * caused (0: none). */
static int change(const struct fault_env *env, const struct fault_rule *r,
		  enum fault_array_kind kind, uint64_t id, bool on,
		  unsigned *loss, char *err, size_t errlen)
{
	struct fault_array f = array_of(r, kind);
	struct fault_array_effect e = {0};
	uint64_t now = 0;
	int rc = env->hooks->array_set(env->ctx, &f, on, &now, &e, err, errlen);

	if (!rc) {
		emit_effects(env->events, id, now, &e);
		mark_effects(env, id, &f, &e);
	}
	*loss = rc ? 0 : e.loss;
	return rc;
}

int fault_array_inject(const struct fault_env *env, const struct fault_rule *r,
		       enum fault_array_kind kind, uint64_t id, unsigned *loss,
		       char *err, size_t errlen)
{
	return change(env, r, kind, id, true, loss, err, errlen);
}

void fault_array_clear(const struct fault_env *env, const struct fault_rule *r,
		       enum fault_array_kind kind, uint64_t id)
{
	char err[256];
	unsigned loss;

	events_emit(env->events, "restore", "\"id\":%llu",
		    (unsigned long long)id);
	if (change(env, r, kind, id, false, &loss, err, sizeof(err)))
		log_warn("faults", "restoring %llu: %s", (unsigned long long)id,
			 err);
}
