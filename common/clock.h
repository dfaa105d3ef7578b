/* The clocks of arraysim, in nanoseconds as 64-bit integers.
 *
 * Monotonic time orders everything that is timed (the model's arrivals,
 * deadlines, stall lengths, samples); wall-clock time is only for what a
 * person or a file reads (inode timestamps, log and event lines). */
#ifndef ARRAYSIM_COMMON_CLOCK_H
#define ARRAYSIM_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NS_PER_SEC 1000000000ull

/* CLOCK_MONOTONIC now. */
static inline uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME now, since the epoch. */
static inline int64_t clock_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * (int64_t)NS_PER_SEC + ts.tv_nsec;
}

/* A timespec @ns from now on CLOCK_MONOTONIC (pthread_cond_timedwait with
 * a monotonic condattr). */
static inline struct timespec clock_mono_after(uint64_t ns)
{
	uint64_t t = clock_mono_ns() + ns;

	return (struct timespec){.tv_sec = (time_t)(t / NS_PER_SEC),
				 .tv_nsec = (long)(t % NS_PER_SEC)};
}

#endif
