/* The array model's figures for `arraysim stats --array`: per tier and per
 * resource (front-end link direction, controller, drive), from the
 * engine's per-resource counters and latency histograms, plus the flash
 * cache and the host-bound count.
 *
 * Resources are grouped by the name the model gave them with its index
 * taken off ("flash3" -> tier "flash", "link0.in" -> "link.in"). Rates
 * are averages over the mount's life: ops and bytes / elapsed time; queue
 * depth is Little's law, (time queued + time in service) / elapsed.
 * Latency is arrival to completion at that resource, queueing included.
 *
 * `stats --reset` (array_stats_reset) keeps a copy of every counter and
 * histogram as they stand (struct stats_base, in struct array); the
 * figures printed are then the differences, over the time since. The
 * engine's own counters never go back: the samples and Prometheus take
 * their own differences of them.
 */
#include "tiers/array_stats.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/stats.h"
#include "tiers/array_i.h"
#include "tiers/cache.h"
#include "tiers/completer.h"
#include "tiers/engine.h"
#include "tiers/profile_calc.h"

#define MAX_GROUPS 16

struct group {
	char name[32];
	unsigned members;
	unsigned slots; /* over the members */
	struct engine_resource_stats sum;
	int first; /* a member, for percentiles of the group's first */
};

/* The figures at the last reset: one malloc'd block, n resources. */
struct stats_base {
	uint64_t reset_ns;
	bool late_valid, cache_valid;
	struct late_totals late;
	struct cache_stats cache;
	unsigned n;
	struct engine_resource_stats *st; /* [n] */
	struct latency_hist *hist;	  /* [n] */
};

/* Guards a->stats_base against a reset and a print at once (the control
 * socket may serve several clients). */
static pthread_mutex_t base_lock = PTHREAD_MUTEX_INITIALIZER;

struct printer {
	FILE *out;
	bool json;
	const struct stats_base *base; /* NULL: since the mount */
	const struct profile *p;
	double elapsed_s;
	unsigned ngroups;
	struct group g[MAX_GROUPS];
};

/* "backing12" -> "backing", "link0.in" -> "link.in" */
static void group_name(const char *res, char *out, size_t len)
{
	size_t n = 0;
	for (const char *p = res; *p && n + 1 < len; p++)
		if (!isdigit((unsigned char)*p))
			out[n++] = *p;
	out[n] = '\0';
}

static struct group *group_of(struct printer *pr, const char *res, int id)
{
	char name[32];
	group_name(res, name, sizeof(name));
	for (unsigned i = 0; i < pr->ngroups; i++)
		if (!strcmp(pr->g[i].name, name))
			return &pr->g[i];
	if (pr->ngroups == MAX_GROUPS)
		return NULL;
	struct group *g = &pr->g[pr->ngroups++];
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "%s", name);
	g->first = id;
	return g;
}

static void add(struct engine_resource_stats *sum,
		const struct engine_resource_stats *s)
{
	for (int op = 0; op < ENGINE_OP_COUNT; op++) {
		sum->ops[op] += s->ops[op];
		sum->bytes[op] += s->bytes[op];
	}
	sum->busy_ns += s->busy_ns;
	sum->core_busy_ns += s->core_busy_ns;
	sum->wait_ns += s->wait_ns;
	sum->gate_ns += s->gate_ns;
	sum->wire_ns += s->wire_ns;
}

static void sub(struct engine_resource_stats *s,
		const struct engine_resource_stats *b)
{
	for (int op = 0; op < ENGINE_OP_COUNT; op++) {
		s->ops[op] -= b->ops[op];
		s->bytes[op] -= b->bytes[op];
	}
	s->busy_ns -= b->busy_ns;
	s->core_busy_ns -= b->core_busy_ns;
	s->wait_ns -= b->wait_ns;
	s->gate_ns -= b->gate_ns;
	s->wire_ns -= b->wire_ns;
}

/* Resource @id's counters since the reset. */
static int res_stats(const struct printer *pr, const struct engine *e, int id,
		     struct engine_resource_stats *s)
{
	int rc = engine_resource_stats(e, id, s);

	if (!rc && pr->base && (unsigned)id < pr->base->n)
		sub(s, &pr->base->st[id]);
	return rc;
}

/* Resource @id's latency percentile @pct (ns) since the reset. */
static uint64_t res_latency(const struct printer *pr, const struct engine *e,
			    int id, double pct)
{
	static _Thread_local struct latency_hist d;
	const struct latency_hist *h = engine_resource_hist(e, id);

	if (!h || !pr->base || (unsigned)id >= pr->base->n)
		return engine_resource_latency(e, id, pct);
	for (unsigned i = 0; i < LATENCY_HIST_BUCKETS; i++)
		d.bucket[i] = h->bucket[i] - pr->base->hist[id].bucket[i];
	d.sum_ns = h->sum_ns - pr->base->hist[id].sum_ns;
	return latency_hist_percentile(&d, pct);
}

/* Whether resource (or group) @name is controllers: "ctl3", "ctl",
 * "node2.ctl". */
static bool is_ctl(const char *name)
{
	return !strncmp(name, "ctl", 3) || strstr(name, ".ctl");
}

/* How full @members resources @name of @slots service units were over
 * @el seconds, in %: the fullest of their slots (busy slots / slots; a
 * controller's CPU by the profile's cpu_counter, profile_calc.h), their
 * ops/s gates (a drive's IOPS limit) and their wires (a link's
 * bandwidth), each of which saturates on its own. */
static double busy_pct(const struct printer *pr, const char *name,
		       const struct engine_resource_stats *s, unsigned slots,
		       unsigned members, double el)
{
	double ns = el * 1e9;
	double pct = pr->p && is_ctl(name)
			 ? profile_cpu_share(&pr->p->ctl, s, slots, ns)
		     : slots ? (double)s->busy_ns / ns / slots
			     : 0;
	if (members) {
		double gate = (double)s->gate_ns / ns / members;
		double wire = (double)s->wire_ns / ns / members;
		pct = gate > pct ? gate : pct;
		pct = wire > pct ? wire : pct;
	}
	return 100.0 * pct;
}

static void figures(struct printer *pr, const char *label, const char *name,
		    const struct engine_resource_stats *s, unsigned members,
		    unsigned slots, const struct engine *e, int id, bool last)
{
	double el = pr->elapsed_s > 0 ? pr->elapsed_s : 1e-9;
	double busy = busy_pct(pr, name, s, slots, members, el);
	uint64_t ops = s->ops[0] + s->ops[1], bytes = s->bytes[0] + s->bytes[1];
	double iops = (double)ops / el, mbps = (double)bytes / el / 1e6;
	double qd = (double)(s->busy_ns + s->wait_ns) / 1e9 / el;
	double p50 = (double)res_latency(pr, e, id, 50) / 1e3;
	double p99 = (double)res_latency(pr, e, id, 99) / 1e3;
	double p999 = (double)res_latency(pr, e, id, 99.9) / 1e3;
	if (pr->json) {
		fprintf(pr->out,
			"\"%s\":{\"members\":%u,\"iops\":%.1f,\"mbps\":%.3f,"
			"\"queue_depth\":%.3f,\"busy_pct\":%.1f,"
			"\"latency_us\":{\"p50\":%.1f,"
			"\"p99\":%.1f,\"p999\":%.1f}}%s",
			name, members, iops, mbps, qd, busy, p50, p99, p999,
			last ? "" : ",");
		return;
	}
	fprintf(pr->out,
		"  %-6s %-14s %3u %10.0f %9.2f %7.2f %6.1f %9.1f %9.1f "
		"%9.1f\n",
		label, name, members, iops, mbps, qd, busy, p50, p99, p999);
}

/* The kind of resource that saturates first under this load: the group
 * (all drives of a tier, a controller's cores, a link direction) busiest
 * on average. A group's members share its load, so its average is what
 * adding load would fill. */
static void print_bottleneck(struct printer *pr)
{
	double el = pr->elapsed_s > 0 ? pr->elapsed_s : 1e-9, top = -1;
	const struct group *b = NULL;
	for (unsigned i = 0; i < pr->ngroups; i++) {
		double busy = busy_pct(pr, pr->g[i].name, &pr->g[i].sum,
				       pr->g[i].slots, pr->g[i].members, el);
		if (busy > top) {
			top = busy;
			b = &pr->g[i];
		}
	}
	if (!b)
		return;
	fprintf(pr->out,
		pr->json ? ",\"bottleneck\":{\"resource\":\"%s\","
			   "\"busy_pct\":%.1f}"
			 : "  bottleneck: %s, %.1f%% busy (the resource that "
			   "saturates first as load grows)\n",
		b->name, top);
}

/* Several nodes ([nodes]): each node's controllers together, its CPU
 * utilisation (busy cores / cores) as "node<n>.ctl". */
static void print_nodes(struct printer *pr, const struct engine *e)
{
	const struct profile *p = pr->p;
	unsigned nodes = p && p->nodes.count > 1 ? p->nodes.count : 0;

	if (!nodes)
		return;
	if (pr->json)
		fputs(",\"nodes\":{", pr->out);
	for (unsigned n = 0; n < nodes; n++) {
		struct engine_resource_stats sum = {0}, s;
		unsigned slots = 0, k;
		int first = -1;
		char name[32];

		for (unsigned id = 0; id < engine_resources(e); id++) {
			if (sscanf(engine_resource_name(e, (int)id), "ctl%u",
				   &k) != 1 ||
			    k / p->ctl.count != n ||
			    res_stats(pr, e, (int)id, &s))
				continue;
			add(&sum, &s);
			slots += engine_resource_slots(e, (int)id);
			first = first < 0 ? (int)id : first;
		}
		snprintf(name, sizeof(name), "node%u.ctl", n);
		figures(pr, "node", name, &sum, p->ctl.count, slots, e, first,
			n + 1 == nodes);
	}
	if (pr->json)
		fputc('}', pr->out);
}

static void print_resources(void *ctx, const struct engine *e)
{
	struct printer *pr = ctx;
	if (!e)
		return;
	unsigned n = engine_resources(e);
	for (unsigned id = 0; id < n; id++) {
		struct engine_resource_stats s;
		const char *name = engine_resource_name(e, (int)id);
		struct group *g = group_of(pr, name, (int)id);
		if (res_stats(pr, e, (int)id, &s) || !g)
			continue;
		add(&g->sum, &s);
		g->members++;
		g->slots += engine_resource_slots(e, (int)id);
	}
	/* Per tier (group): summed counters; latency of its first member,
	 * as the members of a group are alike. */
	if (pr->json)
		fputs(",\"tiers\":{", pr->out);
	else
		fprintf(pr->out,
			"  %-6s %-14s %3s %10s %9s %7s %6s %9s %9s %9s\n", "",
			"resource", "n", "IOPS", "MB/s", "QD", "busy%",
			"p50 us", "p99 us", "p99.9 us");
	for (unsigned i = 0; i < pr->ngroups; i++)
		figures(pr, "all", pr->g[i].name, &pr->g[i].sum,
			pr->g[i].members, pr->g[i].slots, e, pr->g[i].first,
			i + 1 == pr->ngroups);
	if (pr->json)
		fputs("},\"resources\":{", pr->out);
	for (unsigned id = 0; id < n; id++) {
		struct engine_resource_stats s;
		res_stats(pr, e, (int)id, &s);
		figures(pr, "", engine_resource_name(e, (int)id), &s, 1,
			engine_resource_slots(e, (int)id), e, (int)id,
			id + 1 == n);
	}
	if (pr->json)
		fputc('}', pr->out);
	print_nodes(pr, e);
	print_bottleneck(pr);
}

/* Reduction at destage and the write throttle, when the profile has
 * either (so that other profiles print as before): the reduction's CPU
 * as a share of all controllers' cores, what it left for the backing
 * tier, and the writes the throttle delayed. */
static void print_destage(struct printer *pr, const struct cache_stats *cs,
			  double el)
{
	const struct profile *p = pr->p;
	unsigned nodes = p->nodes.count > 1 ? p->nodes.count : 1;
	double cores = (double)nodes * p->ctl.count * p->ctl.cores;
	bool reduce =
	    p->dedupe.enabled && p->dedupe.reduce_at == PROFILE_REDUCE_DESTAGE;

	if (!reduce && !(p->cache.throttle_start_pct > 0.0))
		return;
	fprintf(pr->out,
		pr->json ? ",\"destage\":{\"reduce_cpu_s\":%.6f,"
			   "\"reduce_cpu_pct\":%.4f,\"reduce_kept_bytes\":%llu,"
			   "\"throttled_writes\":%llu,\"throttle_s\":%.6f}"
			 : "  destage: reduction CPU %.3f s (%.2f%% of all "
			   "cores), %llu bytes kept; throttle: %llu writes "
			   "delayed, %.3f s in all\n",
		(double)cs->reduce_cpu_ns / 1e9,
		(double)cs->reduce_cpu_ns / 1e9 / el / cores * 100.0,
		(unsigned long long)cs->reduce_kept_bytes,
		(unsigned long long)cs->throttled,
		(double)cs->throttle_ns / 1e9);
}

static void print_cache(struct printer *pr, struct array *a)
{
	struct cache_stats cs;
	if (array_cache_stats(a, &cs))
		return;
	if (pr->base && pr->base->cache_valid) {
		cs.hits -= pr->base->cache.hits;
		cs.misses -= pr->base->cache.misses;
		cs.evictions -= pr->base->cache.evictions;
		cs.dirty_evictions -= pr->base->cache.dirty_evictions;
		cs.destaged -= pr->base->cache.destaged;
		cs.reduce_cpu_ns -= pr->base->cache.reduce_cpu_ns;
		cs.reduce_kept_bytes -= pr->base->cache.reduce_kept_bytes;
		cs.throttled -= pr->base->cache.throttled;
		cs.throttle_ns -= pr->base->cache.throttle_ns;
	}
	uint64_t lookups = cs.hits + cs.misses;
	double hit = lookups ? (double)cs.hits / (double)lookups : 0;
	double el = pr->elapsed_s > 0 ? pr->elapsed_s : 1e-9;
	fprintf(pr->out,
		pr->json
		    ? ",\"cache\":{\"hit_ratio\":%.4f,\"resident\":%llu,"
		      "\"dirty\":%llu,\"destaged\":%llu,"
		      "\"destage_blocks_per_s\":%.1f,\"evictions\":%llu}"
		    : "  cache: hit ratio %.4f, resident %llu, dirty %llu, "
		      "destaged %llu (%.1f blocks/s), evictions %llu\n",
		hit, (unsigned long long)cs.resident,
		(unsigned long long)cs.dirty, (unsigned long long)cs.destaged,
		(double)cs.destaged / el, (unsigned long long)cs.evictions);
	print_destage(pr, &cs, el);
}

static void print_host_bound(struct printer *pr, struct array *a)
{
	struct late_totals l;
	if (array_host_bound(a, &l))
		return;
	if (pr->base && pr->base->late_valid) {
		l.completed -= pr->base->late.completed;
		l.late -= pr->base->late.late;
		l.late_ns -= pr->base->late.late_ns;
	}
	fprintf(pr->out,
		pr->json ? ",\"host_bound\":{\"completed\":%llu,\"late\":%llu,"
			   "\"late_s\":%.3f}"
			 : "  host-bound: %llu of %llu replies late (%.3f s in "
			   "all): the host could not keep the model's pace\n",
		(unsigned long long)l.late, (unsigned long long)l.completed,
		(double)l.late_ns / 1e9);
}

/* The figures counted from @base (NULL: the mount), over @elapsed_s
 * (locked). */
static void print_from(struct array *a, FILE *out, bool json,
		       const struct stats_base *base, double elapsed_s)
{
	struct printer pr = {.out = out,
			     .json = json,
			     .elapsed_s = elapsed_s,
			     .base = base,
			     .p = a->profile};
	fputs(json ? "{\"timed\":true,\"elapsed_s\":" : "array: ", out);
	fprintf(out, json ? "%.3f" : "figures over %.3f s\n", pr.elapsed_s);
	/* Which CPU figure a controller's busy% is (profile_calc.h). */
	if (a->profile)
		fprintf(out,
			json ? ",\"cpu_counter\":\"%s\""
			     : "  controllers' busy%%: cpu (%s)\n",
			profile_cpu_counter_name(&a->profile->ctl));
	array_with_engine(a, print_resources, &pr);
	print_cache(&pr, a);
	print_host_bound(&pr, a);
	if (json)
		fputs("}\n", out);
}

static bool print_untimed(struct array *a, FILE *out, bool json)
{
	if (array_timed(a))
		return false;
	fputs(json ? "{\"timed\":false}\n"
		   : "array: null profile (no timing)\n",
	      out);
	return true;
}

void array_stats_print(struct array *a, FILE *out, bool json,
		       uint64_t elapsed_ns)
{
	if (print_untimed(a, out, json))
		return;
	pthread_mutex_lock(&base_lock);
	const struct stats_base *base = a->stats_base;
	double elapsed_s = (double)elapsed_ns / 1e9;
	if (base && clock_mono_ns() - base->reset_ns < elapsed_ns)
		elapsed_s = (double)(clock_mono_ns() - base->reset_ns) / 1e9;
	print_from(a, out, json, base, elapsed_s);
	pthread_mutex_unlock(&base_lock);
}

int array_stats_print_since_mark(struct array *a, FILE *out, bool json)
{
	if (print_untimed(a, out, json))
		return 0;
	pthread_mutex_lock(&base_lock);
	const struct stats_base *base = a->mark_base;
	if (base)
		print_from(a, out, json, base,
			   (double)(clock_mono_ns() - base->reset_ns) / 1e9);
	pthread_mutex_unlock(&base_lock);
	return base ? 0 : -ENOENT;
}

struct reset_ctx {
	struct stats_base *base;
};

/* Copy every resource's counters and histogram (under the array's
 * lock): the new base, or NULL without memory. */
static void take_base(void *ctx, const struct engine *e)
{
	struct reset_ctx *rc = ctx;
	unsigned n = e ? engine_resources(e) : 0;
	struct stats_base *b =
	    malloc(sizeof(*b) + n * sizeof(*b->st) + n * sizeof(*b->hist));

	if (!b)
		return;
	memset(b, 0, sizeof(*b));
	b->n = n;
	b->st = (struct engine_resource_stats *)(b + 1);
	b->hist = (struct latency_hist *)(b->st + n);
	for (unsigned id = 0; id < n; id++) {
		const struct latency_hist *h = engine_resource_hist(e, (int)id);

		engine_resource_stats(e, (int)id, &b->st[id]);
		for (unsigned i = 0; i < LATENCY_HIST_BUCKETS; i++)
			b->hist[id].bucket[i] = h->bucket[i];
		b->hist[id].sum_ns = h->sum_ns;
	}
	b->reset_ns = clock_mono_ns();
	rc->base = b;
}

/* The figures as they stand, into *@slot (the old ones freed). */
static void take_into(struct array *a, void **slot)
{
	struct reset_ctx rc = {0};
	void *old;

	if (!array_timed(a))
		return;
	array_with_engine(a, take_base, &rc);
	if (!rc.base)
		return; /* no memory: the figures keep counting from before */
	rc.base->late_valid = !array_host_bound(a, &rc.base->late);
	rc.base->cache_valid = !array_cache_stats(a, &rc.base->cache);
	pthread_mutex_lock(&base_lock);
	old = *slot;
	*slot = rc.base;
	pthread_mutex_unlock(&base_lock);
	free(old);
}

void array_stats_reset(struct array *a)
{
	take_into(a, &a->stats_base);
}

void array_stats_mark(struct array *a)
{
	take_into(a, &a->mark_base);
}
