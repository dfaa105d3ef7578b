/* Ring requests by unique (fs/uring_map.h). */
#include "fs/uring_map.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>

/* Uniques step by 2 (the low bit is the kernel's): hash the rest. */
static unsigned bucket_of(const struct uring_map *m, uint64_t unique)
{
	return (unsigned)((unique >> 1) * 0x9E3779B97F4A7C15ull >> 40) &
	       m->mask;
}

int uring_map_alloc(struct uring_map *m, unsigned entries)
{
	unsigned n = 1;
	while (n < 2 * entries)
		n <<= 1;
	m->buckets = calloc(n, sizeof(*m->buckets));
	m->mask = n - 1;
	return m->buckets ? 0 : -ENOMEM;
}

void uring_map_free(struct uring_map *m)
{
	pthread_mutex_lock(&m->lock);
	free(m->buckets);
	m->buckets = NULL;
	pthread_mutex_unlock(&m->lock);
}

void uring_map_put(struct uring_map *m, struct uring_map_node *n)
{
	pthread_mutex_lock(&m->lock);
	struct uring_map_node **b = &m->buckets[bucket_of(m, n->unique)];
	n->next = *b;
	*b = n;
	pthread_mutex_unlock(&m->lock);
}

struct uring_map_node *uring_map_take(struct uring_map *m, uint64_t unique)
{
	struct uring_map_node *n = NULL;
	pthread_mutex_lock(&m->lock);
	if (!m->closed && m->buckets) {
		struct uring_map_node **p = &m->buckets[bucket_of(m, unique)];
		while (*p && (*p)->unique != unique)
			p = &(*p)->next;
		n = *p;
		if (n) {
			*p = n->next;
			m->replying++;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return n;
}

void uring_map_release(struct uring_map *m)
{
	pthread_mutex_lock(&m->lock);
	m->replying--;
	pthread_mutex_unlock(&m->lock);
}

void uring_map_close(struct uring_map *m)
{
	for (;;) {
		pthread_mutex_lock(&m->lock);
		m->closed = true;
		unsigned n = m->replying;
		pthread_mutex_unlock(&m->lock);
		if (!n)
			return;
		sched_yield();
	}
}
