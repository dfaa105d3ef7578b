/* Inside the store (store/store.h): its fields, for the files of store/
 * only. fs/ holds a struct store * and calls the headers of store/. */
#ifndef ARRAYSIM_STORE_STORE_I_H
#define ARRAYSIM_STORE_STORE_I_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/group_commit.h"
#include "store/store.h"
#include "dedupe/compress.h"
#include "tiers/array.h"
#include "tiers/backing.h"

struct loss_set;

/* The inodes that may have file capabilities (store/caps.h). */
struct caps_set {
	pthread_mutex_t lock;
	_Atomic size_t n; /* members: 0 is a write's whole cost */
	uint64_t *slot;	  /* open addressing, 0: free */
	size_t size;	  /* a power of two, or 0 */
};

struct store {
	struct store_config cfg;
	char dir[4096];
	struct metastore *ms;
	struct backing *backing;
	struct backing_dev dev;
	struct array *array;
	/* The profile's [dedupe] compression: each unique block's
	 * compressed size recorded (dedupe/csize.h). */
	struct dedupe_compression compress;
	struct stats *stats; /* cfg.stats, or own_stats */
	struct stats own_stats;
	uid_t owner;
	/* Bumped by every commit that changed data or metadata; the
	 * background syncer compares it with what it last made durable. */
	_Atomic uint64_t commits;
	_Atomic uint64_t synced_commits; /* read by the syncer unlocked */
	pthread_mutex_t sync_lock;	 /* one sync at a time */
	struct events *events; /* borrowed (store_set_events) or NULL */
	struct loss_set *lost; /* blocks the array lost (store/loss.c) */
	/* A power loss was injected: everything fails until the close, and
	 * the next open starts from the state of the last sync. */
	atomic_bool powered_off;
	void (*sync_hook)(void *); /* store_set_sync_hook */
	void *sync_hook_ctx;
	struct group_commit gc; /* writes' metadata, committed in groups */
	struct caps_set caps;	/* inodes that may have file capabilities */
};

#endif
