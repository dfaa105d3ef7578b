/* A thread that runs a function every period, until stopped.
 *
 * The daemon's background loops (the syncer, the per-second sampler) are
 * the same loop: sleep on CLOCK_MONOTONIC until the next deadline, run,
 * repeat; and a stop must not wait out the sleep. Here it is once:
 *
 *   start --> [sleep until deadline] --> fn(ctx) --> [sleep ...] ...
 *                     | stop: wakes at once
 *                     v
 *              fn(ctx) once more if PERIODIC_RUN_AT_STOP, then exit
 *
 * fn runs on the periodic's thread with no lock held, never two at once.
 */
#ifndef ARRAYSIM_COMMON_PERIODIC_H
#define ARRAYSIM_COMMON_PERIODIC_H

#include <stdint.h>

enum periodic_flags {
	/* Deadlines on a fixed grid from the start (start + k * period), so
	 * runs do not drift; without it the next deadline is one period
	 * after the last run ended. */
	PERIODIC_FIXED_GRID = 1 << 0,
	/* A last run when stopped (a final sample before closing). */
	PERIODIC_RUN_AT_STOP = 1 << 1,
};

typedef void (*periodic_fn)(void *ctx);

struct periodic;

/* Start a thread that calls @fn(@ctx) every @period_ns (> 0), the first
 * one period from now. 0, -EINVAL (period 0), -ENOMEM or -EAGAIN. */
int periodic_start(uint64_t period_ns, unsigned flags, periodic_fn fn,
		   void *ctx, struct periodic **out);
/* Wake the thread at once, wait for it to end (after a run in progress,
 * and the last one of PERIODIC_RUN_AT_STOP), free. NULL is a no-op. */
void periodic_stop(struct periodic *p);

#endif
