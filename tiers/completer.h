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

#include "tiers/late_meter.h"

struct array_io;
struct completer;

/* Start a completer thread. 0 or -errno (timerfd, eventfd, thread). */
int completer_new(struct completer **out);
/* Complete @io at CLOCK_MONOTONIC @deadline_ns (at once if past), from the
 * completer thread; safe from any thread. Once stopping, completes @io at
 * once in the caller. 0, or -ENOMEM: @io was not queued (caller's). */
int completer_submit(struct completer *c, uint64_t deadline_ns,
		     struct array_io *io);
/* How well the host kept the deadlines (tiers/late_meter.h): since the
 * start, and over the last @span_ns before now (up to LATE_SPAN_NS, the
 * step under way included): per second in the samples. */
void completer_lateness(struct completer *c, struct late_totals *out);
void completer_window(struct completer *c, uint64_t span_ns,
		      struct late_window *out);
/* Requests queued and not yet completed. */
unsigned completer_pending(struct completer *c);
/* Stop: complete everything still queued at once, join the thread, free.
 * NULL is a no-op. */
void completer_free(struct completer *c);

#endif
