/* security.capability and set-ID bits on write, truncate, chown
 * (store/caps.h). */
#include "store/caps.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/namespace.h"
#include "store/store_i.h"
#include "store/txn.h"

void caps_init(struct caps_set *c)
{
	pthread_mutex_init(&c->lock, NULL);
	atomic_store(&c->n, 0);
	c->slot = NULL;
	c->size = 0;
}

void caps_destroy(struct caps_set *c)
{
	free(c->slot);
	c->slot = NULL;
	pthread_mutex_destroy(&c->lock);
}

static size_t home(uint64_t ino, size_t size)
{
	return (size_t)(ino * 0x9e3779b97f4a7c15ULL >> 17) & (size - 1);
}

/* Under the lock. */
static bool has(const struct caps_set *c, uint64_t ino)
{
	for (size_t i = home(ino, c->size);; i = (i + 1) & (c->size - 1)) {
		if (c->slot[i] == ino)
			return true;
		if (!c->slot[i])
			return false;
	}
}

static void put(uint64_t *slot, size_t size, uint64_t ino)
{
	size_t i = home(ino, size);
	while (slot[i] && slot[i] != ino)
		i = (i + 1) & (size - 1);
	slot[i] = ino;
}

/* Under the lock: at most half full. */
static int add(struct caps_set *c, uint64_t ino)
{
	size_t n = atomic_load(&c->n);
	if (c->size && has(c, ino))
		return 0;
	if (2 * (n + 1) > c->size) {
		size_t size = c->size ? 2 * c->size : 64;
		uint64_t *slot = calloc(size, sizeof(*slot));
		if (!slot)
			return -ENOMEM;
		for (size_t i = 0; i < c->size; i++)
			if (c->slot[i])
				put(slot, size, c->slot[i]);
		free(c->slot);
		c->slot = slot;
		c->size = size;
	}
	put(c->slot, c->size, ino);
	atomic_store(&c->n, n + 1);
	return 0;
}

int caps_note(struct caps_set *c, uint64_t ino, const char *name)
{
	if (strcmp(name, CAPS_XATTR))
		return 0;
	pthread_mutex_lock(&c->lock);
	int r = add(c, ino);
	pthread_mutex_unlock(&c->lock);
	return r;
}

static bool maybe(struct caps_set *c, uint64_t ino)
{
	if (!atomic_load_explicit(&c->n, memory_order_acquire))
		return false;
	pthread_mutex_lock(&c->lock);
	bool r = has(c, ino);
	pthread_mutex_unlock(&c->lock);
	return r;
}

int caps_load(struct caps_set *c, struct metastore *ms, MDB_txn *txn)
{
	const size_t nl = strlen(CAPS_XATTR);
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, metastore_dbi(ms, MS_XATTRS), &cur);
	if (rc)
		return metastore_errno(rc);
	MDB_val k, v;
	int r = 0;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && !r;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT))
		if (k.mv_size == 8 + nl &&
		    !memcmp((const char *)k.mv_data + 8, CAPS_XATTR, nl))
			r = add(c, ms_get_be64(k.mv_data));
	mdb_cursor_close(cur);
	if (!r && rc != MDB_NOTFOUND)
		r = metastore_errno(rc);
	return r;
}

int caps_kill(struct store_txn *t, uint64_t ino, bool *removed)
{
	*removed = false;
	if (!maybe(&t->st->caps, ino))
		return 0;
	int r = ns_xattr_del(t->st->ms, t->txn, ino, CAPS_XATTR);
	if (r == -ENODATA)
		return 0;
	*removed = !r;
	return r;
}

bool caps_drop_setid(uint32_t *mode)
{
	uint32_t before = *mode;
	*mode &= ~(uint32_t)S_ISUID;
	if ((*mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		*mode &= ~(uint32_t)S_ISGID;
	return *mode != before;
}
