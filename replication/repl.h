/* Replication of a mounted store to a second store, on this host or in an
 * `arraysim replica` over TCP (`arraysim mount --replicate-to DEST`),
 * asynchronous: the source acknowledges at once, and a thread ships consistent
 * batches at each sync point of the source and every `--rpo` interval. A batch
 * is the difference between two read snapshots of the source's metadata (the
 * one the replica holds, and a cut taken now): fingerprints of the blocks
 * the replica may lack first, then the bytes of those it lacks, then the
 * metadata change, applied on the replica in one write transaction after
 * the bytes are durable (replication/replica.h). The replica is always a
 * state the source had committed, and a store of its own: mount it, fsck
 * it. While replication runs the source reuses no freed block until the
 * replica has a state where it is free (metastore_hold_pending). */
#ifndef ARRAYSIM_REPLICATION_REPL_H
#define ARRAYSIM_REPLICATION_REPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct store;
struct stats;
struct repl;
struct faults;
struct events;
struct array;

#define REPL_DEFAULT_RPO_NS 1000000000ull

struct repl_config {
	/* The replica's store directory (absolute), or HOST:PORT of an
	 * `arraysim replica` (replication/link.h's rule). */
	const char *dest;
	const char *secret_file; /* HOST:PORT: the shared secret's file */
	uint64_t rpo_ns; /* the longest between batches; 0: the default */
	/* The mount's fault registry: no batch ships while a
	 * replication-link or replica fault stands; NULL: none. */
	struct faults *faults;
	/* Where replication_paused/_resumed/_lag/_caught_up go; NULL:
	 * nowhere. */
	struct events *events;
	/* Synchronous: repl_sync_wait() makes a sync point wait for the
	 * batch that covers it (replication/sync.c). */
	bool sync;
	/* The source's array model, for the link's figures and a batch's
	 * cost (tiers/array.h); NULL: none. */
	struct array *array;
};

/* Lag beyond this many rpo intervals is a replication_lag event. */
#define REPL_LAG_RPOS 2

/* Open the replica and start shipping (the first batch is the whole
 * store). @stats: the source's counters (write bytes give lag in bytes).
 * 0, or -errno with one line in @err. */
int repl_start(struct store *src, struct stats *stats,
	       const struct repl_config *cfg, struct repl **out, char *err,
	       size_t errlen);
/* Ship what is committed (unless paused, stopped or failed), then stop
 * and close the replica. NULL: nothing. */
void repl_close(struct repl *r);
/* `replication start|pause|resume|stop|sync|status [json]`: @args is what
 * follows "replication". 0, or -errno with one line in @err. */
int repl_control(struct repl *r, const char *args, FILE *out, char *err,
		 size_t errlen);
/* The figures as one JSON object (stats --json's "replication"). */
void repl_status_json(struct repl *r, FILE *out);
/* The figures as more members of a samples.jsonl line (",\"repl_...\":"),
 * rates over the @interval_s since the previous call: the sampler's
 * thread alone calls it. */
void repl_sample_write(struct repl *r, FILE *out, double interval_s);
/* The figures as Prometheus series (arraysim_replication_*). */
void repl_metrics_write(struct repl *r, FILE *out);
/* Sync mode (replication/sync.c): after the source's sync point, wait
 * for a batch that covers it to be applied on the replica. 0 at once in
 * async mode (or NULL) and while paused or stopped (the guarantee is
 * suspended); 0 once applied; -EIO when a fault holds batches back or
 * replication failed (the replica lacks it). */
int repl_sync_wait(struct repl *r);
/* Whether @r is synchronous. */
bool repl_mode(const struct repl *r);

#endif
