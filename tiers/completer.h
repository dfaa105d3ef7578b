/* The completer: a thread that calls io->complete(io) at a deadline.
 *
 * The timing engine decides when a request completes (tiers/engine.h); the
 * data path converts that to a CLOCK_MONOTONIC deadline (clock_mono_ns()
 * clock) and hands the request here. One thread sleeps on a timerfd armed
 * to the earliest deadline and completes requests as they fall due; a
 * FUSE worker never waits.
 */
#ifndef ARRAYSIM_TIERS_COMPLETER_H
#define ARRAYSIM_TIERS_COMPLETER_H

#include <stdint.h>

struct array_io;
struct completer;

/* Start a completer thread. 0 or -errno (timerfd, eventfd, thread). */
int completer_new(struct completer **out);
/* Complete @io at CLOCK_MONOTONIC @deadline_ns (at once if past), from the
 * completer thread; safe from any thread. Once stopping, completes @io at
 * once in the caller. 0, or -ENOMEM: @io was not queued (caller's). */
int completer_submit(struct completer *c, uint64_t deadline_ns,
		     struct array_io *io);
/* How well the host kept the deadlines: requests completed on time or
 * late, and those late by more than a tenth of their modelled latency
 * (deadline - io->submit_ns), with their lateness summed. */
struct completer_lateness {
	uint64_t completed;
	uint64_t late;
	uint64_t late_ns;
	uint64_t worst_ns; /* the most any reply went out after its time */
};
void completer_lateness(struct completer *c, struct completer_lateness *out);
/* The same over the last @span_ns before now, in steps of
 * COMPLETER_STEP_NS (up to COMPLETER_SPAN_NS; the step now under way
 * included): per second in the samples, per 10 s for the warning. */
#define COMPLETER_STEP_NS 100000000ull		    /* 100 ms */
#define COMPLETER_SPAN_NS (128 * COMPLETER_STEP_NS) /* 12.8 s */
struct completer_window {
	uint64_t completed, late;
	uint64_t worst_ns; /* the most a reply in it went out late */
};
void completer_window(struct completer *c, uint64_t span_ns,
		      struct completer_window *out);
/* Host-bound episodes so far: the late share of the last 10 s passing
 * 5% (of at least 20 replies), each warned about once in the log with the
 * share and the worst lateness, over when it falls back to 5%. */
uint64_t completer_episodes(struct completer *c);
/* Requests queued and not yet completed. */
unsigned completer_pending(struct completer *c);
/* Stop: complete everything still queued at once, join the thread, free.
 * NULL is a no-op. */
void completer_free(struct completer *c);

#endif
