/* Idle workers for the ring threads (see fs/uring_pool.h). A job is
 * offered only to a worker that is waiting: no queue, so a job never
 * waits behind another, and a ring thread that finds none idle serves the
 * request itself. Progress never depends on the pool. */
#include "fs/uring_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

struct worker {
	pthread_t thread;
	pthread_cond_t cond;
	void (*fn)(void *);
	void *arg; /* the job, set while it is off the idle list */
	bool has_job;
	bool started;
	struct worker *next_idle;
};

static struct {
	pthread_mutex_t lock;
	struct worker *ws;
	unsigned n;
	struct worker *idle;
	bool stop;
	atomic_ullong served;
} P = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	pthread_mutex_lock(&P.lock);
	for (;;) {
		while (!w->has_job && !P.stop)
			pthread_cond_wait(&w->cond, &P.lock);
		if (!w->has_job)
			break;
		w->has_job = false;
		pthread_mutex_unlock(&P.lock);
		w->fn(w->arg);
		atomic_fetch_add_explicit(&P.served, 1, memory_order_relaxed);
		pthread_mutex_lock(&P.lock);
		w->next_idle = P.idle;
		P.idle = w;
	}
	pthread_mutex_unlock(&P.lock);
	return NULL;
}

int uring_pool_start(unsigned n)
{
	P.stop = false;
	P.idle = NULL;
	P.ws = calloc(n ? n : 1, sizeof(*P.ws));
	if (!P.ws)
		return -1;
	P.n = n;
	for (unsigned i = 0; i < n; i++) {
		struct worker *w = &P.ws[i];
		pthread_cond_init(&w->cond, NULL);
		if (pthread_create(&w->thread, NULL, worker_main, w))
			break; /* fewer workers: the ring threads do the rest */
		w->started = true;
		pthread_mutex_lock(&P.lock);
		w->next_idle = P.idle;
		P.idle = w;
		pthread_mutex_unlock(&P.lock);
	}
	return 0;
}

bool uring_pool_offer(void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&P.lock);
	struct worker *w = P.stop ? NULL : P.idle;
	if (w) {
		P.idle = w->next_idle;
		w->fn = fn;
		w->arg = arg;
		w->has_job = true;
		pthread_cond_signal(&w->cond);
	}
	pthread_mutex_unlock(&P.lock);
	return w != NULL;
}

void uring_pool_stop(void)
{
	pthread_mutex_lock(&P.lock);
	P.stop = true;
	for (unsigned i = 0; i < P.n; i++)
		pthread_cond_signal(&P.ws[i].cond);
	pthread_mutex_unlock(&P.lock);
	for (unsigned i = 0; i < P.n; i++) {
		if (P.ws[i].started)
			pthread_join(P.ws[i].thread, NULL);
		pthread_cond_destroy(&P.ws[i].cond);
	}
	free(P.ws);
	P.ws = NULL;
	P.n = 0;
	P.idle = NULL;
}

unsigned long long uring_pool_served(void)
{
	return atomic_load(&P.served);
}
