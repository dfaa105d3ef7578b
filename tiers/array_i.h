/* Private to tiers/array*.c: the array's state and the ops that tell the
 * null model from a timed one. Types only. */
#ifndef ARRAYSIM_TIERS_ARRAY_I_H
#define ARRAYSIM_TIERS_ARRAY_I_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "tiers/array.h"
#include "tiers/cache_destager.h"

struct array_ops;

struct array {
	const struct array_ops *ops; /* null or timed */
	uint64_t seed;
	/* What is emulated, as opened: time_scale resolved, profile owned
	 * (profile_name), for what names it (status, stats, metrics). */
	struct array_conf conf;
	char *profile_name;
	struct profile *profile; /* NULL: the null model */
	struct model *model;
	struct completer *completer;
	/* Holds requests with an injected delay until they arrive
	 * (array_io.delay_ns); apart from the completer above, so that the
	 * host-bound figures count modelled completions only. */
	struct completer *arrivals;
	pthread_mutex_t lock; /* serialises model and cache */
	/* Hybrid only: */
	struct cache *cache;
	struct cache_destager destager;
	uint64_t fault_ns; /* the last fault change */
	/* array_stats.c's figures at the last array_stats_reset() (NULL:
	 * none yet), one malloc'd block freed with the array. */
	void *stats_base;
	void *mark_base; /* the same at the last array_stats_mark() */
	/* array_model_pause(): requests land as the model would place them
	 * (flash residency) but complete at once, booking no time. */
	bool paused;
	/* Held while shut down with `shutdown = block`, oldest first. */
	struct held *held, **held_tail;
	/* The replication link (array_replication), or NULL. */
	struct model_repl *repl;
};

struct held {
	struct array_io *io;
	struct held *next;
};

/* What differs between the null model and a timed one. Both instances
 * fill every callback; tiers/array.c dispatches the public API to them
 * (see array.h for what each call means). */
struct array_ops {
	const char *name; /* "null", "timed" */
	bool timed;	  /* array_timed() */
	/* array_free(): complete what waits with -EIO (nothing hangs). */
	void (*drain)(struct array *a);
	/* array_in_flight(), array_host_bound(). */
	unsigned (*in_flight)(struct array *a);
	int (*host_bound)(struct array *a, struct late_totals *out);
	/* array_submit(): complete @io, now or at its modelled time. */
	void (*submit)(struct array *a, struct array_io *io);
	/* array_fault(), after *@eff is zeroed and *@now_ns is now. */
	int (*fault)(struct array *a, const struct model_fault *f, bool on,
		     uint64_t *now_ns, struct model_fault_effect *eff,
		     char *err, size_t errlen);
	bool (*fault_current)(struct array *a, const struct model_fault *f,
			      enum model_fault_mark mark, uint64_t key_ns);
	/* array_rebuild_end(). */
	int (*rebuild_end)(struct array *a, const struct model_fault *f,
			   uint64_t fail_ns, uint64_t *end_ns);
	size_t (*lost_filter)(struct array *a, unsigned loss, uint64_t *pblk,
			      size_t n);
	bool (*block_repairable)(struct array *a, uint64_t pblk);
	void (*with_engine)(struct array *a,
			    void (*fn)(void *ctx, const struct engine *e),
			    void *ctx);
	void (*with_model)(struct array *a,
			   void (*fn)(void *ctx, const struct model *m,
				      const struct cache *c),
			   void *ctx);
};

extern const struct array_ops array_null_ops;  /* array_null.c */
extern const struct array_ops array_timed_ops; /* array_timed.c */

#endif
