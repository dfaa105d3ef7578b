/* Group commit (store/group_commit.h): a leader/follower queue in front of
 * the store transaction. */
#include "store/group_commit.h"

#include <stdatomic.h>

/* A group larger than this waits for no gain: the commit is paid once
 * either way, and a huge group only delays its first writer's reply. */
#define GC_MAX_GROUP 64

void group_commit_init(struct group_commit *g)
{
	*g = (struct group_commit){.max_group = GC_MAX_GROUP};
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
}

void group_commit_destroy(struct group_commit *g)
{
	pthread_cond_destroy(&g->cv);
	pthread_mutex_destroy(&g->mu);
}

void group_commit_submit(struct group_commit *g, struct gc_entry *e)
{
	e->next = NULL;
	e->done = false;
	e->result = 0;
	pthread_mutex_lock(&g->mu);
	e->seq = ++g->next_seq;
	g->waiters += !e->done_fn;
	if (g->tail)
		g->tail->next = e;
	else
		g->head = e;
	g->tail = e;
	pthread_mutex_unlock(&g->mu);
}

static void run_group(struct group_commit *g, gc_together_fn together,
		      void *ctx, struct gc_entry *first, unsigned n)
{
	int r = n > 1 ? together(ctx, first, n) : first->solo(ctx, first->arg);
	struct gc_entry *e = first;
	if (r && n > 1) {
		/* Which entry failed, and whether the others would, is
		 * theirs alone to find out. */
		atomic_fetch_add_explicit(&g->retried, 1, memory_order_relaxed);
		for (unsigned i = 0; i < n; i++, e = e->next)
			e->result = e->solo(ctx, e->arg);
	} else {
		for (unsigned i = 0; i < n; i++, e = e->next)
			e->result = r;
	}
	atomic_fetch_add_explicit(&g->groups, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&g->entries, n, memory_order_relaxed);
}

/* Take up to max_group entries off the queue (g->mu held). */
static struct gc_entry *take(struct group_commit *g, unsigned *n)
{
	struct gc_entry *first = g->head, *last = first;
	*n = 1;
	while (last->next && *n < g->max_group) {
		last = last->next;
		++*n;
	}
	g->head = last->next;
	if (!g->head)
		g->tail = NULL;
	return first;
}

/* Mark the group from @first (n long) done, waking its waiters; its
 * entries with done_fn, linked by next, into *calls (g->mu held). */
static void group_done(struct group_commit *g, struct gc_entry *first,
		       unsigned n, struct gc_entry **calls)
{
	struct gc_entry *x = first, **tail = calls;

	for (unsigned i = 0; i < n; i++) {
		/* Read before the entry is done: its waiter may then return
		 * and free it. */
		struct gc_entry *next = x->next;
		if (x->seq > g->done_seq)
			g->done_seq = x->seq;
		if (x->done_fn) {
			*tail = x;
			tail = &x->next;
		} else {
			g->waiters--;
		}
		x->done = true;
		x = next;
	}
	*tail = NULL;
	g->leading = false;
	g->run = NULL;
	g->run_n = 0;
	pthread_cond_broadcast(&g->cv);
}

/* Take a group off the queue and run it (g->mu held, no leader, the
 * queue not empty; held again on return), then its callbacks. */
static void lead_group(struct group_commit *g, gc_together_fn together,
		       void *ctx)
{
	unsigned n;
	struct gc_entry *first = take(g, &n), *calls;

	g->leading = true;
	g->run = first;
	g->run_n = n;
	pthread_mutex_unlock(&g->mu);
	run_group(g, together, ctx, first, n);
	pthread_mutex_lock(&g->mu);
	group_done(g, first, n, &calls);
	if (!calls)
		return;
	/* Outside the lock: another thread may lead the next group. */
	pthread_mutex_unlock(&g->mu);
	while (calls) {
		struct gc_entry *next = calls->next;
		atomic_fetch_add_explicit(&g->called, 1, memory_order_relaxed);
		calls->done_fn(calls);
		calls = next;
	}
	pthread_mutex_lock(&g->mu);
}

/* Entries queued that no waiter will lead: every one of them completes
 * by callback (g->mu held). */
static bool left_to_us(const struct group_commit *g)
{
	return g->head && !g->leading && g->waiters == 0;
}

int group_commit_wait(struct group_commit *g, gc_together_fn together,
		      void *ctx, struct gc_entry *e)
{
	pthread_mutex_lock(&g->mu);
	while (!e->done) {
		if (g->leading)
			pthread_cond_wait(&g->cv, &g->mu);
		else /* not done and no leader: @e is still queued */
			lead_group(g, together, ctx);
	}
	while (left_to_us(g))
		lead_group(g, together, ctx);
	int r = e->result;
	pthread_mutex_unlock(&g->mu);
	return r;
}

void group_commit_lead(struct group_commit *g, gc_together_fn together,
		       void *ctx)
{
	pthread_mutex_lock(&g->mu);
	while (left_to_us(g))
		lead_group(g, together, ctx);
	pthread_mutex_unlock(&g->mu);
}

/* The later of @seq and @e's, when @e changes a block of @key in lo..hi. */
static uint64_t later_if_over(const struct gc_entry *e, uint64_t key,
			      uint64_t lo, uint64_t hi, uint64_t seq)
{
	bool over = e->key == key && e->lo <= hi && lo <= e->hi;
	return over && e->seq > seq ? e->seq : seq;
}

void group_commit_drain_over(struct group_commit *g, uint64_t key, uint64_t lo,
			     uint64_t hi)
{
	pthread_mutex_lock(&g->mu);
	/* Groups finish in queue order, so done_seq reaching the last such
	 * entry's seq means all of them are done. The running group's
	 * entries are still linked to each other by next. */
	uint64_t need = 0;
	const struct gc_entry *e = g->run;
	for (unsigned i = 0; i < g->run_n; i++, e = e->next)
		need = later_if_over(e, key, lo, hi, need);
	for (e = g->head; e; e = e->next)
		need = later_if_over(e, key, lo, hi, need);
	while (g->done_seq < need)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}
