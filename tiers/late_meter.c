/* The late meter: replies counted per 100 ms step, and the host-bound
 * warning judged once per step over the 10 s before it. */
#include "tiers/late_meter.h"

#include "common/log.h"

#define WARN_SHARE 0.05
#define WARN_MIN 20 /* replies in the window, for a share to mean much */

/* The steps of the last @span_ns before step @idx's end. */
static void window_sum(const struct late_meter *m, uint64_t idx,
		       uint64_t span_ns, struct late_window *out)
{
	uint64_t n = (span_ns + LATE_STEP_NS - 1) / LATE_STEP_NS;

	*out = (struct late_window){0};
	if (n > LATE_RING)
		n = LATE_RING;
	for (uint64_t k = 0; k < n && k <= idx; k++) {
		const struct late_step *s = &m->ring[(idx - k) % LATE_RING];

		if (s->idx != idx - k)
			continue;
		out->completed += s->completed;
		out->late += s->late;
		if (s->worst_ns > out->worst_ns)
			out->worst_ns = s->worst_ns;
	}
}

/* Step @done_idx is over: is a host-bound episode starting or over? */
static void warn_check(struct late_meter *m, uint64_t done_idx)
{
	struct late_window w;
	double share;

	window_sum(m, done_idx, LATE_WARN_SPAN_NS, &w);
	share = w.completed ? (double)w.late / (double)w.completed : 0;
	if (!m->warned && w.completed >= WARN_MIN && share > WARN_SHARE) {
		m->warned = true;
		m->episodes++;
		log_warn("array",
			 "host-bound: %.1f%% of %llu replies in the last 10 s "
			 "went out late (worst %.3f s late): the host, not "
			 "the model, sets the pace and the figures; try a "
			 "lower --scale",
			 share * 100, (unsigned long long)w.completed,
			 (double)w.worst_ns / 1e9);
	} else if (m->warned && share <= WARN_SHARE) {
		m->warned = false;
		log_info("array",
			 "host-bound no more: %.1f%% of %llu replies late "
			 "in the last 10 s",
			 share * 100, (unsigned long long)w.completed);
	}
}

/* The ring's step for @now_ns, started afresh when it is a new one. */
static struct late_step *step_at(struct late_meter *m, uint64_t now_ns)
{
	uint64_t idx = now_ns / LATE_STEP_NS;
	struct late_step *s = &m->ring[idx % LATE_RING];

	if (idx != m->step_idx) {
		if (m->step_idx && idx > m->step_idx)
			warn_check(m, idx - 1);
		m->step_idx = idx;
	}
	if (s->idx != idx)
		*s = (struct late_step){.idx = idx};
	return s;
}

void late_meter_count(struct late_meter *m, uint64_t deadline_ns,
		      uint64_t submit_ns, uint64_t now_ns)
{
	uint64_t modelled =
	    deadline_ns > submit_ns ? deadline_ns - submit_ns : 0;
	uint64_t lateness = now_ns > deadline_ns ? now_ns - deadline_ns : 0;
	struct late_step *s = step_at(m, now_ns);

	m->totals.completed++;
	s->completed++;
	if (lateness > m->totals.worst_ns)
		m->totals.worst_ns = lateness;
	if (lateness > s->worst_ns)
		s->worst_ns = lateness;
	if (lateness > modelled / 10) {
		m->totals.late++;
		m->totals.late_ns += lateness;
		s->late++;
	}
}

void late_meter_window(const struct late_meter *m, uint64_t now_ns,
		       uint64_t span_ns, struct late_window *out)
{
	window_sum(m, now_ns / LATE_STEP_NS, span_ns, out);
}
