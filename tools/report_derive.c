/* What a run's samples and events say beyond themselves: the degraded
 * periods (inject to clear), the stalls and the rebuilds. See
 * tools/report_data.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report_data.h"

static struct rperiod *open_period(struct rrun *r, uint64_t id)
{
	for (size_t i = r->nperiods; i-- > 0;)
		if (r->periods[i].id == id && r->periods[i].end < 0)
			return &r->periods[i];
	return NULL;
}

/* The period a hit of @e's id belongs to: the open one, or a used-up one
 * if the hit is its last (a count=1 rule's only fault_hit is logged just
 * after its rule_done, within a millisecond: nothing else can hit after
 * it; a later hit's fault_hits is flushed before the rule_done). */
static struct rperiod *hit_period(struct rrun *r, const struct revent *e)
{
	for (size_t i = r->nperiods; i-- > 0;) {
		struct rperiod *p = &r->periods[i];
		if (p->id != e->id)
			continue;
		if (p->end < 0 || (p->used_up && e->t - p->end < 1e-3))
			return p;
		return NULL;
	}
	return NULL;
}

static void close_period(struct rperiod *p, double t, bool cleared)
{
	p->end = t;
	p->cleared = cleared;
}

/* Close the open period of @id, or every open one for id 0 ("clear all",
 * and the unmount, which drops every fault). */
static void close_ids(struct rrun *r, uint64_t id, double t, bool cleared)
{
	for (size_t i = 0; i < r->nperiods; i++)
		if (r->periods[i].end < 0 && (!id || r->periods[i].id == id))
			close_period(&r->periods[i], t, cleared);
}

static int add_period(struct rrun *r, const struct revent *e)
{
	struct rperiod *p = open_period(r, e->id);
	if (p) /* an id injected twice: the log lost its clear */
		close_period(p, e->t, false);
	/* At most one period per event: ne bounds nperiods. */
	p = &r->periods[r->nperiods++];
	memset(p, 0, sizeof(*p));
	p->id = e->id;
	memcpy(p->rule, e->rule, sizeof(p->rule));
	p->start = e->t;
	p->end = -1;
	return 0;
}

uint64_t report_event_hits(const struct revent *e)
{
	static const char *const acts[] = {"fault_hit", "stall", "shutdown",
					   "rebuild"};
	if (!e->id)
		return 0;
	if (!strcmp(e->event, "fault_hits"))
		return e->hits;
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!strcmp(e->event, acts[i]))
			return 1;
	return 0;
}

/* The open thin rule: fs/fault_gate.c logs its refusals (thin_full)
 * without an id, and at most one thin rule is active (a single kind). */
static struct rperiod *thin_period(struct rrun *r)
{
	for (size_t i = r->nperiods; i-- > 0;)
		if (r->periods[i].end < 0 &&
		    !strncmp(r->periods[i].rule, "thin ", 5))
			return &r->periods[i];
	return NULL;
}

/* A used-up rule (faults/faults.c logs rule_done at its last hit) ends
 * there: it matches nothing after, though it is cleared only later. */
static void used_up(struct rrun *r, const struct revent *e)
{
	struct rperiod *p = open_period(r, e->id);
	if (!p)
		return;
	close_period(p, e->t, true);
	p->used_up = true;
}

int rrun_periods(struct rrun *r)
{
	free(r->periods);
	r->nperiods = 0;
	r->periods = malloc((r->ne ? r->ne : 1) * sizeof(*r->periods));
	if (!r->periods)
		return -ENOMEM;
	for (size_t i = 0; i < r->ne; i++) {
		const struct revent *e = &r->e[i];
		struct rperiod *p;
		/* id 0: acted at once (power loss, bit rot), a marker only. */
		if (!strcmp(e->event, "inject") && e->id)
			add_period(r, e);
		else if (!strcmp(e->event, "clear"))
			close_ids(r, e->id, e->t, true);
		else if (!strcmp(e->event, "rule_done") && e->id)
			used_up(r, e);
		else if (!strcmp(e->event, "unmount"))
			close_ids(r, 0, e->t, false);
		else if (report_event_hits(e) && (p = hit_period(r, e)))
			p->hits += report_event_hits(e);
		else if (!strcmp(e->event, "thin_full") && (p = thin_period(r)))
			p->hits++;
	}
	close_ids(r, 0, r->length, false);
	return 0;
}

static double iops(const struct rsample *s)
{
	return s->v[RS_READ_IOPS] + s->v[RS_WRITE_IOPS];
}

/* Whether a fault was active during any of the sample's interval: its
 * faults_active gauge is of the sample's end only, so the periods of the
 * event log are consulted too. */
static bool faulted(const struct rrun *r, const struct rsample *s)
{
	if (s->v[RS_FAULTS_ACTIVE] > 0 || s->power_lost)
		return true;
	double from = s->t - s->interval_s;
	for (size_t i = 0; i < r->nperiods; i++)
		if (r->periods[i].start < s->t && r->periods[i].end > from)
			return true;
	return false;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median IOPS of the samples that did I/O with no fault active: what
 * the workload does when nothing is wrong. 0 if there is none. */
static double baseline(const struct rrun *r)
{
	double *v = malloc((r->ns ? r->ns : 1) * sizeof(*v));
	size_t n = 0;
	if (!v)
		return 0;
	for (size_t i = 0; i < r->ns; i++)
		if (iops(&r->s[i]) > 0 && !faulted(r, &r->s[i]))
			v[n++] = iops(&r->s[i]);
	qsort(v, n, sizeof(*v), cmp_double);
	double m = n ? v[n / 2] : 0;
	free(v);
	return m;
}

/* The slowest completion of the sample, in seconds (its p99). */
static double p99_s(const struct rsample *s)
{
	double p = s->v[RS_READ_P99] > s->v[RS_WRITE_P99] ? s->v[RS_READ_P99]
							  : s->v[RS_WRITE_P99];
	return p / 1e6;
}

/* Whether sample @i, under the stall line, offered load: it completed
 * I/O under a fault (slow, not idle), or the I/O that next completes
 * waited through it, its p99 spanning at least half of the time from
 * @i's start. @next: the first sample from @i on that completed I/O. A workload
 * that went idle or exited (fio on EIO) leaves samples with nothing completing
 * and nothing waiting: not a stall. */
static bool waiting(const struct rrun *r, size_t i, size_t next, bool fault)
{
	const struct rsample *s = &r->s[i];
	if (iops(s) > 0 && fault)
		return true;
	if (next >= r->ns) /* nothing completes after it */
		return false;
	const struct rsample *n = &r->s[next];
	return p99_s(n) >= 0.5 * (n->t - (s->t - s->interval_s));
}

static bool any_period(const struct rrun *r, double from, double to)
{
	for (size_t i = 0; i < r->nperiods; i++)
		if (r->periods[i].start < to && r->periods[i].end > from)
			return true;
	return false;
}

/* End the stall @cur whose last sample is @last: @flowed, I/O completed
 * right after it; if not, the workload stopped in its last sample (fio
 * exiting on EIO does its last I/O there), which is dropped. */
static void end_stall(struct rrun *r, struct rstall *cur, size_t last,
		      bool flowed)
{
	if (flowed)
		return;
	cur->end = r->s[last].t - r->s[last].interval_s;
	if (cur->end <= cur->start)
		r->nstalls--;
}

/* The stalls the samples show, appended to @r->stalls. */
static void sample_stalls(struct rrun *r, double below)
{
	struct rstall *cur = NULL;
	size_t last = 0, next = 0;
	for (size_t i = 0; i < r->ns; i++) {
		const struct rsample *s = &r->s[i];
		/* Advanced once over the run: linear in the samples. */
		if (next < i)
			next = i;
		while (next < r->ns && !(iops(&r->s[next]) > 0))
			next++;
		if (iops(s) >= below || !waiting(r, i, next, faulted(r, s))) {
			if (cur)
				end_stall(r, cur, last, iops(s) > 0);
			cur = NULL;
			continue;
		}
		if (!cur) {
			cur = &r->stalls[r->nstalls++];
			*cur = (struct rstall){.start = s->t - s->interval_s};
		}
		cur->end = s->t;
		last = i;
	}
	if (cur) /* the run ended in it: nothing flowed after */
		end_stall(r, cur, last, false);
}

/* The stalls the array model announced ("stall" events): from the
 * event's t + in_s for lasts_s, to the run's end at most. */
static void event_stalls(struct rrun *r)
{
	for (size_t i = 0; i < r->ne; i++) {
		const struct revent *e = &r->e[i];
		if (strcmp(e->event, "stall") || !(e->lasts_s > 0) ||
		    !(e->in_s >= 0))
			continue;
		double from = e->t + e->in_s, to = from + e->lasts_s;
		if (from >= r->length)
			continue;
		r->stalls[r->nstalls++] =
		    (struct rstall){.start = from,
				    .end = to < r->length ? to : r->length,
				    .min_iops = NAN,
				    .from_events = true};
	}
}

static int cmp_start(const void *a, const void *b)
{
	double x = ((const struct rstall *)a)->start,
	       y = ((const struct rstall *)b)->start;
	return (x > y) - (x < y);
}

/* Sort the stalls and merge those that overlap or touch; then give each
 * its lowest IOPS over the samples it spans and whether a fault was
 * active in it at all. */
static void merge_stalls(struct rrun *r)
{
	qsort(r->stalls, r->nstalls, sizeof(*r->stalls), cmp_start);
	size_t n = 0;
	for (size_t i = 0; i < r->nstalls; i++) {
		struct rstall *s = &r->stalls[i],
			      *p = n ? &r->stalls[n - 1] : s;
		if (n && s->start <= p->end) {
			if (s->end > p->end)
				p->end = s->end;
			p->from_events = p->from_events || s->from_events;
			continue;
		}
		r->stalls[n++] = *s;
	}
	r->nstalls = n;
	/* Both in time order now: one sweep of the samples for them all. */
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct rstall *s = &r->stalls[i];
		bool gauge = false; /* a fault the event log does not show */
		s->min_iops = NAN;
		while (k < r->ns && r->s[k].t <= s->start)
			k++;
		for (size_t j = k;
		     j < r->ns && r->s[j].t - r->s[j].interval_s < s->end;
		     j++) {
			const struct rsample *x = &r->s[j];
			if (!(iops(x) >= s->min_iops))
				s->min_iops = iops(x);
			gauge = gauge || x->v[RS_FAULTS_ACTIVE] > 0 ||
				x->power_lost;
		}
		s->no_fault = !s->from_events && !gauge &&
			      !any_period(r, s->start, s->end);
	}
}

int rrun_stalls(struct rrun *r, double fraction)
{
	free(r->stalls);
	r->nstalls = 0;
	r->stalls = malloc((r->ns + r->ne + 1) * sizeof(*r->stalls));
	if (!r->stalls)
		return -ENOMEM;
	r->baseline_iops = baseline(r);
	/* Without a baseline, an idle workload and a stall look the same
	 * in the samples; the array model's own stalls still count. */
	if (r->baseline_iops > 0)
		sample_stalls(r, r->baseline_iops * fraction);
	event_stalls(r);
	merge_stalls(r);
	return 0;
}

int rrun_rebuilds(struct rrun *r)
{
	free(r->rebuilds);
	r->nrebuilds = 0;
	r->rebuilds = malloc((r->ns ? r->ns : 1) * sizeof(*r->rebuilds));
	if (!r->rebuilds)
		return -ENOMEM;
	struct rspan *cur = NULL;
	for (size_t i = 0; i < r->ns; i++) {
		const struct rsample *s = &r->s[i];
		/* NAN (no model) compares false: never a rebuild. */
		if (!(s->v[RS_DRIVES_REBUILDING] > 0)) {
			cur = NULL;
			continue;
		}
		if (!cur) {
			cur = &r->rebuilds[r->nrebuilds++];
			cur->start = s->t - s->interval_s;
		}
		cur->end = s->t;
	}
	return 0;
}

bool rsample_host_bound(const struct rsample *s)
{
	return s->v[RS_HOST_LATE_SHARE] > REPORT_LATE_WARN; /* NAN: no */
}

void rrun_host(const struct rrun *r, struct rhost *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < r->ns; i++) {
		const struct rsample *s = &r->s[i];
		double share = s->v[RS_HOST_LATE_SHARE], n;
		if (isnan(share))
			continue;
		out->known = true;
		n = s->v[RS_HOST_REPLIES];
		if (isnan(n)) /* an older sample: its operations stand in */
			n = (s->v[RS_READ_IOPS] + s->v[RS_WRITE_IOPS]) *
			    (s->interval_s > 0 ? s->interval_s : 1);
		out->replies += n;
		out->late +=
		    isnan(s->v[RS_HOST_LATE]) ? share * n : s->v[RS_HOST_LATE];
		if (s->v[RS_HOST_WORST_LATE_MS] > out->worst_ms)
			out->worst_ms = s->v[RS_HOST_WORST_LATE_MS];
		out->seconds_over += rsample_host_bound(s);
	}
}

const char *rrun_cpu_counter(const struct rrun *r)
{
	for (size_t i = 0; i < r->ns; i++)
		if (r->s[i].cpu_counter[0])
			return r->s[i].cpu_counter;
	return NULL;
}

const struct revent *rrun_mount(const struct rrun *r)
{
	return r->ne && !strcmp(r->e[0].event, "mount") ? &r->e[0] : NULL;
}
