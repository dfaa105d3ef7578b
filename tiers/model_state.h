/* Read-only views of the array model's state for observability (the
 * Prometheus endpoint, the per-second samples): what each controller,
 * path and drive is doing at a given moment, and how far rebuilds are.
 *
 * Pure reads of the model: they move nothing. A rebuild's progress is
 * what has been booked on the drives (model_advance books it up to a
 * moment; tiers/array_timed.c does before every read), and it ends when
 * the drives finish its last chunk: used / rebuild_rate on idle drives,
 * later under load. Not thread-safe,
 * like the rest of the model: tiers/array_timed.c calls them under its lock,
 * from the scrape and sampler threads, never from a FUSE worker.
 */
#ifndef ARRAYSIM_TIERS_MODEL_STATE_H
#define ARRAYSIM_TIERS_MODEL_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/model.h"

enum model_drive_state {
	MODEL_DRIVE_OK,
	MODEL_DRIVE_SLOW,	/* fail-slow: serving, slower */
	MODEL_DRIVE_REBUILDING, /* noticed out; its data being rebuilt */
	MODEL_DRIVE_FAILED,	/* pulled: not yet noticed, or rebuilt
				 * onto spare space and still out */
	MODEL_DRIVE_STATES,
};

struct model_drive_view {
	enum model_drive_state state;
	/* The rebuild this drive's loss started (0, 0: none running):
	 * bytes to copy in all, and still to copy at the moment asked. */
	uint64_t rebuild_bytes, rebuild_left;
};

/* The profile the model was built from. */
const struct profile *model_profile(const struct model *m);
/* Drive @id of tier @tier at @now_ns. 0, or -EINVAL (no such drive).
 * Several nodes: ids run node by node (node n's drive i is n x drives +
 * i); drives past node 0's are always ok (no faults there yet). */
int model_drive_view(const struct model *m, unsigned tier, unsigned id,
		     uint64_t now_ns, struct model_drive_view *v);
/* The rebuild of drive @id of tier @tier that the array noticed at
 * @fail_ns (eff->fail_ns): 0 when its last chunk is booked, *end_ns then
 * when the drives finish it; -EAGAIN while chunks remain, *end_ns the
 * soonest it can end from what is left at the rebuild rate; -ENOENT: no
 * such rebuild (cancelled, another since, or no such drive). As of the
 * last model_advance. */
int model_rebuild_end(const struct model *m, unsigned tier, unsigned id,
		      uint64_t fail_ns, uint64_t *end_ns);
/* The same for the resync a node's return started (fault @f, a
 * controller or path of several nodes, its effect's fail_ns): when the
 * last of the node's drives finishes its share. */
int model_resync_end(const struct model *m, const struct model_fault *f,
		     uint64_t fail_ns, uint64_t *end_ns);
/* The engine resource of drive @id of tier @tier, ids as for
 * model_drive_view (-1: none). */
int model_drive_res(const struct model *m, unsigned tier, unsigned id);
/* Controller @i serves requests at @now_ns (not failed, not still
 * recovering). */
bool model_ctl_up(const struct model *m, unsigned i, uint64_t now_ns);
/* Paths `path` faults address: every node's front-end links, or on
 * several nodes with a local front end (vSAN) every node's network ports
 * (node i / per node, its link or port i mod per node). */
unsigned model_path_count(const struct model *m);
/* Path @i (as model_path_count numbers them) is up. */
bool model_path_up(const struct model *m, unsigned i);

#endif
