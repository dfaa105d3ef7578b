/* The array model: a resolved profile as engine resources, and one host
 * I/O as the stages it takes through them.
 *
 * model_new() turns a profile (every rate times @scale) into resources of
 * the timing engine (tiers/engine.h): each front-end link (one resource
 * per direction), each controller, each drive of each tier.
 * model_submit() returns when one I/O completes, in emulated ns; see
 * model.c for the path a read and a write take. Not thread-safe: the
 * caller serialises submissions (tiers/array_timed.c holds a lock).
 */
#ifndef ARRAYSIM_TIERS_MODEL_H
#define ARRAYSIM_TIERS_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/engine.h"
#include "tiers/profile.h"

struct model;

struct model_io {
	enum engine_op op;
	uint64_t offset; /* bytes, logical */
	uint64_t length; /* bytes, at most RAID_IO_MAX (1 MiB) */
	bool cache_hit;	 /* hybrid: the blocks sit in the flash tier */
	/* Blocks of this write that dedupe found already stored: when all
	 * of them were, no drive is written. */
	uint32_t blocks_deduped;
	/* Arrives over the replication link, not the front end (a replica's
	 * write, tiers/model_repl.h): no request latency, protocol or
	 * front-end link. */
	bool replicated;
};

/* Back-end operations a submission caused, for tests and stats. */
struct model_counts {
	uint64_t drive_ops[ENGINE_OP_COUNT];	  /* foreground */
	uint64_t background_ops[ENGINE_OP_COUNT]; /* after the ack */
	uint64_t rebuild_ops[ENGINE_OP_COUNT];	  /* rebuilding drives */
	/* [dedupe] reduce_at = destage: the controllers' reduction work at
	 * destage, and the bytes it left for the backing tier. */
	uint64_t reduce_cpu_ns, reduce_kept_bytes;
};

/* Build the model of @p (kept by reference: it must outlive the model)
 * with every rate multiplied by @scale (> 0). 0, -EINVAL (a null or
 * impossible profile), or -ENOMEM. */
int model_new(const struct profile *p, double scale, uint64_t seed,
	      struct model **out);
/* The same with fault durations (failover, recovery, multipath timeout,
 * detection window, a rebuild's used / rate) divided by @time_scale (> 0)
 * instead of @scale: a rehearsal shortened without making the array
 * faster than the host. model_new is @time_scale = @scale. */
int model_new_timed(const struct profile *p, double scale, double time_scale,
		    uint64_t seed, struct model **out);
/* Free @m; NULL is a no-op. */
void model_free(struct model *m);
/* Emulated completion time (>= @now_ns) of @io arriving at @now_ns.
 * Submit in non-decreasing @now_ns. @io->length 0 or > 1 MiB: completes
 * at @now_ns untimed. */
uint64_t model_submit(struct model *m, uint64_t now_ns,
		      const struct model_io *io);
/* Move @length dirty bytes at @offset from the cache tier to the backing
 * tier, starting at @now_ns (hybrid; the destager's work); returns when
 * it is done. */
uint64_t model_destage(struct model *m, uint64_t now_ns, uint64_t offset,
		       uint64_t length);
/* model_destage of one 4 KiB block at @offset of which data reduction
 * keeps @kept bytes (0: dedupe found it; its compressed size; 4096:
 * neither). With [dedupe] reduce_at = destage the holding node's
 * controller first fingerprints (and compresses) it and the backing tier
 * is written @kept bytes (none: metadata only); else as model_destage. */
uint64_t model_destage_reduced(struct model *m, uint64_t now_ns,
			       uint64_t offset, uint32_t kept);
/* ---- faults (tiers/model_faults.c) --------------------------------------
 *
 * Array-level faults the model runs under, set and cleared at an emulated
 * time; see model_faults.c for what each does. Controllers and links are
 * numbered from 0 (resources ctl<i>, link<i>), drives per tier. */
enum model_fault_kind {
	MODEL_FAULT_CONTROLLER, /* a controller fails */
	MODEL_FAULT_PATH,	/* a front-end path (link) is lost */
	MODEL_FAULT_DRIVE,	/* a drive is pulled */
	MODEL_FAULT_DRIVE_SLOW, /* a drive serves @factor times slower */
};

struct model_fault {
	enum model_fault_kind kind;
	unsigned tier; /* drives: enum profile_tier_id */
	unsigned id;
	double factor; /* drive-slow: > 1 */
};

/* What setting or clearing a fault did, in emulated ns, for the event
 * log; zero where it does not apply. */
struct model_fault_effect {
	uint64_t stall_from, stall_until; /* until 0: no stall */
	bool down;			  /* the array is shut down after it */
	bool down_changed;  /* ... and was not before, or vice versa */
	unsigned serving;   /* controllers or paths serving afterwards */
	uint64_t serves_ns; /* restored controller: serves again from */
	uint64_t fail_ns;   /* drive: the array notices it then */
	/* The soonest the rebuild can end (fail_ns + used / rate); the
	 * drives' real end, later under load: model_rebuild_end. */
	uint64_t rebuild_end_ns;
	uint64_t rebuild_bytes;
	/* A node back (several nodes): fail_ns, rebuild_end_ns and
	 * rebuild_bytes are the resync of the writes it missed, on its
	 * drives (tiers/model_resync.c). */
	bool resync;
	bool unnoticed; /* drive back within the detection window */
	/* Drive: failures now exceed what some stripes of its tier survive;
	 * the loss event's number for model_block_lost (from 1; 0: none). */
	unsigned loss;
};

/* Set (@on) or clear fault @f at @now_ns (not before the last
 * submission). 0; -EINVAL: no such controller, path or drive, or a bad
 * factor; -ENOTSUP: the profile lacks that tier; -EALREADY: already so.
 * @eff says what it did. A drive failure beyond the tolerance is taken:
 * eff->loss names the loss (on the cache tier only dirty blocks can be
 * lost: tiers/array_timed.c filters). */
int model_fault(struct model *m, uint64_t now_ns, const struct model_fault *f,
		bool on, struct model_fault_effect *eff);
/* What a scheduled transition of fault @f was: its stall's end, a
 * restored controller serving again, or a drive's (noticed, rebuild)
 * schedule. */
enum model_fault_mark { MODEL_MARK_STALL, MODEL_MARK_SERVES, MODEL_MARK_DRIVE };
/* Whether the transition @mark keyed by @key_ns (stall_until, serves_ns,
 * fail_ns of the effect that scheduled it) still stands: no later change
 * moved or cancelled it. */
bool model_fault_current(const struct model *m, const struct model_fault *f,
			 enum model_fault_mark mark, uint64_t key_ns);
/* Is stored block @pblk (the store's physical block number) lost by loss
 * event @loss (eff->loss of the change that caused it): its drive and
 * more than its stripe survives were unavailable then (placement.h)?
 * The loss stays, whatever comes back later: the array would have lost
 * it. */
bool model_block_lost(const struct model *m, unsigned loss, uint64_t pblk);
/* Can the array rebuild stored block @pblk from its redundancy at
 * @now_ns, should its copy on the data tier (flash, else backing) read
 * back wrong: does its stripe survive that copy's drive and those out
 * now (placement.h)? Never on raid0. */
bool model_block_repairable(const struct model *m, uint64_t now_ns,
			    uint64_t pblk);
/* The tier (enum profile_tier_id) of loss event @loss. */
unsigned model_loss_tier(const struct model *m, unsigned loss);
/* Whether the array is shut down: more controllers failed than its mode
 * survives (single: its one; active-standby: all; active-active: a
 * majority), or every front-end path lost; several nodes: more nodes
 * down (no controller, or partitioned: every network path lost) than
 * [nodes] raid survives. */
bool model_down(const struct model *m);

/* Book the rebuilds' work up to @now_ns (not before the last
 * submission): a rebuild runs on its own clock, whether or not requests
 * arrive. model_submit and model_fault do it themselves; call it before
 * reading the state (model_state.h) or model_block_repairable at @now_ns
 * with no request since. */
void model_advance(struct model *m, uint64_t now_ns);
/* Drive operations so far. */
void model_counts(const struct model *m, struct model_counts *c);
/* The engine, for per-resource stats (engine_resource_stats). */
const struct engine *model_engine(const struct model *m);

#endif
