/* The fault registry: a small array of rules under a mutex, with an atomic
 * count of the rules that operations must look at, so that the common case
 * (no fault) never takes the lock. */
#include "faults/faults.h"

#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/prng.h"
#include "faults/events.h"

struct active_rule {
	struct fault_rule r;
	uint64_t id;
	uint64_t fired;
	uint64_t rng; /* prng_next state */
	/* Hits the log has accounted for (the first one's fault_hit, then
	 * fault_hits), and when it last did: the rest are logged at most
	 * once a second, so a hot rule cannot fill the disk. */
	uint64_t logged;
	uint64_t logged_ns;
};

struct faults {
	pthread_mutex_t lock;
	uint64_t seed;
	uint64_t next_id;
	unsigned n;
	struct active_rule rules[FAULTS_MAX_RULES];
	_Atomic unsigned op_rules;   /* rules faults_check must see */
	_Atomic uint64_t thin_plus1; /* thin limit in blocks + 1; 0: none */
	struct events *events;	     /* rule_done, fault_hits; NULL: nowhere */
};

static bool is_op_rule(const struct fault_rule *r)
{
	return r->kind->on_io != NULL;
}

int faults_new(uint64_t seed, struct faults **out)
{
	struct faults *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	pthread_mutex_init(&f->lock, NULL);
	f->seed = seed;
	f->next_id = 1;
	*out = f;
	return 0;
}

void faults_free(struct faults *f)
{
	if (!f)
		return;
	pthread_mutex_destroy(&f->lock);
	free(f);
}

void faults_set_events(struct faults *f, struct events *ev)
{
	pthread_mutex_lock(&f->lock);
	f->events = ev;
	pthread_mutex_unlock(&f->lock);
}

/* Publish what the lock-free readers look at. */
static void recount(struct faults *f)
{
	unsigned ops = 0;
	uint64_t thin = 0;
	for (unsigned i = 0; i < f->n; i++) {
		ops += is_op_rule(&f->rules[i].r);
		if (f->rules[i].r.kind->on_alloc)
			thin = f->rules[i].r.kind->on_alloc(&f->rules[i].r) + 1;
	}
	atomic_store(&f->op_rules, ops);
	atomic_store(&f->thin_plus1, thin);
}

int faults_add(struct faults *f, const struct fault_rule *r, uint64_t *id)
{
	pthread_mutex_lock(&f->lock);
	int rc = 0;
	for (unsigned i = 0; i < f->n && r->kind->single; i++)
		if (f->rules[i].r.kind == r->kind)
			rc = -EEXIST;
	if (!rc && f->n == FAULTS_MAX_RULES)
		rc = -ENOSPC;
	if (!rc) {
		struct active_rule *a = &f->rules[f->n++];
		*a = (struct active_rule){.r = *r, .id = f->next_id++};
		a->rng = f->seed ^ (a->id * 0xd1b54a32d192ed03ull);
		*id = a->id;
		recount(f);
	}
	pthread_mutex_unlock(&f->lock);
	return rc;
}

/* Log the hits of @a not logged yet as one "fault_hits" event: with the
 * first hit's fault_hit, the hits of a rule's events sum to its fired. */
static void flush_hits(const struct faults *f, struct active_rule *a,
		       uint64_t now_ns)
{
	if (a->fired > a->logged)
		events_emit(f->events, "fault_hits",
			    "\"id\":%llu,\"hits\":%llu,\"total\":%llu",
			    (unsigned long long)a->id,
			    (unsigned long long)(a->fired - a->logged),
			    (unsigned long long)a->fired);
	a->logged = a->fired;
	a->logged_ns = now_ns;
}

void faults_flush(struct faults *f)
{
	uint64_t now = clock_mono_ns();
	pthread_mutex_lock(&f->lock);
	for (unsigned i = 0; i < f->n; i++)
		flush_hits(f, &f->rules[i], now);
	pthread_mutex_unlock(&f->lock);
}

static void remove_at(struct faults *f, unsigned i)
{
	flush_hits(f, &f->rules[i], clock_mono_ns());
	memmove(&f->rules[i], &f->rules[i + 1],
		(f->n - i - 1) * sizeof(f->rules[0]));
	f->n--;
}

int faults_clear(struct faults *f, uint64_t id)
{
	pthread_mutex_lock(&f->lock);
	int rc = id ? -ENOENT : 0;
	for (unsigned i = 0; i < f->n; i++)
		if (!id || f->rules[i].id == id) {
			remove_at(f, i--);
			rc = 0;
		}
	recount(f);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

int faults_get(struct faults *f, uint64_t id, struct fault_rule *out)
{
	int rc = -ENOENT;
	pthread_mutex_lock(&f->lock);
	for (unsigned i = 0; i < f->n && rc; i++)
		if (f->rules[i].id == id) {
			*out = f->rules[i].r;
			rc = 0;
		}
	pthread_mutex_unlock(&f->lock);
	return rc;
}

unsigned faults_ids(struct faults *f, uint64_t *ids, unsigned max)
{
	pthread_mutex_lock(&f->lock);
	unsigned n = f->n < max ? f->n : max;
	for (unsigned i = 0; i < n; i++)
		ids[i] = f->rules[i].id;
	pthread_mutex_unlock(&f->lock);
	return n;
}

void faults_list(struct faults *f, FILE *out)
{
	char buf[FAULT_PATH_MAX + 256];
	pthread_mutex_lock(&f->lock);
	for (unsigned i = 0; i < f->n; i++)
		fprintf(out, "%llu %s fired=%llu\n",
			(unsigned long long)f->rules[i].id,
			fault_rule_format(&f->rules[i].r, buf, sizeof(buf)),
			(unsigned long long)f->rules[i].fired);
	pthread_mutex_unlock(&f->lock);
}

uint64_t faults_active_kind(struct faults *f, const char *name)
{
	uint64_t id = 0;
	pthread_mutex_lock(&f->lock);
	for (unsigned i = 0; i < f->n && !id; i++)
		if (!strcmp(f->rules[i].r.kind->name, name))
			id = f->rules[i].id;
	pthread_mutex_unlock(&f->lock);
	return id;
}

unsigned faults_count(struct faults *f)
{
	pthread_mutex_lock(&f->lock);
	unsigned n = f->n;
	pthread_mutex_unlock(&f->lock);
	return n;
}

bool faults_thin_limit(struct faults *f, uint64_t *blocks)
{
	uint64_t v = atomic_load_explicit(&f->thin_plus1, memory_order_relaxed);
	if (v)
		*blocks = v - 1;
	return v != 0;
}

/* Does rule @a apply to this operation? Draws from its stream only when
 * everything else matches, so unrelated operations do not shift it. */
static bool rule_fires(struct active_rule *a, unsigned op, const char *path)
{
	if (!is_op_rule(&a->r) || !(a->r.ops & op))
		return false;
	if (a->r.count && a->fired >= a->r.count)
		return false;
	if (a->r.path[0] && (!path || fnmatch(a->r.path, path, 0)))
		return false;
	if (a->r.prob < 1 && prng_unit(&a->rng) >= a->r.prob)
		return false;
	a->fired++;
	return true;
}

/* A count=N rule that has just fired its last time is used up: from this
 * hit on it matches nothing, though it stays listed until cleared. The
 * event is stamped now, at its last hit, so that a report ends the rule's
 * period there and not at its clear. */
static void note_done(const struct faults *f, struct active_rule *a)
{
	if (!a->r.count || a->fired != a->r.count)
		return;
	flush_hits(f, a, a->logged_ns);
	events_emit(f->events, "rule_done",
		    "\"id\":%llu,\"hits\":%llu,\"why\":\"count\"",
		    (unsigned long long)a->id, (unsigned long long)a->fired);
}

/* Account for one more hit of @a in the log: the rule's first hit is
 * logged by the caller, in full (hit->log_first), when @a decided the
 * operation; every other one joins the count flushed once a second. */
static void log_fired(const struct faults *f, struct active_rule *a,
		      struct fault_hit *hit, bool decided)
{
	uint64_t now = clock_mono_ns();
	if (a->fired == 1 && decided) {
		hit->log_first = true;
		a->logged = 1;
		a->logged_ns = now;
	} else if (now - a->logged_ns >= NS_PER_SEC) {
		flush_hits(f, a, now);
	}
}

static void apply(const struct active_rule *a, struct fault_hit *hit)
{
	if (!hit->rule_id)
		hit->rule_id = a->id;
	a->r.kind->on_io(&a->r, hit);
}

static bool needs_path(const struct faults *f, unsigned op)
{
	for (unsigned i = 0; i < f->n; i++)
		if (is_op_rule(&f->rules[i].r) && (f->rules[i].r.ops & op) &&
		    f->rules[i].r.path[0])
			return true;
	return false;
}

void faults_check(struct faults *f, unsigned op, fault_path_fn path_fn,
		  void *path_ctx, struct fault_hit *hit)
{
	*hit = (struct fault_hit){0};
	if (!atomic_load_explicit(&f->op_rules, memory_order_relaxed))
		return;
	char path[4096];
	const char *p = NULL;
	pthread_mutex_lock(&f->lock);
	if (needs_path(f, op) && path_fn &&
	    path_fn(path_ctx, path, sizeof(path)))
		p = path;
	for (unsigned i = 0; i < f->n; i++)
		if (rule_fires(&f->rules[i], op, p)) {
			bool decided = !hit->rule_id;
			apply(&f->rules[i], hit);
			log_fired(f, &f->rules[i], hit, decided);
			note_done(f, &f->rules[i]);
		}
	pthread_mutex_unlock(&f->lock);
}
