/* In-memory inode state: lookup counts in an open-addressing hash map
 * (entries leave when the kernel forgets them, so the map holds what the
 * kernel holds, not what the store holds) and striped data locks. */
#include "fs/inode_table.h"

#include <pthread.h>
#include <stdlib.h>

#define LOCK_STRIPES 256

struct lookup_entry {
	uint64_t ino; /* 0: empty */
	uint64_t lookups;
};

struct inode_table {
	pthread_mutex_t map_lock;
	struct lookup_entry *map;
	size_t cap; /* power of two */
	size_t used;
	pthread_mutex_t stripe[LOCK_STRIPES];
};

static size_t hash_ino(uint64_t ino)
{
	ino ^= ino >> 33;
	ino *= 0xff51afd7ed558ccdull;
	ino ^= ino >> 33;
	return (size_t)ino;
}

struct inode_table *inode_table_new(void)
{
	struct inode_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cap = 1024;
	t->map = calloc(t->cap, sizeof(*t->map));
	if (!t->map) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->map_lock, NULL);
	for (int i = 0; i < LOCK_STRIPES; i++)
		pthread_mutex_init(&t->stripe[i], NULL);
	return t;
}

void inode_table_free(struct inode_table *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->map_lock);
	for (int i = 0; i < LOCK_STRIPES; i++)
		pthread_mutex_destroy(&t->stripe[i]);
	free(t->map);
	free(t);
}

static struct lookup_entry *find_slot(struct lookup_entry *map, size_t cap,
				      uint64_t ino)
{
	size_t i = hash_ino(ino) & (cap - 1);
	while (map[i].ino && map[i].ino != ino)
		i = (i + 1) & (cap - 1);
	return &map[i];
}

static void grow(struct inode_table *t)
{
	size_t cap = t->cap * 2;
	struct lookup_entry *map = calloc(cap, sizeof(*map));
	if (!map)
		return; /* stay at the current load factor; still correct */
	for (size_t i = 0; i < t->cap; i++)
		if (t->map[i].ino)
			*find_slot(map, cap, t->map[i].ino) = t->map[i];
	free(t->map);
	t->map = map;
	t->cap = cap;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
static void remove_slot(struct inode_table *t, struct lookup_entry *e)
{
	size_t i = (size_t)(e - t->map), j = i;
	for (;;) {
		t->map[i].ino = 0;
		for (;;) {
			j = (j + 1) & (t->cap - 1);
			if (!t->map[j].ino)
				return;
			size_t home = hash_ino(t->map[j].ino) & (t->cap - 1);
			/* Move j back to i unless its home lies in (i, j]. */
			if (i <= j ? (home <= i || home > j)
				   : (home <= i && home > j))
				break;
		}
		t->map[i] = t->map[j];
		i = j;
	}
}

void inode_table_ref(struct inode_table *t, uint64_t ino)
{
	pthread_mutex_lock(&t->map_lock);
	if ((t->used + 1) * 4 > t->cap * 3)
		grow(t);
	struct lookup_entry *e = find_slot(t->map, t->cap, ino);
	if (!e->ino) {
		e->ino = ino;
		e->lookups = 0;
		t->used++;
	}
	e->lookups++;
	pthread_mutex_unlock(&t->map_lock);
}

uint64_t inode_table_unref(struct inode_table *t, uint64_t ino, uint64_t n)
{
	pthread_mutex_lock(&t->map_lock);
	struct lookup_entry *e = find_slot(t->map, t->cap, ino);
	uint64_t left = 0;
	if (e->ino) {
		left = e->lookups > n ? e->lookups - n : 0;
		e->lookups = left;
		if (!left) {
			remove_slot(t, e);
			t->used--;
		}
	}
	pthread_mutex_unlock(&t->map_lock);
	return left;
}

uint64_t inode_table_lookups(struct inode_table *t, uint64_t ino)
{
	pthread_mutex_lock(&t->map_lock);
	struct lookup_entry *e = find_slot(t->map, t->cap, ino);
	uint64_t n = e->ino ? e->lookups : 0;
	pthread_mutex_unlock(&t->map_lock);
	return n;
}

void inode_table_lock(struct inode_table *t, uint64_t ino)
{
	pthread_mutex_lock(&t->stripe[hash_ino(ino) % LOCK_STRIPES]);
}

void inode_table_unlock(struct inode_table *t, uint64_t ino)
{
	pthread_mutex_unlock(&t->stripe[hash_ino(ino) % LOCK_STRIPES]);
}
