/* Syncs (data before metadata) and the emulated power loss that ends
 * them: store/store.h. */
#include <errno.h>

#include "store/store_i.h"

int store_sync(struct store *st)
{
	if (atomic_load(&st->powered_off))
		return -EIO; /* nothing more becomes durable */
	pthread_mutex_lock(&st->sync_lock);
	if (atomic_load(&st->powered_off)) { /* it happened while we waited */
		pthread_mutex_unlock(&st->sync_lock);
		return -EIO;
	}
	uint64_t commits = atomic_load(&st->commits);
	/* Data first: a durable map must never point at bytes that are not. */
	int r = st->dev.ops->sync(st->dev.ctx);
	if (!r)
		r = metastore_sync(st->ms);
	if (!r)
		atomic_store(&st->synced_commits, commits);
	/* Under the lock: the hook's owner clears it before it goes away. */
	if (!r && st->sync_hook)
		st->sync_hook(st->sync_hook_ctx);
	pthread_mutex_unlock(&st->sync_lock);
	return r;
}

void store_set_sync_hook(struct store *st, void (*fn)(void *), void *ctx)
{
	pthread_mutex_lock(&st->sync_lock);
	st->sync_hook_ctx = ctx;
	st->sync_hook = fn;
	pthread_mutex_unlock(&st->sync_lock);
}

bool store_unsynced(struct store *st)
{
	return atomic_load(&st->commits) != atomic_load(&st->synced_commits) &&
	       !atomic_load(&st->powered_off);
}

bool store_powered_off(struct store *st)
{
	return atomic_load_explicit(&st->powered_off, memory_order_relaxed);
}

/* Everything since the last sync is lost at the next open; until the
 * close, every operation fails. The lock keeps a sync from running in
 * the middle. */
int store_power_cut(struct store *st, uint64_t *lost, bool *was, char *err,
		    size_t errlen)
{
	pthread_mutex_lock(&st->sync_lock);
	*lost = atomic_load(&st->commits) - atomic_load(&st->synced_commits);
	*was = atomic_exchange(&st->powered_off, true);
	int r = *was ? 0 : metastore_durable_save(st->ms, err, errlen);
	if (r)
		atomic_store(&st->powered_off, false);
	pthread_mutex_unlock(&st->sync_lock);
	return r;
}
