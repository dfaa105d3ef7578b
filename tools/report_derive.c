/* What a run's samples and events say beyond themselves: the degraded
 * periods (inject to clear), the stalls and the rebuilds. See
 * tools/report_data.h. */
#include <errno.h>
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

int rrun_periods(struct rrun *r)
{
	free(r->periods);
	r->nperiods = 0;
	r->periods = malloc((r->ne ? r->ne : 1) * sizeof(*r->periods));
	if (!r->periods)
		return -ENOMEM;
	for (size_t i = 0; i < r->ne; i++) {
		const struct revent *e = &r->e[i];
		/* id 0: acted at once (power loss, bit rot), a marker only. */
		if (!strcmp(e->event, "inject") && e->id)
			add_period(r, e);
		else if (!strcmp(e->event, "clear"))
			close_ids(r, e->id, e->t, true);
		else if (!strcmp(e->event, "unmount"))
			close_ids(r, 0, e->t, false);
		else if (!strcmp(e->event, "fault_hit") && e->id) {
			struct rperiod *p = open_period(r, e->id);
			if (p)
				p->hits++;
		}
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

int rrun_stalls(struct rrun *r, double fraction)
{
	free(r->stalls);
	r->nstalls = 0;
	r->stalls = malloc((r->ns ? r->ns : 1) * sizeof(*r->stalls));
	if (!r->stalls)
		return -ENOMEM;
	r->baseline_iops = baseline(r);
	/* Without a baseline, an idle workload and a stall look the same. */
	if (r->baseline_iops <= 0)
		return 0;
	double below = r->baseline_iops * fraction;
	struct rstall *cur = NULL;
	for (size_t i = 0; i < r->ns; i++) {
		const struct rsample *s = &r->s[i];
		if (!faulted(r, s) || iops(s) >= below) {
			cur = NULL;
			continue;
		}
		if (!cur) {
			cur = &r->stalls[r->nstalls++];
			cur->start = s->t - s->interval_s;
			cur->min_iops = iops(s);
		}
		cur->end = s->t;
		if (iops(s) < cur->min_iops)
			cur->min_iops = iops(s);
	}
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
