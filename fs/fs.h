/* The front end's state: what every part of fs/ shares.
 *
 * fs/ is the FUSE adapter. A request enters in the FUSE ops (fs/ops.c's
 * table, one file per family: ops_entry.c, ops_names.c, ops_io.c,
 * ops_dir.c, ops_xattr.c), which decode it, ask the fault gate
 * (fault_gate.c), call the datastore behind `st` (store/store.h: the
 * namespace algorithms, file data, all inside store transactions),
 * account and reply; reads and writes go on to the array model
 * (tiers/array.h) to be completed. Nothing here reaches into the store's
 * fields: they are store/'s own.
 */
#ifndef ARRAYSIM_FS_FS_H
#define ARRAYSIM_FS_FS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/stats.h"
#include "store/store.h"

struct inode_table;
struct faults;
struct events;
struct completer;
struct scenario_runner;
struct repl;

struct fs_config {
	const char *store; /* store directory (absolute) */
	uint64_t seed;	   /* --seed: logged, shown in stats */
	bool verify;	   /* verify-on-match (default on) */
	bool kernel_cache; /* let the kernel cache file data */
	/* -o writeback_cache: the kernel's writeback cache, a client's page
	 * cache in front of the array; false after INIT if not granted. */
	bool writeback_cache;
	uint64_t sync_interval_ns; /* background sync period; 0: never */
	uint64_t meta_map_bytes;   /* metadata size bound; 0: default */
	uint64_t meta_cache_bytes; /* metadata the daemon keeps mapped */
	bool power_loss;	   /* keep the synced state for power loss */
	bool hold_pending;	   /* replicating: store_config's */
	const char *profile;	   /* array profile: name or file; NULL null */
	double scale;		   /* --scale: every rate times this; 0 = 1 */
	double time_scale; /* --time-scale: fault durations; 0 = scale */
};

struct fs {
	struct fs_config cfg;
	char store[4096];
	struct store *st;    /* the datastore (store/store.h) */
	struct array *array; /* the store's array model, to submit I/O to */
	struct inode_table *itab; /* the kernel's lookup counts, data locks */
	struct stats stats;	  /* op counters; the store counts here too */
	/* The FUSE session (struct fuse_session *), for invalidations the
	 * kernel must hear about; NULL when no FUSE is involved (tests). */
	void *session;
	/* Fault injection (fs/fault_gate.c): the active rules, the event
	 * log, the queue that delays replies, bit rot's random stream. */
	struct faults *faults;
	struct events *events;
	struct completer *fault_timers;
	uint64_t bitrot_rng;
	struct scenario_runner *scenario; /* the last one started, or NULL */
	atomic_bool thin_full_logged;
	uint64_t opened_ns; /* stats_now_ns() when the store was opened */
	struct repl *repl;  /* --replicate-to's, for the metrics; or NULL */
};

#endif
