/* Range locks on files' blocks (fs/range_lock.h): per stripe, one list
 * of holds and waiters in arrival order. */
#include "fs/range_lock.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#define STRIPES 256

struct stripe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct range_hold *head, *tail; /* arrival order */
};

struct range_locks {
	struct stripe s[STRIPES];
};

static struct stripe *stripe_of(struct range_locks *rl, uint64_t ino)
{
	ino ^= ino >> 33;
	ino *= 0xff51afd7ed558ccdull;
	ino ^= ino >> 33;
	return &rl->s[ino % STRIPES];
}

struct range_locks *range_locks_new(void)
{
	struct range_locks *rl = calloc(1, sizeof(*rl));
	if (!rl)
		return NULL;
	for (int i = 0; i < STRIPES; i++) {
		pthread_mutex_init(&rl->s[i].mu, NULL);
		pthread_cond_init(&rl->s[i].cv, NULL);
	}
	return rl;
}

void range_locks_free(struct range_locks *rl)
{
	if (!rl)
		return;
	for (int i = 0; i < STRIPES; i++) {
		pthread_cond_destroy(&rl->s[i].cv);
		pthread_mutex_destroy(&rl->s[i].mu);
	}
	free(rl);
}

static bool meets(const struct range_hold *a, const struct range_hold *b)
{
	return a->ino == b->ino && a->first <= b->last && b->first <= a->last;
}

/* Is anything in the list before @end (NULL: all of it) in @h's way? */
static bool blocked(const struct stripe *s, const struct range_hold *end,
		    const struct range_hold *h)
{
	for (const struct range_hold *x = s->head; x != end; x = x->next)
		if (meets(x, h))
			return true;
	return false;
}

static void append(struct stripe *s, struct range_hold *h)
{
	if (s->tail)
		s->tail->next = h;
	else
		s->head = h;
	s->tail = h;
}

void range_lock(struct range_locks *rl, struct range_hold *h, uint64_t ino,
		uint64_t first, uint64_t last)
{
	struct stripe *s = stripe_of(rl, ino);
	*h = (struct range_hold){.ino = ino, .first = first, .last = last};
	pthread_mutex_lock(&s->mu);
	append(s, h);
	while (blocked(s, h, h))
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

int range_trylock(struct range_locks *rl, struct range_hold *h, uint64_t ino,
		  uint64_t first, uint64_t last)
{
	struct stripe *s = stripe_of(rl, ino);
	*h = (struct range_hold){.ino = ino, .first = first, .last = last};
	pthread_mutex_lock(&s->mu);
	/* Every hold and waiter there now is earlier than @h would be. */
	bool held = !blocked(s, NULL, h);
	if (held)
		append(s, h);
	pthread_mutex_unlock(&s->mu);
	return held;
}

void range_unlock(struct range_locks *rl, struct range_hold *h)
{
	struct stripe *s = stripe_of(rl, h->ino);
	pthread_mutex_lock(&s->mu);
	struct range_hold **at = &s->head, *prev = NULL;
	while (*at != h) {
		prev = *at;
		at = &(*at)->next;
	}
	*at = h->next;
	if (s->tail == h)
		s->tail = prev;
	/* Only waiters behind @h can have been waiting for it, and a
	 * stripe's list is short: wake them all to look again. */
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

unsigned range_queued(struct range_locks *rl, uint64_t ino)
{
	struct stripe *s = stripe_of(rl, ino);
	unsigned n = 0;
	pthread_mutex_lock(&s->mu);
	for (const struct range_hold *x = s->head; x; x = x->next)
		n += x->ino == ino;
	pthread_mutex_unlock(&s->mu);
	return n;
}
