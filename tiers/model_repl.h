/* The replication link in the model (a mount with --replicate-to): the
 * profile's [replication] link as engine resources of the source's
 * model, and in sync mode the replica, an array of the same profile,
 * whose acknowledgement each write waits for. model_repl.c says how a
 * write and a batch cross it. Not thread-safe: under the array's lock,
 * as the model it joins.
 */
#ifndef ARRAYSIM_TIERS_MODEL_REPL_H
#define ARRAYSIM_TIERS_MODEL_REPL_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/model.h"

struct model_repl;

/* What sync mode adds to one 4 KiB write on idle arrays, in ns
 * (scaled), and the link's rate. */
struct model_repl_figures {
	uint64_t rtt_ns;      /* the link's round trip */
	uint64_t transfer_ns; /* the payload over the link */
	uint64_t ack_ns;      /* the replica's acknowledgement */
	double bytes_per_s;   /* the link, each way, after overhead */
};

/* Add the replication link to @m (resources link-repl.out, the source to
 * the replica, and link-repl.in); with @sync also the replica's model.
 * 0, or -ENOMEM / -EINVAL. */
int model_repl_new(struct model *m, bool sync, struct model_repl **out);
/* Free @r (the resources stay in the model's engine). NULL: no-op. */
void model_repl_free(struct model_repl *r);
bool model_repl_sync(const struct model_repl *r);
/* A write @io the source acknowledges at @ack_ns on its own: in sync
 * mode when the replica's acknowledgement is back, else @ack_ns. */
uint64_t model_repl_write(struct model_repl *r, uint64_t ack_ns,
			  const struct model_io *io);
/* A batch of @bytes handed to the link at @now_ns: when the replica has
 * them and its acknowledgement is back (the link's rate, queued behind
 * what it carries already, and a round trip). */
uint64_t model_repl_ship(struct model_repl *r, uint64_t now_ns, uint64_t bytes);
/* Reading @length changed bytes at @offset for a batch, on the source's
 * drives (no front end), from @now_ns: when they are read. */
uint64_t model_repl_read(struct model_repl *r, uint64_t now_ns, uint64_t offset,
			 uint64_t length);
/* What sync mode adds to a 4 KiB write on idle arrays of @m's profile
 * (a replica's write cache acknowledges as the model does). */
int model_repl_figures(const struct model_repl *r,
		       struct model_repl_figures *f);

#endif
