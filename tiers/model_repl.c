/* The replication link in the model: how a sync write and an async batch
 * cross it.
 *
 * Resources, in the source's engine (stats --array lists them with the
 * front-end links):
 *   link-repl.out   the source to the replica: bandwidth = the
 *                   [replication] speed x (1 - overhead), one wire
 *   link-repl.in    the replica to the source (acknowledgements)
 * and the round trip, 2 x one way (profile_calc.c: distance, hops,
 * stacks), all scaled as every duration and rate of the model.
 *
 * A sync write (SRDF/S's order: the source takes the write into its own
 * cache, then sends it, then acknowledges the host once the replica has
 * acknowledged it):
 *
 *   local ack ─ link-repl.out: the payload ─ one way ─ replica: its own
 *   ack (a model of the same profile, the write arriving over the link:
 *   no front end) ─ one way back ─ the host's ack
 *
 * so on idle arrays a write gains round trip + payload / rate + the
 * replica's ack (write cache: its controller's CPU and mirror, as the
 * model acknowledges any cached write; none: its drives). Under load
 * each part queues: the link behind other writes and batches, the
 * replica's controllers and drives behind its other writes.
 *
 * An async batch: its changed blocks are read on the source's drives
 * (model_repl_read, competing with the workload), then its bytes cross
 * link-repl.out behind whatever the link carries, and the replica's
 * acknowledgement comes a round trip later (model_repl_ship).
 */
#include "tiers/model_repl.h"

#include <errno.h>
#include <stdlib.h>

#include "common/block.h"
#include "tiers/model_i.h"
#include "tiers/profile_calc.h"

struct model_repl {
	struct model *m;
	bool sync;
	int out, in;	       /* engine resources */
	uint64_t one_way_ns;   /* scaled */
	double bytes_per_s;    /* scaled, each way */
	struct model *replica; /* sync only: the replica's array */
	/* What sync mode adds to a 4 KiB write on idle arrays: constant for
	 * the mount, so worked out once (figures() at model_repl_new). */
	struct model_repl_figures idle_4k;
};

/* The replica's seed: its own stream, apart from the source's. */
#define REPLICA_SEED_MIX 0x9e3779b97f4a7c15ull

static int add_link(struct model_repl *r)
{
	const struct profile_frontend *l = &r->m->p->repl.link;
	struct engine_resource_conf c = {.slots = 1};
	int *ids[] = {&r->in, &r->out};
	static const char *const names[] = {"link-repl.in", "link-repl.out"};

	for (int op = 0; op < ENGINE_OP_COUNT; op++) {
		uint64_t bw = model_scale_rate(
		    r->m, (uint64_t)profile_link_bytes_per_s(l, op));

		c.name = names[op];
		c.bandwidth_bytes_per_s[ENGINE_OP_READ] = bw;
		c.bandwidth_bytes_per_s[ENGINE_OP_WRITE] = bw;
		*ids[op] = engine_add_resource(r->m->e, &c);
		if (*ids[op] < 0)
			return *ids[op];
	}
	r->bytes_per_s = (double)model_scale_rate(
	    r->m, (uint64_t)profile_link_bytes_per_s(l, ENGINE_OP_WRITE));
	return 0;
}

/* r->idle_4k: the round trip, the transfer of 4 KiB, and the ack of a
 * replica's write on a model of the same profile that has done nothing. */
static int figures(struct model_repl *r)
{
	struct model_repl_figures *f = &r->idle_4k;
	struct model *idle;
	struct model_io io = {.op = ENGINE_OP_WRITE,
			      .length = BLOCK_BYTES,
			      .cache_hit = true,
			      .replicated = true};
	int rc = model_new_timed(r->m->p, r->m->scale, r->m->time_scale,
				 r->m->seed ^ REPLICA_SEED_MIX, &idle);

	if (rc)
		return rc;
	f->rtt_ns = 2 * r->one_way_ns;
	f->bytes_per_s = r->bytes_per_s;
	f->transfer_ns =
	    r->bytes_per_s > 0
		? (uint64_t)((double)BLOCK_BYTES * 1e9 / r->bytes_per_s + 0.5)
		: 0;
	f->ack_ns = model_submit(idle, 0, &io);
	model_free(idle);
	return 0;
}

int model_repl_new(struct model *m, bool sync, struct model_repl **out)
{
	struct model_repl *r = calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->m = m;
	r->sync = sync;
	r->one_way_ns = model_scale_ns(m, profile_repl_one_way_ns(&m->p->repl));
	rc = add_link(r);
	if (!rc)
		rc = figures(r);
	if (!rc && sync)
		rc = model_new_timed(m->p, m->scale, m->time_scale,
				     m->seed ^ REPLICA_SEED_MIX, &r->replica);
	if (rc) {
		free(r);
		return rc;
	}
	*out = r;
	return 0;
}

void model_repl_free(struct model_repl *r)
{
	if (!r)
		return;
	model_free(r->replica);
	free(r);
}

bool model_repl_sync(const struct model_repl *r)
{
	return r && r->sync;
}

/* @bytes on link-repl.out from @at: when the last byte is on its way. */
static uint64_t send(struct model_repl *r, uint64_t at, uint64_t bytes)
{
	struct engine_stage st = {
	    .res = r->out, .op = ENGINE_OP_WRITE, .bytes = bytes};

	return engine_submit(r->m->e, at, &st, 1);
}

/* The acknowledgement back on link-repl.in (no payload worth counting:
 * its bytes are in the overhead), from @at. */
static uint64_t ack_back(struct model_repl *r, uint64_t at)
{
	struct engine_stage st = {.res = r->in, .op = ENGINE_OP_READ};

	return engine_submit(r->m->e, at, &st, 1) + r->one_way_ns;
}

uint64_t model_repl_write(struct model_repl *r, uint64_t ack_ns,
			  const struct model_io *io)
{
	struct model_io rio;
	uint64_t t;

	if (!r || !r->sync || io->op != ENGINE_OP_WRITE || !io->length)
		return ack_ns;
	t = send(r, ack_ns, io->length) + r->one_way_ns;
	rio = *io;
	rio.replicated = true;
	rio.cache_hit = true;
	t = model_submit(r->replica, t, &rio);
	return ack_back(r, t);
}

uint64_t model_repl_ship(struct model_repl *r, uint64_t now_ns, uint64_t bytes)
{
	return ack_back(r, send(r, now_ns, bytes) + r->one_way_ns);
}

uint64_t model_repl_read(struct model_repl *r, uint64_t now_ns, uint64_t offset,
			 uint64_t length)
{
	/* Just written, so a write-back hybrid holds them in flash. */
	struct model_io io = {.op = ENGINE_OP_READ,
			      .offset = offset,
			      .length = length,
			      .cache_hit = true,
			      .replicated = true};

	return model_submit(r->m, now_ns, &io);
}

int model_repl_figures(const struct model_repl *r, struct model_repl_figures *f)
{
	*f = r->idle_4k;
	return 0;
}
