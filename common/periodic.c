/* The periodic thread; see common/periodic.h. */
#include "common/periodic.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/clock.h"

struct periodic {
	uint64_t period_ns;
	unsigned flags;
	periodic_fn fn;
	void *ctx;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake; /* on CLOCK_MONOTONIC */
	bool stopping;	     /* under lock */
};

static struct timespec ts_of(uint64_t ns)
{
	return (struct timespec){.tv_sec = (time_t)(ns / NS_PER_SEC),
				 .tv_nsec = (long)(ns % NS_PER_SEC)};
}

/* Sleep until @deadline_ns or a stop, whichever is first; with the lock
 * held. True if stopped. Spurious wakeups sleep again; a timeout (or an
 * error) ends the sleep. */
static bool sleep_until(struct periodic *p, uint64_t deadline_ns)
{
	struct timespec ts = ts_of(deadline_ns);

	while (!p->stopping &&
	       pthread_cond_timedwait(&p->wake, &p->lock, &ts) == 0)
		;
	return p->stopping;
}

static void *periodic_main(void *arg)
{
	struct periodic *p = arg;
	uint64_t next = clock_mono_ns();
	bool stopped;

	pthread_mutex_lock(&p->lock);
	do {
		if (p->flags & PERIODIC_FIXED_GRID)
			next += p->period_ns;
		else
			next = clock_mono_ns() + p->period_ns;
		stopped = sleep_until(p, next);
		pthread_mutex_unlock(&p->lock);
		if (!stopped || (p->flags & PERIODIC_RUN_AT_STOP))
			p->fn(p->ctx);
		pthread_mutex_lock(&p->lock);
	} while (!stopped);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int periodic_start(uint64_t period_ns, unsigned flags, periodic_fn fn,
		   void *ctx, struct periodic **out)
{
	struct periodic *p;
	pthread_condattr_t ca;

	if (!period_ns || !fn)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*p = (struct periodic){
	    .period_ns = period_ns, .flags = flags, .fn = fn, .ctx = ctx};
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&p->thread, NULL, periodic_main, p))
		goto out_destroy;
	*out = p;
	return 0;

out_destroy:
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
	return -EAGAIN;
}

void periodic_stop(struct periodic *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
