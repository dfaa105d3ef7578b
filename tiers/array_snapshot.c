/* One consistent picture of the array model; see tiers/array_snapshot.h. */
#include "tiers/array_snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "tiers/completer.h"
#include "tiers/engine.h"
#include "tiers/profile_calc.h"

const char *array_tier_name(unsigned tier)
{
	static const char *const names[] = {"flash", "cache", "backing"};

	return tier < PROFILE_TIER_COUNT ? names[tier] : "?";
}

const char *array_drive_state_name(enum model_drive_state st)
{
	static const char *const names[] = {"ok", "slow", "rebuilding",
					    "failed"};

	return st < MODEL_DRIVE_STATES ? names[st] : "?";
}

static void hist_add(struct latency_hist *sum, const struct latency_hist *h)
{
	for (unsigned i = 0; h && i < LATENCY_HIST_BUCKETS; i++) {
		uint64_t n =
		    atomic_load_explicit(&h->bucket[i], memory_order_relaxed);

		if (n)
			atomic_fetch_add_explicit(&sum->bucket[i], n,
						  memory_order_relaxed);
	}
	if (h)
		atomic_fetch_add_explicit(
		    &sum->sum_ns,
		    atomic_load_explicit(&h->sum_ns, memory_order_relaxed),
		    memory_order_relaxed);
}

/* Resource @id of @e into @r: queueing, and which link, controller or
 * drive it is (the kind from its name, as the model gives them). */
static void res_fill(const struct engine *e, const struct profile *p, int id,
		     uint64_t now, struct array_snap_res *r)
{
	struct engine_resource_stats st;
	const char *name = engine_resource_name(e, id);

	engine_resource_stats(e, id, &st);
	snprintf(r->name, sizeof(r->name), "%s", name);
	/* ic<n>.<port>: a node's interconnect port ([nodes]), a link. */
	r->kind = !strncmp(name, "link", 4) || !strncmp(name, "ic", 2)
		      ? ARRAY_RES_LINK
		  : !strncmp(name, "ctl", 3) ? ARRAY_RES_CTL
					     : ARRAY_RES_DRIVE;
	r->slots = engine_resource_slots(e, id);
	r->busy_slots = engine_resource_busy_slots(e, id, now);
	r->queue_ns = st.busy_ns + st.wait_ns;
	r->busy_ns = r->kind == ARRAY_RES_CTL
			 ? profile_cpu_busy_ns(&p->ctl, &st, r->slots)
		     : r->slots ? st.busy_ns / r->slots
				: 0;
	r->gate_ns = st.gate_ns;
	r->wire_ns = st.wire_ns;
}

/* Drive @i of tier @t: its state, and its share of the tier's figures. */
static void drive_fill(const struct model *m, unsigned t, unsigned i,
		       struct array_snapshot *s)
{
	const struct engine *e = model_engine(m);
	int id = model_drive_res(m, t, i);
	struct array_snap_tier *st = &s->tier[t];
	struct array_snap_res *r = &s->res[id];
	struct engine_resource_stats es;
	struct model_drive_view v;

	engine_resource_stats(e, id, &es);
	for (int op = 0; op < ENGINE_OP_COUNT; op++) {
		st->ops[op] += es.ops[op];
		st->bytes[op] += es.bytes[op];
	}
	st->queue_ns += es.busy_ns + es.wait_ns;
	hist_add(&st->hist, engine_resource_hist(e, id));
	model_drive_view(m, t, i, s->now_ns, &v);
	st->in_state[v.state]++;
	st->rebuild_bytes += v.rebuild_bytes;
	st->rebuild_left += v.rebuild_left;
	r->tier = t;
	r->id = i;
	r->state = v.state;
}

/* Under the array's lock: everything at s->now_ns. */
static void fill(void *ctx, const struct model *m, const struct cache *c)
{
	struct array_snapshot *s = ctx;
	const struct profile *p = model_profile(m);
	const struct engine *e = model_engine(m);
	unsigned nodes = p->nodes.count > 1 ? p->nodes.count : 1;

	s->now_ns = clock_mono_ns();
	s->down = model_down(m);
	if (c) {
		s->has_cache = true;
		cache_stats(c, &s->cache);
	}
	s->nctl = p->ctl.count * nodes < 64 ? p->ctl.count * nodes : 64;
	s->npath = model_path_count(m) < 64 ? model_path_count(m) : 64;
	for (unsigned i = 0; i < s->nctl; i++)
		s->ctl_up[i] = model_ctl_up(m, i, s->now_ns);
	for (unsigned i = 0; i < s->npath; i++)
		s->path_up[i] = model_path_up(m, i);
	for (unsigned id = 0; id < s->nres; id++)
		res_fill(e, p, (int)id, s->now_ns, &s->res[id]);
	snprintf(s->cpu_counter, sizeof(s->cpu_counter), "%s",
		 profile_cpu_counter_name(&p->ctl));
	for (unsigned t = 0; t < PROFILE_TIER_COUNT; t++) {
		s->tier[t].present = p->tier[t].present;
		/* Every node's (model_drive_view's ids). */
		s->tier[t].drives =
		    p->tier[t].present ? p->tier[t].drives * nodes : 0;
		for (unsigned i = 0; i < s->tier[t].drives; i++)
			drive_fill(m, t, i, s);
	}
}

/* The host-bound figures (the completer's own lock, not the array's). */
static void host_fill(struct array *a, struct array_snap_host *h)
{
	struct late_totals l;
	struct late_window w;

	if (array_host_bound(a, &l))
		return;
	h->completed = l.completed;
	h->late = l.late;
	h->late_ns = l.late_ns;
	h->worst_ns = l.worst_ns;
	if (!array_host_window(a, 1000000000ull, &w)) {
		h->completed_1s = w.completed;
		h->late_1s = w.late;
		h->worst_1s_ns = w.worst_ns;
	}
	if (!array_host_window(a, 10000000000ull, &w)) {
		h->completed_10s = w.completed;
		h->late_10s = w.late;
		h->worst_10s_ns = w.worst_ns;
	}
}

/* How many resources the engine has (fixed once the model is built). */
static void count_res(void *ctx, const struct engine *e)
{
	*(unsigned *)ctx = e ? engine_resources(e) : 0;
}

int array_snapshot(struct array *a, struct array_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	if (!array_timed(a))
		return 0;
	array_with_engine(a, count_res, &s->nres);
	s->res = calloc(s->nres ? s->nres : 1, sizeof(*s->res));
	if (!s->res) {
		s->nres = 0;
		return -ENOMEM;
	}
	s->timed = true;
	array_with_model(a, fill, s);
	s->in_flight = array_in_flight(a);
	host_fill(a, &s->host);
	return 0;
}

void array_snapshot_free(struct array_snapshot *s)
{
	free(s->res);
	s->res = NULL;
	s->nres = 0;
}
