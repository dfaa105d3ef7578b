/* In-memory inode state: lookup counts in an open-addressing hash map
 * (entries leave when the kernel forgets them, so the map holds what the
 * kernel holds, not what the store holds), the name each inode was last
 * reached by, and the range locks on their data.
 *
 * Names are kept for paths (fault rules match path globs): the kernel
 * looks up every component of a path it uses and holds those lookups
 * while it caches the entries, so the chain of parents of an inode the
 * kernel holds is in the map too. */
#include "fs/inode_table.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct lookup_entry {
	uint64_t ino; /* 0: empty */
	uint64_t lookups;
	uint64_t parent; /* of the last name it was reached by; 0: none */
	char *name;
};

#define ROOT_INO 1
#define MAX_DEPTH 256

struct inode_table {
	pthread_mutex_t map_lock;
	struct lookup_entry *map;
	size_t cap; /* power of two */
	size_t used;
	struct range_locks *data;
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
	t->data = range_locks_new();
	if (!t->data) {
		free(t->map);
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->map_lock, NULL);
	return t;
}

void inode_table_free(struct inode_table *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->map_lock);
	range_locks_free(t->data);
	for (size_t i = 0; i < t->cap; i++)
		free(t->map[i].name);
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
	free(e->name);
	e->name = NULL;
	for (;;) {
		t->map[i].ino = 0;
		t->map[i].name = NULL; /* moved, or freed above */
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

static struct lookup_entry *ref_locked(struct inode_table *t, uint64_t ino)
{
	if ((t->used + 1) * 4 > t->cap * 3)
		grow(t);
	struct lookup_entry *e = find_slot(t->map, t->cap, ino);
	if (!e->ino) {
		*e = (struct lookup_entry){.ino = ino};
		t->used++;
	}
	e->lookups++;
	return e;
}

/* A failed strdup leaves the entry nameless: its path is then unknown,
 * which only makes path rules not match it. */
static void set_name(struct lookup_entry *e, uint64_t parent, const char *name)
{
	free(e->name);
	e->name = strdup(name);
	e->parent = e->name ? parent : 0;
}

void inode_table_ref(struct inode_table *t, uint64_t ino)
{
	pthread_mutex_lock(&t->map_lock);
	ref_locked(t, ino);
	pthread_mutex_unlock(&t->map_lock);
}

void inode_table_ref_named(struct inode_table *t, uint64_t ino, uint64_t parent,
			   const char *name)
{
	pthread_mutex_lock(&t->map_lock);
	set_name(ref_locked(t, ino), parent, name);
	pthread_mutex_unlock(&t->map_lock);
}

void inode_table_renamed(struct inode_table *t, uint64_t ino, uint64_t parent,
			 const char *name)
{
	pthread_mutex_lock(&t->map_lock);
	struct lookup_entry *e = find_slot(t->map, t->cap, ino);
	if (e->ino)
		set_name(e, parent, name);
	pthread_mutex_unlock(&t->map_lock);
}

/* Prepend "/" + @name to the path being built backwards from @end. */
static bool prepend(char *buf, size_t *at, const char *name)
{
	size_t n = strlen(name) + 1;
	if (n > *at)
		return false;
	*at -= n;
	buf[*at] = '/';
	memcpy(buf + *at + 1, name, n - 1);
	return true;
}

static bool path_locked(struct inode_table *t, uint64_t ino, char *buf,
			size_t len)
{
	if (len < 2)
		return false;
	size_t at = len - 1;
	buf[at] = '\0';
	for (int depth = 0; ino != ROOT_INO; depth++) {
		struct lookup_entry *e = find_slot(t->map, t->cap, ino);
		if (!e->ino || !e->name || depth == MAX_DEPTH ||
		    !prepend(buf, &at, e->name))
			return false;
		ino = e->parent;
	}
	if (at == len - 1)
		buf[--at] = '/'; /* the root itself */
	memmove(buf, buf + at, len - at);
	return true;
}

bool inode_table_path(struct inode_table *t, uint64_t ino, char *buf,
		      size_t len)
{
	pthread_mutex_lock(&t->map_lock);
	bool ok = path_locked(t, ino, buf, len);
	pthread_mutex_unlock(&t->map_lock);
	return ok;
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

void inode_table_lock(struct inode_table *t, struct range_hold *h, uint64_t ino,
		      uint64_t first, uint64_t last)
{
	range_lock(t->data, h, ino, first, last);
}

void inode_table_unlock(struct inode_table *t, struct range_hold *h)
{
	range_unlock(t->data, h);
}
