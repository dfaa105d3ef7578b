/* dedupe-scan's unit queue, from the walker (scan_walk.c) to the reading
 * workers (scan.c), and what both sides share about files: the last unit
 * of a file closes it, and a file that cannot be read is listed once.
 *
 *   walker --scan_queue_push--> [ QUEUE_CAP units ] --scan_queue_pop--> workers
 *          (waits while full)                       (wait while empty)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dedupe/scan_i.h"

#define QUEUE_CAP 256 /* units queued; each holds its file open */

/* ---- the queue ------------------------------------------------------- */

int scan_queue_init(struct queue *q)
{
	q->u = calloc(QUEUE_CAP, sizeof(*q->u));
	if (!q->u)
		return -ENOMEM;
	q->cap = QUEUE_CAP;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->nonempty, NULL);
	pthread_cond_init(&q->nonfull, NULL);
	return 0;
}

void scan_queue_fini(struct queue *q)
{
	free(q->u);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->nonempty);
	pthread_cond_destroy(&q->nonfull);
}

void scan_queue_push(struct queue *q, const struct unit *u)
{
	pthread_mutex_lock(&q->lock);
	while (q->n == q->cap)
		pthread_cond_wait(&q->nonfull, &q->lock);
	q->u[(q->head + q->n++) % q->cap] = *u;
	pthread_cond_signal(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

void scan_queue_close(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

bool scan_queue_pop(struct queue *q, struct unit *out, bool wait)
{
	pthread_mutex_lock(&q->lock);
	while (wait && !q->n && !q->closed)
		pthread_cond_wait(&q->nonempty, &q->lock);
	bool got = q->n > 0;
	if (got) {
		*out = q->u[q->head];
		q->head = (q->head + 1) % q->cap;
		/* Wake the walker once half the queue is free, not at every
		 * unit: a wake-up per file costs a context switch per file. */
		if (--q->n == q->cap / 2)
			pthread_cond_signal(&q->nonfull);
	}
	pthread_mutex_unlock(&q->lock);
	return got;
}

/* ---- files ------------------------------------------------------------ */

void scan_file_unref(struct sfile *f)
{
	if (atomic_fetch_sub(&f->units, 1) != 1)
		return;
	close(f->fd);
	free(f->name);
	free(f);
}

void scan_unreadable(struct scan *s, const char *dir, const char *name)
{
	struct scan_result *r = s->res;
	pthread_mutex_lock(&s->unreadable_lock);
	r->unreadable++;
	char *p = NULL;
	if (r->n_unreadable_paths < SCAN_UNREADABLE_LISTED &&
	    asprintf(&p, "%s%s%s", dir ? dir : "", dir && name ? "/" : "",
		     name ? name : "") >= 0)
		r->unreadable_paths[r->n_unreadable_paths++] = p;
	pthread_mutex_unlock(&s->unreadable_lock);
}
