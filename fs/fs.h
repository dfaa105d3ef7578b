/* The mounted datastore: what every part of fs/ shares.
 *
 * fs/ is the front end. A request enters in the FUSE ops (fs/ops.c's
 * table, one file per family: ops_entry.c, ops_names.c, ops_io.c,
 * ops_dir.c, ops_xattr.c), which decode it and call the datastore: the
 * namespace algorithms (names.c: make, link, remove, rename; attrs.c;
 * orphans.c) over the records of namespace.c (inodes, directories,
 * symlinks, xattrs), and file data (datapath.c: block maps, dedupe, the
 * backing store), all inside metadata-store transactions; reads and writes
 * go on to the array model (tiers/array.h) to be completed.
 */
#ifndef ARRAYSIM_FS_FS_H
#define ARRAYSIM_FS_FS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/clock.h"
#include "store/metastore.h"
#include "common/stats.h"
#include "tiers/array.h"
#include "tiers/backing.h"

struct inode_table;
struct faults;
struct events;
struct completer;
struct scenario_runner;
struct loss_set;

struct fs_config {
	const char *store;	   /* store directory (absolute) */
	uint64_t seed;		   /* --seed: logged, shown in stats */
	bool verify;		   /* verify-on-match (default on) */
	bool kernel_cache;	   /* let the kernel cache file data */
	uint64_t sync_interval_ns; /* background sync period; 0: never */
	uint64_t meta_map_bytes;   /* metadata size bound; 0: default */
	uint64_t meta_cache_bytes; /* metadata the daemon keeps mapped */
	bool power_loss;	   /* keep the synced state for power loss */
	const char *profile;	   /* array profile: name or file; NULL null */
	double scale;		   /* --scale: every rate times this; 0 = 1 */
};

struct fs {
	struct fs_config cfg;
	char store[4096];
	struct metastore *ms;
	struct backing *backing;
	struct backing_dev dev;
	struct array *array;
	struct inode_table *itab;
	struct stats stats;
	uid_t owner;
	/* The FUSE session (struct fuse_session *), for invalidations the
	 * kernel must hear about; NULL when no FUSE is involved (tests). */
	void *session;
	/* Bumped by every commit that changed data or metadata; the
	 * background syncer compares it with what it last made durable. */
	_Atomic uint64_t commits;
	uint64_t synced_commits;
	pthread_mutex_t sync_lock; /* one sync at a time */
	/* Fault injection (fs/fault_gate.c): the active rules, the event
	 * log, the queue that delays replies, bit rot's random stream. */
	struct faults *faults;
	struct events *events;
	struct completer *fault_delay;
	uint64_t bitrot_rng;
	struct scenario_runner *scenario; /* the last one started, or NULL */
	struct loss_set *lost; /* blocks the array lost (store/loss.c) */
	atomic_bool thin_full_logged;
	/* A power loss was injected: everything fails until the unmount, and
	 * the next mount starts from the state of the last sync. */
	atomic_bool powered_off;
	uint64_t opened_ns; /* stats_now_ns() when the store was opened */
};

/* Open the store and everything on top of it. 0 or -errno, with a
 * one-line reason in @err. */
int fs_open(struct fs *fs, const struct fs_config *cfg, char *err,
	    size_t errlen);
void fs_close(struct fs *fs);
/* Make everything committed so far durable: data first, then metadata. */
int fs_sync(struct fs *fs);
/* Finish what `orphans` says is left for @ino, a bounded transaction at a
 * time: drop the blocks past its size, or, when it has no links and the
 * kernel holds no reference, all of them and then the inode
 * (store/orphans.c). */
int fs_trim(struct fs *fs, uint64_t ino);
/* Delete the inodes left unlinked-but-open by an earlier run
 * (store/orphans.c). */
int fs_reap_orphans(struct fs *fs);
/* Past cfg.meta_cache_bytes of mapped metadata, drop the map's pages from
 * this process (they stay in the host page cache). Called by the syncer
 * and every FS_TRIM_COMMITS commits, so a long sync does not let RSS run. */
void fs_trim_meta_cache(struct fs *fs);
#define FS_TRIM_COMMITS 256

/* Fill the store-derived stats figures. */
void fs_gauges(struct fs *fs, struct stats_gauges *g);

/* Current time in ns since the epoch (for inode timestamps): the wall
 * clock of common/clock.h, under the name store/datapath.c still calls. */
static inline int64_t fs_now_ns(void)
{
	return clock_wall_ns();
}

#endif
