/* The timing engine: when a request completes, in emulated time.
 *
 * A request is an ordered list of stages, each (resource, op, bytes,
 * offset); a resource is anything that serves operations with a limited
 * number of parallel slots (a front-end link, a controller, a drive).
 * engine_submit() returns the request's emulated completion time in ns;
 * it is a pure function of the configuration, the seed and the sequence
 * of submissions (no clock reads, no threads). See engine.c for the model.
 */
#ifndef ARRAYSIM_TIERS_ENGINE_H
#define ARRAYSIM_TIERS_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/prng.h"

struct latency_hist;
struct engine_stage;

enum engine_op { ENGINE_OP_READ, ENGINE_OP_WRITE, ENGINE_OP_COUNT };

/* ---- service-time distributions --------------------------------------- */

#define ENGINE_DIST_MAX_POINTS 8
#define ENGINE_MAX_THREADS 8 /* hardware threads per core (SMT) */

/* A service time: fixed (n_points == 0: always fixed_ns), or given by
 * percentile points and sampled by inverse-CDF linear interpolation.
 * Points ascend in pct (0..100) with non-decreasing ns. A point at pct 0
 * is the minimum; without one, samples below the first point equal it.
 * Samples above the last point equal it (give pct 100 for a maximum). */
struct engine_dist {
	uint64_t fixed_ns; /* used when n_points == 0 */
	unsigned n_points;
	struct engine_dist_point {
		double pct;  /* percentile, 0..100 */
		uint64_t ns; /* service time at that percentile */
	} points[ENGINE_DIST_MAX_POINTS];
};

/* 0, or -EINVAL if @d's points are out of order or out of range. */
int engine_dist_check(const struct engine_dist *d);
/* One sample of @d, in ns, drawing from @r. */
uint64_t engine_dist_sample(const struct engine_dist *d, uint64_t *r);

/* ---- resources ---------------------------------------------------------- */

/* HDD positioning (tiers/drive_hdd.c), replacing the service
 * distribution when a resource has a position_ns hook:
 *   service = overhead_ns                                   distance 0
 *   service = overhead_ns + seek(d) + 30e9 / rpm            distance d > 0
 *   seek(d) = track_seek_ns
 *             + (full_seek_ns - track_seek_ns) * sqrt(min(d, span) / span)
 * d = |offset - head|, head = end of the previous operation (bytes), so a
 * sequential stream pays neither seek nor rotation (the next sector is
 * under the head). sqrt is taken in 32.32 fixed point, the product
 * rounded to ns: integer arithmetic, exact for d = span / 4^k. */
struct engine_hdd {
	uint32_t rpm;		/* revolutions per minute, >= 1 */
	uint64_t overhead_ns;	/* command processing, every operation */
	uint64_t track_seek_ns; /* seek to the nearest other position */
	uint64_t full_seek_ns;	/* seek across span_bytes */
	uint64_t span_bytes;	/* full-stroke distance (the capacity) */
};

struct engine_resource_conf {
	const char *name; /* for stats and logs; copied */
	unsigned slots;	  /* parallel service units, >= 1 */
	/* Hardware threads per core (SMT; 0 or 1: none): the slots are
	 * slots / threads cores of threads each, slot s on core s %
	 * (slots / threads). With k threads of a core busy, the core does
	 * 1 + (smt_yield - 1)(k - 1)/(threads - 1) of one thread's work,
	 * shared evenly: a stage whose core has k - 1 other threads busy
	 * when it is booked takes k / that times its service time. smt_yield
	 * is in [1, threads], threads at most ENGINE_MAX_THREADS. */
	unsigned threads;
	double smt_yield;
	struct engine_dist service[ENGINE_OP_COUNT];
	/* Transfer rate of the one wire all slots share; 0 = unlimited. */
	uint64_t bandwidth_bytes_per_s[ENGINE_OP_COUNT];
	/* Operation starts per second, all slots together; 0 = unlimited. */
	uint64_t max_ops_per_s[ENGINE_OP_COUNT];
	/* Bytes per second the ops/s gate also books per operation, beside
	 * 1 / max_ops_per_s: a cost per byte that adds to the cost per
	 * command (a full SSD's garbage collection, paid for each byte
	 * written); 0 = none. */
	uint64_t gate_bytes_per_s[ENGINE_OP_COUNT];
	/* A positioning model in place of service[] (a drive kind's, see
	 * tiers/drive.h), or NULL: the service time of @s with the head
	 * at *@head_bytes, moving the head. Its parameters are @hdd. */
	uint64_t (*position_ns)(const struct engine_hdd *hdd,
				uint64_t *head_bytes,
				const struct engine_stage *s);
	struct engine_hdd hdd;
};

/* What a resource has done so far. */
struct engine_resource_stats {
	uint64_t ops[ENGINE_OP_COUNT];
	uint64_t bytes[ENGINE_OP_COUNT];
	uint64_t busy_ns; /* sum over operations of slot holding time */
	/* Sum over cores of the time any of the core's threads was busy
	 * (busy_ns without SMT). */
	uint64_t core_busy_ns;
	uint64_t
	    wait_ns; /* sum of time queued (for a slot or the ops/s gate) */
	/* Time booked on the two serial parts all slots share: the ops/s
	 * gate (1/cap per start, plus its bytes' cost) and the wire
	 * (transfers). Over elapsed time, each is how full that part is. */
	uint64_t gate_ns, wire_ns;
	uint64_t last_end_ns; /* latest completion seen */
};

/* ---- the engine --------------------------------------------------------- */

struct engine;

/* One stage of a request: served by resource @res (an id from
 * engine_add_resource) after the previous stage ends. */
struct engine_stage {
	int res;
	enum engine_op op;
	uint64_t bytes;	       /* transferred on the resource's wire */
	uint64_t offset_bytes; /* position on the device (HDD model) */
	/* Added to the service time: work this stage brings with it (a
	 * controller's CPU cost, which varies per request). */
	uint64_t work_ns;
	/* A further piece of an operation already counted (a large write's
	 * chunks on a controller's other cores, tiers/model.c): its slot
	 * time is busy time, but it is no operation of its own (ops and the
	 * latency histogram leave it out). */
	bool part;
};

/* A new engine drawing from @seed. 0 or -ENOMEM. */
int engine_new(uint64_t seed, struct engine **out);
/* Free @e; NULL is a no-op. */
void engine_free(struct engine *e);
/* Add a resource (conf is copied): its id >= 0, or -EINVAL for a bad
 * conf (no slots, bad distribution, hdd without span), or -ENOMEM. */
int engine_add_resource(struct engine *e,
			const struct engine_resource_conf *conf);
/* Run a request arriving at @now_ns through @n stages in order; returns
 * its completion time (ns, >= now_ns). Requests are served in the order
 * they are submitted: submit in non-decreasing now_ns for FIFO queues. */
uint64_t engine_submit(struct engine *e, uint64_t now_ns,
		       const struct engine_stage *stages, unsigned n);
/* Resource @res serves @factor (>= 1; 1: normally) times slower from now
 * on: its sampled service time is multiplied (a fail-slow drive). 0 or
 * -EINVAL. */
int engine_set_slowdown(struct engine *e, int res, double factor);
/* Copy resource @res's counters into @st. 0 or -EINVAL (no such id). */
int engine_resource_stats(const struct engine *e, int res,
			  struct engine_resource_stats *st);
/* The @pct-th percentile (0 < pct <= 100) of resource @res's operation
 * times, arrival to end (queueing included), in ns; 0 if none. */
uint64_t engine_resource_latency(const struct engine *e, int res, double pct);
/* Resource @res's histogram of operation times (as for
 * engine_resource_latency), or NULL (no such id). Read it while no
 * request is being submitted (the caller's lock). */
const struct latency_hist *engine_resource_hist(const struct engine *e,
						int res);
/* How many of resource @res's slots are taken at @now_ns (serving, or
 * booked for work queued behind), of engine_resource_slots(); 0 for no
 * such id. */
unsigned engine_resource_busy_slots(const struct engine *e, int res,
				    uint64_t now_ns);
unsigned engine_resource_slots(const struct engine *e, int res);
/* Resource @res's cores: its slots over its threads per core. */
unsigned engine_resource_cores(const struct engine *e, int res);
/* How many resources there are (ids 0 .. n-1). */
unsigned engine_resources(const struct engine *e);
/* Resource @res's name, or NULL (no such id). */
const char *engine_resource_name(const struct engine *e, int res);

#endif
