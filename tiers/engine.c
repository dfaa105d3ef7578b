/* The timing engine: a queueing model solved one request at a time.
 *
 * What is modelled. A request walks an ordered list of stages; each stage
 * is served by one resource (link, controller, drive):
 *
 *   arrive ──> wait for the earliest-free slot ──> ops/s gate ──> service
 *          ──> wait for the wire ──> transfer (bytes / bandwidth) ──> end
 *                                                                     │
 *   the next stage arrives at the end of this one  <──────────────────┘
 *
 *   slots      P parallel service units; a stage takes the slot where
 *              it can start first (of those free at its arrival, the
 *              one freed last) and holds it through service and
 *              transfer;
 *   service    per op kind: fixed, or sampled from percentile points
 *              (inverse CDF, one seeded prng_next stream per resource),
 *              or from the conf's position_ns hook (an HDD, drive_hdd.c:
 *              overhead + seek(distance) + half a rotation);
 *              plus the stage's own work_ns (a controller's CPU cost);
 *   ops/s cap  a gate spacing operation starts 1/cap apart (all slots),
 *              plus bytes / gate rate where one is set: a drive's cost
 *              per command and per byte of its media, which add up;
 *   bandwidth  one wire per resource shared by all slots: transfers are
 *              serialised on it and take bytes / bandwidth.
 *   Each slot, the gate and the wire keep a calendar of booked
 *   intervals: a stage takes the first gap that fits at or after its
 *   arrival, so bookings made ahead (a RAID write's second phase, which
 *   waits for reads on other drives) do not hold up stages that arrive
 *   before them, and a drive is not left idle in front of one.
 *
 * What is not. No preemption or priorities; no reordering (NCQ, elevator):
 * stages are granted slots, the gate and the wire in submission order,
 * so FIFO holds when requests are submitted in non-decreasing arrival
 * time (the data path does; a later stage of an earlier request may
 * still be granted before an earlier stage of a later one). A stage the
 * gate or the wire holds up past the gap its slot had may overlap the
 * slot's next booking (the slot calendar merges them). Reads and writes
 * share one wire: a full-duplex link is two resources (tiers/model.c).
 * Caches, RAID and
 * tier residency are the callers' business: they choose the stages.
 *
 * Why closed form per request instead of an event loop. Because grants
 * follow submission order, a request's completion time depends only on
 * state that is final when it is submitted (the slots', the wire's and
 * the gate's calendars, the head position). So engine_submit() can
 * return the completion time at once, in O(stages x slots), and the caller
 * hands it to the completer thread: no event queue, no simulated clock to
 * advance, no thread of its own, and results are a pure function of the
 * seed and the submission sequence (the --seed guarantee).
 */
#include "tiers/engine.h"

#include "common/clock.h"
#include "common/stats.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Busy intervals of a serial resource (a slot, a wire, the ops/s gate),
 * sorted and disjoint. A stage books the first gap that fits at or
 * after its arrival, so work booked ahead of time (the second phase of
 * a RAID write, a background destage) leaves the time before it to
 * stages that arrive earlier. At cap intervals the two earliest merge:
 * the gap between them is lost, which only delays (never overlaps) a
 * later booking. A slot keeps fewer than a wire: one drive rarely has
 * many bookings ahead, and a resource may have a thousand slots. */
#define CAL_MAX 32
#define SLOT_CAL_MAX 8

struct calendar {
	unsigned n, cap;
	uint64_t *start, *end; /* cap each */
};

struct resource {
	struct engine_resource_conf conf; /* conf.name points at name */
	char *name;
	struct calendar *slot; /* conf.slots of them */
	uint64_t *cal_mem;     /* the intervals of all the calendars */
	struct calendar wire;  /* transfers booked on the wire */
	struct calendar gate;  /* operation starts, 1/cap apart */
	uint64_t head_bytes;   /* HDD: where the previous operation ended */
	uint64_t rng;	       /* this resource's service-time stream */
	double slow;	       /* service-time multiplier (fail-slow) */
	struct engine_resource_stats stats;
	struct latency_hist latency; /* arrival to end, per operation */
};

struct engine {
	uint64_t seed;
	struct resource *res;
	unsigned n_res;
};

/* ---- distributions ---------------------------------------------------- */

int engine_dist_check(const struct engine_dist *d)
{
	if (d->n_points > ENGINE_DIST_MAX_POINTS)
		return -EINVAL;
	for (unsigned i = 0; i < d->n_points; i++) {
		const struct engine_dist_point *p = &d->points[i];

		if (!(p->pct >= 0.0 && p->pct <= 100.0))
			return -EINVAL;
		/* Strictly ascending pct keeps the interpolation finite. */
		if (i > 0 && (p->pct <= p[-1].pct || p->ns < p[-1].ns))
			return -EINVAL;
	}
	return 0;
}

uint64_t engine_dist_sample(const struct engine_dist *d, uint64_t *r)
{
	const struct engine_dist_point *pt = d->points;
	double pct;
	unsigned i;

	if (d->n_points == 0)
		return d->fixed_ns;
	pct = prng_unit(r) * 100.0;
	for (i = 0; i < d->n_points && pt[i].pct < pct; i++)
		;
	if (i == 0)
		return pt[0].ns;
	if (i == d->n_points)
		return pt[i - 1].ns;
	/* pt[i-1].pct < pct <= pt[i].pct: interpolate linearly. */
	return pt[i - 1].ns +
	       (uint64_t)(0.5 + (double)(pt[i].ns - pt[i - 1].ns) *
				    (pct - pt[i - 1].pct) /
				    (pt[i].pct - pt[i - 1].pct));
}

/* ---- engine ------------------------------------------------------------- */

int engine_new(uint64_t seed, struct engine **out)
{
	struct engine *e = calloc(1, sizeof(*e));

	*out = NULL;
	if (!e)
		return -ENOMEM;
	e->seed = seed;
	*out = e;
	return 0;
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	for (unsigned i = 0; i < e->n_res; i++) {
		free(e->res[i].name);
		free(e->res[i].slot);
		free(e->res[i].cal_mem);
	}
	free(e->res);
	free(e);
}

static int conf_check(const struct engine_resource_conf *c)
{
	if (c->slots == 0)
		return -EINVAL;
	if (c->threads > 1 &&
	    (c->threads > ENGINE_MAX_THREADS || c->slots % c->threads ||
	     !(c->smt_yield >= 1.0 && c->smt_yield <= c->threads)))
		return -EINVAL;
	for (int op = 0; op < ENGINE_OP_COUNT; op++)
		if (engine_dist_check(&c->service[op]) < 0)
			return -EINVAL;
	if (c->position_ns && (c->hdd.rpm == 0 || c->hdd.span_bytes == 0 ||
			       c->hdd.full_seek_ns < c->hdd.track_seek_ns))
		return -EINVAL;
	return 0;
}

/* Point @c at @n intervals of @mem; returns the memory after them. */
static uint64_t *cal_init(struct calendar *c, unsigned cap, uint64_t *mem)
{
	c->n = 0;
	c->cap = cap;
	c->start = mem;
	c->end = mem + cap;
	return mem + 2 * cap;
}

static int calendars_new(struct resource *r)
{
	unsigned slots = r->conf.slots;
	uint64_t *mem;

	r->slot = calloc(slots, sizeof(*r->slot));
	r->cal_mem =
	    calloc(2 * (2 * (size_t)CAL_MAX + (size_t)slots * SLOT_CAL_MAX),
		   sizeof(*r->cal_mem));
	if (!r->slot || !r->cal_mem)
		return -ENOMEM;
	mem = cal_init(&r->wire, CAL_MAX, r->cal_mem);
	mem = cal_init(&r->gate, CAL_MAX, mem);
	for (unsigned i = 0; i < slots; i++)
		mem = cal_init(&r->slot[i], SLOT_CAL_MAX, mem);
	return 0;
}

int engine_add_resource(struct engine *e,
			const struct engine_resource_conf *conf)
{
	struct resource *grown, *r;
	uint64_t mix;
	int rc;

	rc = conf_check(conf);
	if (rc < 0)
		return rc;
	grown = realloc(e->res, (e->n_res + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	e->res = grown;
	r = &e->res[e->n_res];
	memset(r, 0, sizeof(*r));
	r->conf = *conf;
	if (r->conf.threads < 2) {
		r->conf.threads = 1;
		r->conf.smt_yield = 1.0;
	}
	r->name = strdup(conf->name ? conf->name : "");
	if (!r->name || calendars_new(r))
		goto out_free_res;
	r->conf.name = r->name;
	r->slow = 1.0;
	/* A stream per resource, derived from (seed, id): one drive's
	 * latencies do not shift when another resource draws more samples. */
	mix = e->seed ^ (0x6a09e667f3bcc909ull * (e->n_res + 1));
	r->rng = prng_next(&mix);
	return (int)e->n_res++;

out_free_res:
	free(r->name);
	free(r->slot);
	free(r->cal_mem);
	return -ENOMEM;
}

/* Make room: the two earliest intervals become one (struct calendar). */
static void cal_merge_first(struct calendar *c)
{
	c->end[0] = c->end[1] > c->end[0] ? c->end[1] : c->end[0];
	memmove(&c->start[1], &c->start[2], (c->cap - 2) * sizeof(c->start[0]));
	memmove(&c->end[1], &c->end[2], (c->cap - 2) * sizeof(c->end[0]));
	c->n--;
}

/* The first gap of @c at or after @at_ns that holds @dur_ns: its start,
 * and in @*index the interval it comes before. */
static uint64_t cal_fit(const struct calendar *c, uint64_t at_ns,
			uint64_t dur_ns, unsigned *index)
{
	uint64_t t = at_ns;
	unsigned i;

	for (i = 0; i < c->n; i++) {
		if (c->end[i] <= t)
			continue; /* wholly before */
		if (c->start[i] >= t + dur_ns)
			break; /* fits in the gap before interval i */
		t = c->end[i];
	}
	*index = i;
	return t;
}

/* Put [start, end) into @c before interval @i; should it run into the
 * intervals after (a stage held up past its gap), they become one. */
static void cal_insert(struct calendar *c, unsigned i, uint64_t start,
		       uint64_t end)
{
	unsigned last = i;

	while (last < c->n && c->start[last] < end) {
		if (c->end[last] > end)
			end = c->end[last];
		last++;
	}
	/* Intervals i .. last-1 are swallowed; one takes their place. */
	memmove(&c->start[i + 1], &c->start[last],
		(c->n - last) * sizeof(c->start[0]));
	memmove(&c->end[i + 1], &c->end[last],
		(c->n - last) * sizeof(c->end[0]));
	c->n = c->n - (last - i) + 1;
	c->start[i] = start;
	c->end[i] = end;
}

/* Book @dur_ns on @c at the first gap at or after @at_ns; its start. */
static uint64_t cal_book(struct calendar *c, uint64_t at_ns, uint64_t dur_ns)
{
	unsigned i;
	uint64_t t;

	if (c->n == c->cap)
		cal_merge_first(c);
	t = cal_fit(c, at_ns, dur_ns, &i);
	cal_insert(c, i, t, t + dur_ns);
	return t;
}

/* When @c is next free after its last booking. */
static uint64_t cal_free_ns(const struct calendar *c)
{
	return c->n ? c->end[c->n - 1] : 0;
}

/* The slot for a stage arriving at @arrive_ns that holds it @dur_ns:
 * the one whose calendar fits it first; of those fitting it on arrival,
 * the one whose previous booking ended last (best fit: a gap open
 * since long ago stays for a stage that arrives earlier but is
 * submitted later). Its start in @*start_ns, the interval it goes
 * before in @*index. */
static unsigned slot_pick(struct resource *r, uint64_t arrive_ns,
			  uint64_t dur_ns, uint64_t *start_ns, unsigned *index)
{
	unsigned best = 0;
	uint64_t best_prev = 0;

	*start_ns = UINT64_MAX;
	*index = 0;
	for (unsigned s = 0; s < r->conf.slots; s++) {
		struct calendar *c = &r->slot[s];
		uint64_t t, prev;
		unsigned i;

		if (c->n == c->cap)
			cal_merge_first(c);
		t = cal_fit(c, arrive_ns, dur_ns, &i);
		prev = i ? c->end[i - 1] : 0;
		if (t < *start_ns || (t == *start_ns && prev > best_prev)) {
			best = s;
			best_prev = prev;
			*start_ns = t;
			*index = i;
		}
	}
	return best;
}

/* ---- SMT (conf.threads > 1) ---------------------------------------------
 *
 * A core's threads are slots s, s + cores, s + 2 cores, ...; each busy
 * thread of a core with k busy does 1/k of what the core does, which
 * grows linearly from one thread's work (k = 1) to smt_yield times it
 * (k = threads). The engine books a stage's whole hold when it is
 * submitted, so the rule is applied then: a stage whose core has k - 1
 * other threads with work booked over its hold is stretched by k / (1 +
 * (smt_yield - 1)(k - 1)/(threads - 1)); the work already booked on
 * those threads keeps its length (no preemption: the engine's closed
 * form cannot change a booking). Under a steady load every booking is
 * made beside the others, so a saturated core does smt_yield times one
 * thread's work; below it, a stage takes an idle core's thread first
 * when one can start as early (spread first, as ESXi's scheduler does).
 */

static unsigned res_cores(const struct resource *r)
{
	return r->conf.slots / r->conf.threads;
}

/* Whether calendar @c has work booked in [@a, @b). */
static bool cal_busy(const struct calendar *c, uint64_t a, uint64_t b)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->start[i] < b && c->end[i] > a)
			return true;
	return false;
}

/* How many of slot @s's core's other threads have work in [@a, @b). */
static unsigned siblings_busy(const struct resource *r, unsigned s, uint64_t a,
			      uint64_t b)
{
	unsigned n = 0;

	for (unsigned k = 1; k < r->conf.threads; k++)
		n += cal_busy(&r->slot[(s + k * res_cores(r)) % r->conf.slots],
			      a, b);
	return n;
}

/* @ns of one thread's work with @others of its core's threads busy. */
static uint64_t smt_stretch(const struct engine_resource_conf *c,
			    unsigned others, uint64_t ns)
{
	double core;

	if (!others)
		return ns;
	core = 1.0 + (c->smt_yield - 1.0) * others / (c->threads - 1.0);
	return (uint64_t)((double)ns * (others + 1.0) / core + 0.5);
}

/* The time in [@a, @b) at least one of slot @s's core's other threads
 * is busy: the overlap with the union of their bookings. */
static uint64_t siblings_overlap(const struct resource *r, unsigned s,
				 uint64_t a, uint64_t b)
{
	uint64_t st[ENGINE_MAX_THREADS * SLOT_CAL_MAX];
	uint64_t en[ENGINE_MAX_THREADS * SLOT_CAL_MAX], sum = 0, top = a;
	unsigned n = 0;

	for (unsigned k = 1; k < r->conf.threads; k++) {
		const struct calendar *c =
		    &r->slot[(s + k * res_cores(r)) % r->conf.slots];

		for (unsigned i = 0; i < c->n; i++) {
			uint64_t x = c->start[i] > a ? c->start[i] : a;
			uint64_t y = c->end[i] < b ? c->end[i] : b;
			unsigned j = n;

			if (x >= y)
				continue;
			for (n++; j > 0 && st[j - 1] > x; j--) {
				st[j] = st[j - 1];
				en[j] = en[j - 1];
			}
			st[j] = x;
			en[j] = y;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t x = st[i] > top ? st[i] : top;

		if (en[i] > x) {
			sum += en[i] - x;
			top = en[i];
		}
	}
	return sum;
}

/* slot_pick on a resource with SMT: each slot's start for the stage's
 * hold, stretched when its core's other threads are busy then (@svc of
 * the hold @dur is service, the rest a transfer); the earliest start,
 * then the fewest busy siblings, then best fit. The hold in @*held. */
static unsigned slot_pick_smt(struct resource *r, uint64_t arrive_ns,
			      uint64_t dur, uint64_t svc, uint64_t *start_ns,
			      unsigned *index, uint64_t *held)
{
	unsigned best = 0, best_o = UINT_MAX;
	uint64_t best_prev = 0;

	*start_ns = UINT64_MAX;
	*index = 0;
	for (unsigned s = 0; s < r->conf.slots; s++) {
		struct calendar *c = &r->slot[s];
		uint64_t t, prev, d = dur;
		unsigned i, o;

		if (c->n == c->cap)
			cal_merge_first(c);
		t = cal_fit(c, arrive_ns, d, &i);
		o = siblings_busy(r, s, t, t + d);
		if (o) {
			d = dur - svc + smt_stretch(&r->conf, o, svc);
			t = cal_fit(c, arrive_ns, d, &i);
		}
		prev = i ? c->end[i - 1] : 0;
		if (t < *start_ns || (t == *start_ns && o < best_o) ||
		    (t == *start_ns && o == best_o && prev > best_prev)) {
			best = s;
			best_o = o;
			best_prev = prev;
			*start_ns = t;
			*index = i;
			*held = d;
		}
	}
	return best;
}

/* What stage @s books on its resource's ops/s gate: 1/cap, plus its
 * bytes at the gate's byte rate; 0: no gate. */
static uint64_t gate_cost_ns(const struct engine_resource_conf *c,
			     const struct engine_stage *s)
{
	uint64_t cap = c->max_ops_per_s[s->op];
	uint64_t rate = c->gate_bytes_per_s[s->op];
	uint64_t ns = cap ? (NS_PER_SEC + cap / 2) / cap : 0;

	if (rate && s->bytes)
		ns += (uint64_t)(((unsigned __int128)s->bytes * NS_PER_SEC +
				  rate / 2) /
				 rate);
	return ns;
}

/* One stage arriving at @arrive_ns; returns when it ends. */
static uint64_t stage_run(struct resource *r, const struct engine_stage *s,
			  uint64_t arrive_ns)
{
	const struct engine_resource_conf *c = &r->conf;
	uint64_t start_ns, slot_ns, end_ns, service_ns, xfer_ns = 0, gate_ns;
	uint64_t bw = c->bandwidth_bytes_per_s[s->op];
	unsigned slot, index;

	/* The whole hold is known before a slot is picked, so the pick
	 * can tell which gaps hold it. */
	service_ns = c->position_ns
			 ? c->position_ns(&c->hdd, &r->head_bytes, s)
			 : engine_dist_sample(&c->service[s->op], &r->rng);
	if (r->slow != 1.0) /* sampled all the same: the stream stays */
		service_ns = (uint64_t)((double)service_ns * r->slow + 0.5);
	service_ns += s->work_ns;
	if (bw && s->bytes)
		xfer_ns = (uint64_t)(((unsigned __int128)s->bytes * NS_PER_SEC +
				      bw - 1) /
				     bw);
	if (c->threads > 1) {
		uint64_t held = service_ns + xfer_ns;

		slot = slot_pick_smt(r, arrive_ns, service_ns + xfer_ns,
				     service_ns, &slot_ns, &index, &held);
		service_ns = held - xfer_ns;
	} else {
		slot = slot_pick(r, arrive_ns, service_ns + xfer_ns, &slot_ns,
				 &index);
	}
	start_ns = slot_ns;
	gate_ns = gate_cost_ns(c, s);
	if (gate_ns) /* starts 1/cap apart: each books 1/cap of the gate */
		start_ns = cal_book(&r->gate, start_ns, gate_ns);
	end_ns = start_ns + service_ns;
	if (xfer_ns)
		end_ns = cal_book(&r->wire, end_ns, xfer_ns) + xfer_ns;
	r->stats.core_busy_ns +=
	    end_ns - start_ns -
	    (c->threads > 1 ? siblings_overlap(r, slot, start_ns, end_ns) : 0);
	cal_insert(&r->slot[slot], index, slot_ns, end_ns);

	if (!s->part)
		r->stats.ops[s->op]++;
	r->stats.bytes[s->op] += s->bytes;
	r->stats.busy_ns += end_ns - start_ns;
	r->stats.wait_ns += start_ns - arrive_ns;
	r->stats.gate_ns += gate_ns;
	r->stats.wire_ns += xfer_ns;
	if (end_ns > r->stats.last_end_ns)
		r->stats.last_end_ns = end_ns;
	if (!s->part)
		latency_hist_add(&r->latency, end_ns - arrive_ns);
	return end_ns;
}

uint64_t engine_submit(struct engine *e, uint64_t now_ns,
		       const struct engine_stage *stages, unsigned n)
{
	uint64_t t_ns = now_ns;

	for (unsigned i = 0; i < n; i++) {
		assert(stages[i].res >= 0 &&
		       (unsigned)stages[i].res < e->n_res);
		assert(stages[i].op < ENGINE_OP_COUNT);
		t_ns = stage_run(&e->res[stages[i].res], &stages[i], t_ns);
	}
	return t_ns;
}

int engine_set_slowdown(struct engine *e, int res, double factor)
{
	if (res < 0 || (unsigned)res >= e->n_res || !(factor >= 1.0))
		return -EINVAL;
	e->res[res].slow = factor;
	return 0;
}

int engine_resource_stats(const struct engine *e, int res,
			  struct engine_resource_stats *st)
{
	if (res < 0 || (unsigned)res >= e->n_res)
		return -EINVAL;
	*st = e->res[res].stats;
	return 0;
}

uint64_t engine_resource_latency(const struct engine *e, int res, double pct)
{
	if (res < 0 || (unsigned)res >= e->n_res)
		return 0;
	return latency_hist_percentile(&e->res[res].latency, pct);
}

const struct latency_hist *engine_resource_hist(const struct engine *e, int res)
{
	if (res < 0 || (unsigned)res >= e->n_res)
		return NULL;
	return &e->res[res].latency;
}

unsigned engine_resource_busy_slots(const struct engine *e, int res,
				    uint64_t now_ns)
{
	unsigned n = 0;

	for (unsigned i = 0; i < engine_resource_slots(e, res); i++)
		n += cal_free_ns(&e->res[res].slot[i]) > now_ns;
	return n;
}

unsigned engine_resource_slots(const struct engine *e, int res)
{
	if (res < 0 || (unsigned)res >= e->n_res)
		return 0;
	return e->res[res].conf.slots;
}

unsigned engine_resource_cores(const struct engine *e, int res)
{
	if (res < 0 || (unsigned)res >= e->n_res)
		return 0;
	return res_cores(&e->res[res]);
}

unsigned engine_resources(const struct engine *e)
{
	return e->n_res;
}

const char *engine_resource_name(const struct engine *e, int res)
{
	if (res < 0 || (unsigned)res >= e->n_res)
		return NULL;
	return e->res[res].name;
}
