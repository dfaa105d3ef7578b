/* The datastore: what fs/ opens behind one opaque handle.
 *
 * A mounted store keeps its namespace (namespace.c: inodes, directories,
 * symlinks, xattrs; the algorithms over them in names.c, attrs.c,
 * orphans.c) and its file data (datapath*.c: block maps, the dedupe
 * decision, the backing store) in one metadata engine (metastore.h), all
 * inside store transactions (struct store_txn, store/txn.h). Blocks
 * the array lost (loss.c) and bit rot injected on purpose (bitrot.c) are
 * the store's too. No FUSE here: fs/ decodes a request, calls in, and
 * replies; what the store must ask of the front end (does the kernel still
 * hold an inode? may the store grow?) it asks through struct store_hooks.
 * Its fields are private (store/store_i.h, included by store/ only).
 */
#ifndef ARRAYSIM_STORE_STORE_H
#define ARRAYSIM_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/clock.h"
#include "common/stats.h"
#include "meta/metastore.h"

struct store;
struct array;
struct events;

/* What the store asks of whoever opened it; each may be NULL (no). */
struct store_hooks {
	void *ctx;
	/* Does the kernel still hold a reference to @ino (so an unlinked
	 * inode must wait for its last forget)? */
	bool (*held)(void *ctx, uint64_t ino);
	/* May not the store take a new unique block, with @unique already in
	 * use (a thin-provisioned array that is full)? */
	bool (*thin_full)(void *ctx, uint64_t unique);
};

struct store_config {
	const char *dir;	   /* store directory (absolute) */
	uint64_t seed;		   /* --seed: the array model's, in gauges */
	bool verify;		   /* verify-on-match (default on) */
	uint64_t meta_map_bytes;   /* metadata size bound; 0: default */
	uint64_t meta_cache_bytes; /* metadata the daemon keeps mapped */
	bool power_loss;	   /* keep the synced state for power loss */
	/* Replicating: no freed block becomes reusable from the open on,
	 * until replication releases it (metastore_hold_pending). */
	bool hold_pending;
	const char *profile; /* array profile: name or file; NULL null */
	double scale;	     /* --scale: every rate times this; 0 = 1 */
	double time_scale;   /* --time-scale: fault durations; 0 = scale */
	/* Where the store's counters go (the dedupe ones, checksum errors,
	 * lost and repaired reads); NULL: counters of its own. */
	struct stats *stats;
	struct store_hooks hooks;
};

/* Open the store in cfg->dir, its backing store, the array model and the
 * set of lost blocks; make the root, reap orphans an earlier run left and
 * sync. 0 or -errno, with a one-line reason in @err. */
int store_open(const struct store_config *cfg, struct store **out, char *err,
	       size_t errlen);
/* Sync (logged when it fails), then free everything. */
void store_close(struct store *st);
/* Make everything committed so far durable: data first, then metadata.
 * -EIO once the power was cut (store_power_cut). */
int store_sync(struct store *st);
/* Call @fn(@ctx) after every successful sync (a replication sync
 * point); NULL to stop. Set before any sync can race with it. */
void store_set_sync_hook(struct store *st, void (*fn)(void *), void *ctx);
/* Has anything been committed since the last sync, with the power on? */
bool store_unsynced(struct store *st);
/* An emulated power loss: pin the durable state of the last sync (the
 * next open starts from it) and fail every sync from now on. *lost: the
 * commits since that sync; *was: the power was already off. 0, or -errno
 * with a reason in @err. */
int store_power_cut(struct store *st, uint64_t *lost, bool *was, char *err,
		    size_t errlen);
bool store_powered_off(struct store *st);
/* Finish what `orphans` says is left for @ino, a bounded transaction at a
 * time: drop the blocks past its size, or, when it has no links and the
 * kernel holds no reference (hooks.held), all of them and then the inode
 * (store/orphans.c). */
int store_trim(struct store *st, uint64_t ino);
/* Delete the inodes left unlinked-but-open by an earlier run
 * (store/orphans.c). */
int store_reap_orphans(struct store *st);
/* Past cfg.meta_cache_bytes of mapped metadata, drop the map's pages from
 * this process (they stay in the host page cache). Called by the syncer
 * and every STORE_TRIM_COMMITS commits, so a long sync does not let RSS
 * run (store/meta_cache.c). */
void store_trim_meta_cache(struct store *st);
#define STORE_TRIM_COMMITS 256

/* Fill the store-derived stats figures. */
void store_gauges(struct store *st, struct stats_gauges *g);
/* The writes' group commit since the store opened: groups committed, the
 * writes in them, and of those the ones whose writer did not wait (their
 * reply sent by the group's leader: dp_write.done). */
struct store_commits {
	unsigned long long groups, writes, by_leader;
};
struct store_commits store_commits(struct store *st);

/* What the front end reads of the store: its metadata engine (for the
 * read transactions of namespace.h), the array model the store opened,
 * where its counters go, its directory. */
struct metastore *store_ms(struct store *st);
struct array *store_array(struct store *st);
struct stats *store_stats(struct store *st);
const char *store_dir(struct store *st);
/* The event log bitrot and loss report to (fs/'s, borrowed; NULL: none). */
void store_set_events(struct store *st, struct events *ev);

/* Current time in ns since the epoch (for inode timestamps): the wall
 * clock of common/clock.h. */
static inline int64_t store_now_ns(void)
{
	return clock_wall_ns();
}

#endif
