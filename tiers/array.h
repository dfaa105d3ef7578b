/* The array model's entry point: when each I/O completes.
 *
 * The data path (store/datapath_*.c) stores or loads the bytes first, then
 * hands the request to array_submit(). The model decides the moment the request
 * completes, in emulated time, and calls io->complete from whatever thread
 * owns that moment; the FUSE reply is sent from there. A FUSE worker never
 * waits for emulated time: it returns to the kernel for the next request.
 *
 *   FUSE worker                      model                 completer
 *   -----------                      -----                 ---------
 *   datapath: bytes in/out  --->  array_submit(io)  ---> io->complete(io)
 *                                  (null: at once)        -> fuse_reply_*
 *
 * The `null` model (the default) completes every request at once, in the
 * submitting thread: no timing, for fast CI. A timed profile's requests
 * complete from the completer thread at their modelled time.
 */
#ifndef ARRAYSIM_TIERS_ARRAY_H
#define ARRAYSIM_TIERS_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tiers/array_io.h"
#include "tiers/model.h"

struct array;

/* The model of @profile (a built-in name or an .ini path; "null" for no
 * timing) with every rate times @scale, drawing from @seed. 0, -EINVAL
 * (a profile that does not load: logged), -ENOMEM or -errno (the
 * completer thread). */
int array_new(const char *profile, double scale, uint64_t seed,
	      struct array **out);
/* array_new's arguments, and the fault time scale apart from the rates'. */
struct array_conf {
	const char *profile; /* a built-in name or an .ini path */
	double scale;	     /* rates times, durations divided by (> 0) */
	/* Fault durations (failover, detection window, multipath timeout,
	 * recovery, rebuild) divided by this instead; 0: scale. */
	double time_scale;
	uint64_t seed;
};
/* array_new from @conf. The same returns; -EINVAL also for a negative
 * or NaN time_scale. */
int array_open(const struct array_conf *conf, struct array **out);
/* Complete what is queued at once, free. NULL is a no-op. */
void array_free(struct array *a);
/* What @a emulates, as opened (time_scale resolved, never 0): for what
 * names it to the user. Valid until array_free. */
const struct array_conf *array_conf_get(const struct array *a);
/* The profile @a emulates, as loaded. Valid until array_free. */
const struct profile *array_profile(const struct array *a);
/* Whether the model tracks residency and wants io->pblks filled. */
bool array_wants_blocks(const struct array *a);
/* Whether, besides, its destager reduces and wants a write's io->kept
 * ([dedupe] reduce_at = destage). */
bool array_wants_kept(const struct array *a);
/* Whether requests are timed (false: the null model). */
bool array_timed(const struct array *a);
/* `ctl MNT model pause|resume`, to lay out files at host speed: while
 * paused, a request lands where the model would put it (a hybrid's flash
 * residency and write policy) and completes at once, booking no time on
 * any resource. 0, or -ENOTSUP for the null model (nothing to pause). */
int array_model_pause(struct array *a, bool pause);
/* Requests the array holds now: arrived, not yet replied to (waiting for
 * their modelled time, or held while the array is shut down). The host's
 * queue depth at the array. */
unsigned array_in_flight(struct array *a);
struct late_totals;
/* How many timed requests the host replied to late (tiers/late_meter.h):
 * the run's honest limit, also logged at unmount. 0, or -ENOENT (null
 * model). */
int array_host_bound(struct array *a, struct late_totals *out);
struct late_window;
/* The same over the last @span_ns (in the late meter's 100 ms steps,
 * up to 12.8 s), with the worst lateness. 0, or -ENOENT (null model). */
int array_host_window(struct array *a, uint64_t span_ns,
		      struct late_window *out);
struct cache_stats;
/* A hybrid's flash residency counters. 0, or -ENOENT (no flash cache). */
int array_cache_stats(const struct array *a, struct cache_stats *st);
struct engine;
/* Call @fn with the model's engine (NULL for the null model) while no
 * request is being timed, so that its per-resource figures agree. */
void array_with_engine(struct array *a,
		       void (*fn)(void *ctx, const struct engine *e),
		       void *ctx);
struct model;
struct cache;
/* Call @fn with the model and the flash cache (NULL: none) while no
 * request is being timed, for a consistent snapshot
 * (tiers/array_snapshot.h). Not called for the null model. */
void array_with_model(struct array *a,
		      void (*fn)(void *ctx, const struct model *m,
				 const struct cache *c),
		      void *ctx);
/* Hand @io to the model (after io->delay_ns, an injected latency);
 * io->complete runs at its emulated completion.
 * While the array is shut down (model_down) it completes at once with
 * -EIO, or waits until the array is back (profile `shutdown = block`). */
void array_submit(struct array *a, struct array_io *io);
/* Set (@on) or clear an array fault now; *now_ns is when (the host's
 * monotonic clock, as clock_mono_ns) and @eff what the model did. 0, or
 * -ENOTSUP (the null model, or a tier or failure it cannot model),
 * -EINVAL (no such controller, path or drive), -EALREADY: with one line
 * in @err. @f->tier FAULT_TIER_AUTO-like values >= PROFILE_TIER_COUNT
 * mean the data tier (flash, else backing). */
int array_fault(struct array *a, const struct model_fault *f, bool on,
		uint64_t *now_ns, struct model_fault_effect *eff, char *err,
		size_t errlen);
/* Keep, of the @n stored blocks @pblk, those lost by loss event @loss
 * (model_block_lost; eff->loss of the fault that caused it), in order, in
 * place; how many. */
size_t array_lost_filter(struct array *a, unsigned loss, uint64_t *pblk,
			 size_t n);
/* model_block_repairable() now; false with the null model. */
bool array_block_repairable(struct array *a, uint64_t pblk);
/* The flash cache device fails: nothing stays resident (a spare takes
 * over, empty). *pblk (malloc'd, *n of them) gets the physical blocks that
 * were dirty, not yet destaged: lost with it unless *mirrored (the
 * profile's [cache] mirrored). 0, -ENOTSUP (no flash cache) or -ENOMEM. */
int array_cache_fail(struct array *a, uint64_t **pblk, size_t *n,
		     bool *mirrored);
/* The rebuild drive fault @f started, noticed at @fail_ns (its
 * eff->fail_ns): 0 and *@end_ns when the drives finish it (known once its
 * last chunk is booked; under load later than eff->rebuild_end_ns, the
 * soonest); -EAGAIN while chunks remain, *@end_ns the soonest it can end
 * now (ask again then); -ENOENT: no such rebuild (cancelled, another
 * since) or the null model. The rebuilds are booked up to now first:
 * they run whether or not requests arrive. */
int array_rebuild_end(struct array *a, const struct model_fault *f,
		      uint64_t fail_ns, uint64_t *end_ns);
/* model_fault_current() of the array's model (false: the null model). */
bool array_fault_current(struct array *a, const struct model_fault *f,
			 enum model_fault_mark mark, uint64_t key_ns);

/* ---- replication (tiers/array_repl.c) ---------------------------------- */

struct model_repl_figures;
/* A mount replicating (--replicate-to): the profile's [replication] link
 * joins the model (tiers/model_repl.h); @sync: each write is acknowledged
 * once the replica's acknowledgement is back. 0, -ENOTSUP (the null
 * model: nothing timed), -EALREADY or -ENOMEM. */
int array_replication(struct array *a, bool sync);
/* What sync mode adds to a 4 KiB write on idle arrays. 0, or -ENOTSUP
 * (no replication link: null model or not replicating). */
int array_repl_figures(struct array *a, struct model_repl_figures *f);
/* A batch's cost in the model, from now (the host's monotonic clock):
 * the @n changed extents read on the source's drives, then @wire_bytes
 * over the link and the replica's acknowledgement. When it is done
 * (clock_mono_ns() time); now for the null model. */
struct array_extent {
	uint64_t offset, length;
};
uint64_t array_repl_batch(struct array *a, const struct array_extent *ext,
			  size_t n, uint64_t wire_bytes);

#endif
