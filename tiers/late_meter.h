/* The late meter: how well the host kept the model's deadlines.
 *
 * The completer counts every reply here, under its own lock, with the time
 * it went out; nothing in here reads a clock, so the warning's episodes are
 * tested in made-up time (tests/tiers/test_late_meter.c). A reply is late
 * when it goes out more than a tenth of its modelled latency after its
 * deadline: the host, not the model, set its pace.
 */
#ifndef ARRAYSIM_TIERS_LATE_METER_H
#define ARRAYSIM_TIERS_LATE_METER_H

#include <stdbool.h>
#include <stdint.h>

/* Lateness is kept per 100 ms step in a ring of 128 (12.8 s). */
#define LATE_STEP_NS 100000000ull	  /* 100 ms */
#define LATE_SPAN_NS (128 * LATE_STEP_NS) /* 12.8 s */
#define LATE_RING (LATE_SPAN_NS / LATE_STEP_NS)
#define LATE_WARN_SPAN_NS 10000000000ull /* the warning's window */

/* Since start: replies, those late, their lateness summed, the worst. */
struct late_totals {
	uint64_t completed;
	uint64_t late;
	uint64_t late_ns;
	uint64_t worst_ns; /* the most any reply went out after its time */
};

/* Over a window of steps. */
struct late_window {
	uint64_t completed, late;
	uint64_t worst_ns; /* the most a reply in it went out late */
};

struct late_step {
	uint64_t idx; /* time / LATE_STEP_NS; 0: never used */
	uint64_t completed, late, worst_ns;
};

struct late_meter {
	struct late_totals totals;
	struct late_step ring[LATE_RING];
	uint64_t step_idx; /* the step under way */
	bool warned;	   /* in a host-bound episode */
	uint64_t episodes;
};

/* Count one reply due at @deadline_ns, submitted at @submit_ns, out at
 * @now_ns (one clock for all three). When it opens a new step, the step
 * before is judged first: past 5% late (of at least 20 replies) over the
 * 10 s before, a host-bound episode starts and is warned about once in the
 * log; back at 5% or under, it is over. */
void late_meter_count(struct late_meter *m, uint64_t deadline_ns,
		      uint64_t submit_ns, uint64_t now_ns);
/* The last @span_ns (up to LATE_SPAN_NS) before the end of the step
 * holding @now_ns, that step included. */
void late_meter_window(const struct late_meter *m, uint64_t now_ns,
		       uint64_t span_ns, struct late_window *out);

#endif
