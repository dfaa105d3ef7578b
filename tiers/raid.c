/* RAID back-end expansion: host I/O -> member operations.
 *
 * Layouts (unit = stripe_unit bytes, w = stripe_width, n = drives):
 *
 *   raid0   unit u on drive u % n, row u / n
 *   raid1   every drive holds everything; a read goes to one member
 *           (chosen by unit number, to spread reads), a write to all
 *   raid10  n/2 mirrored pairs striped: unit u on pair u % (n/2); a read
 *           goes to one side (alternating by row), a write to both
 *   raid5/6 n/w sets of w members; stripe g (w - parity data units) on
 *           set g % sets; parity rotates left-symmetric, as Linux md:
 *           P on member w-1 - row % w, Q after it, data after them
 *
 * Parity writes, per stripe touched (D data units, k of them written):
 *
 *   full stripe (all D units whole)  D + parity writes, no reads
 *   read-modify-write                k + parity reads, then k + parity
 *                                    writes
 *   reconstruct-write                (D - k) + partial reads, then
 *                                    k + parity writes
 *
 * The cheaper of the last two in reads is used, read-modify-write on a
 * tie, as md does: a 4K write to raid5 is 2 reads + 2 writes, to raid6
 * of 5 or more members 3 + 3 (a 4-member raid6 reconstructs: 2 + 3).
 * Reads touch only the data units they cover (no degraded mode yet).
 *
 * scatter > 0 (a write-anywhere layout) cuts the I/O into pieces of
 * that size first and lays each out on its own, at a place fixed by
 * the piece's number: plan_scattered().
 */
#include "tiers/raid.h"

#include <errno.h>
#include <string.h>

#include "tiers/profile_calc.h"
static void add_op(struct raid_plan *plan, unsigned drive, enum engine_op op,
		   uint64_t offset, uint64_t bytes, unsigned phase)
{
	struct raid_op *o = &plan->ops[plan->n++];

	o->drive = drive;
	o->op = op;
	o->offset = offset;
	o->bytes = bytes;
	o->phase = phase;
	if (op == ENGINE_OP_READ)
		plan->reads++;
	else
		plan->writes++;
	if (phase + 1 > plan->phases)
		plan->phases = phase + 1;
}

/* One unit's share of the I/O: unit number, byte range inside it. */
struct piece {
	uint64_t unit;
	uint64_t start, bytes; /* within the unit */
};

static struct piece piece_at(uint64_t pos, uint64_t end, uint64_t unit)
{
	struct piece p = {.unit = pos / unit, .start = pos % unit};

	p.bytes = unit - p.start;
	if (pos + p.bytes > end)
		p.bytes = end - pos;
	return p;
}

static void plan_raid0(const struct profile_tier *t, enum engine_op op,
		       uint64_t off, uint64_t len, struct raid_plan *plan)
{
	uint64_t unit = t->stripe_unit_bytes;

	for (uint64_t pos = off; pos < off + len;) {
		struct piece p = piece_at(pos, off + len, unit);

		add_op(plan, (unsigned)(p.unit % t->drives), op,
		       p.unit / t->drives * unit + p.start, p.bytes, 0);
		pos += p.bytes;
	}
}

static void plan_raid1(const struct profile_tier *t, enum engine_op op,
		       uint64_t off, uint64_t len, struct raid_plan *plan)
{
	if (op == ENGINE_OP_READ) {
		add_op(plan, (unsigned)(off / t->stripe_unit_bytes % t->drives),
		       op, off, len, 0);
		return;
	}
	for (unsigned d = 0; d < t->drives; d++)
		add_op(plan, d, op, off, len, 0);
}

static void plan_raid10(const struct profile_tier *t, enum engine_op op,
			uint64_t off, uint64_t len, struct raid_plan *plan)
{
	uint64_t unit = t->stripe_unit_bytes, pairs = t->drives / 2;

	for (uint64_t pos = off; pos < off + len;) {
		struct piece p = piece_at(pos, off + len, unit);
		uint64_t row = p.unit / pairs, doff = row * unit + p.start;
		unsigned first = (unsigned)(p.unit % pairs) * 2;

		if (op == ENGINE_OP_READ) {
			add_op(plan, first + (unsigned)(row % 2), op, doff,
			       p.bytes, 0);
		} else {
			add_op(plan, first, op, doff, p.bytes, 0);
			add_op(plan, first + 1, op, doff, p.bytes, 0);
		}
		pos += p.bytes;
	}
}

/* Where stripe @g of a parity layout lives. */
struct stripe {
	unsigned set_first; /* drive index of member 0 of its set */
	uint64_t row;	    /* row on the members: offset row * unit */
	unsigned p, q;	    /* parity members (q only for raid6) */
	unsigned parity;    /* 1 or 2 */
	unsigned width;
};

static struct stripe stripe_at(const struct profile_tier *t, uint64_t g)
{
	struct stripe s = {.width = t->stripe_width};
	unsigned sets = t->drives / t->stripe_width;

	s.parity = t->raid == PROFILE_RAID6 ? 2 : 1;
	s.set_first = (unsigned)(g % sets) * s.width;
	s.row = g / sets;
	s.p = s.width - 1 - (unsigned)(s.row % s.width);
	s.q = (s.p + 1) % s.width;
	return s;
}

/* Drive index of data unit @j (0 .. D-1) of stripe @s. */
static unsigned data_drive(const struct stripe *s, unsigned j)
{
	return s->set_first + (s->p + s->parity + j) % s->width;
}

static void add_parity(struct raid_plan *plan, const struct stripe *s,
		       enum engine_op op, uint64_t doff, uint64_t bytes,
		       unsigned phase)
{
	add_op(plan, s->set_first + s->p, op, doff, bytes, phase);
	if (s->parity == 2)
		add_op(plan, s->set_first + s->q, op, doff, bytes, phase);
}

/* The pieces of one stripe's write, and the range parity must cover. */
struct stripe_write {
	struct piece
	    pc[PROFILE_MAX_WIDTH]; /* by data index; bytes 0: untouched */
	unsigned k, partial;
	uint64_t lo, hi; /* union of the pieces' ranges within a unit */
};

static void write_stripe(const struct profile_tier *t, uint64_t g,
			 const struct stripe_write *w, struct raid_plan *plan)
{
	struct stripe s = stripe_at(t, g);
	unsigned d_units = s.width - s.parity;
	uint64_t unit = t->stripe_unit_bytes, base = s.row * unit;
	unsigned rmw = w->k + s.parity, rcw = d_units - w->k + w->partial;
	unsigned phase = 0;

	if (w->k == d_units && w->partial == 0) {
		/* Full stripe: parity from the new data alone. */
	} else if (rcw < rmw) {
		for (unsigned j = 0; j < d_units; j++)
			if (!w->pc[j].bytes || w->pc[j].bytes < unit)
				add_op(plan, data_drive(&s, j), ENGINE_OP_READ,
				       base, unit, 0);
		phase = 1;
	} else {
		for (unsigned j = 0; j < d_units; j++)
			if (w->pc[j].bytes)
				add_op(plan, data_drive(&s, j), ENGINE_OP_READ,
				       base + w->pc[j].start, w->pc[j].bytes,
				       0);
		add_parity(plan, &s, ENGINE_OP_READ, base + w->lo,
			   w->hi - w->lo, 0);
		phase = 1;
	}
	for (unsigned j = 0; j < d_units; j++)
		if (w->pc[j].bytes)
			add_op(plan, data_drive(&s, j), ENGINE_OP_WRITE,
			       base + w->pc[j].start, w->pc[j].bytes, phase);
	add_parity(plan, &s, ENGINE_OP_WRITE, base + w->lo, w->hi - w->lo,
		   phase);
}

static void plan_parity(const struct profile_tier *t, enum engine_op op,
			uint64_t off, uint64_t len, struct raid_plan *plan)
{
	uint64_t unit = t->stripe_unit_bytes;
	unsigned d_units = t->stripe_width - (t->raid == PROFILE_RAID6 ? 2 : 1);
	struct stripe_write w;
	uint64_t cur_g = UINT64_MAX;

	memset(&w, 0, sizeof(w));
	for (uint64_t pos = off; pos < off + len;) {
		struct piece p = piece_at(pos, off + len, unit);
		uint64_t g = p.unit / d_units;
		unsigned j = (unsigned)(p.unit % d_units);

		pos += p.bytes;
		if (op == ENGINE_OP_READ) {
			struct stripe s = stripe_at(t, g);

			add_op(plan, data_drive(&s, j), op,
			       s.row * unit + p.start, p.bytes, 0);
			continue;
		}
		if (g != cur_g && cur_g != UINT64_MAX) {
			write_stripe(t, cur_g, &w, plan);
			memset(&w, 0, sizeof(w));
		}
		cur_g = g;
		w.pc[j] = p;
		w.lo = w.k == 0 || p.start < w.lo ? p.start : w.lo;
		w.hi = p.start + p.bytes > w.hi ? p.start + p.bytes : w.hi;
		w.k++;
		w.partial += p.bytes < unit;
	}
	if (cur_g != UINT64_MAX)
		write_stripe(t, cur_g, &w, plan);
}

static void plan_layout(const struct profile_tier *t, enum engine_op op,
			uint64_t off, uint64_t len, struct raid_plan *plan)
{
	switch (t->raid) {
	case PROFILE_RAID0:
		plan_raid0(t, op, off, len, plan);
		break;
	case PROFILE_RAID1:
		plan_raid1(t, op, off, len, plan);
		break;
	case PROFILE_RAID10:
		plan_raid10(t, op, off, len, plan);
		break;
	case PROFILE_RAID5:
	case PROFILE_RAID6:
		plan_parity(t, op, off, len, plan);
		break;
	}
}

uint64_t raid_scatter_max_ops(const struct profile_tier *t)
{
	uint64_t piece = t->scatter_bytes, unit = t->stripe_unit_bytes;
	uint64_t pieces = RAID_IO_MAX / piece + 1, units, per_unit;

	if (piece % unit == 0)
		units = piece / unit;
	else if (unit % piece == 0)
		units = 1;
	else
		units = piece / unit + 2;
	switch (t->raid) {
	case PROFILE_RAID0:
		per_unit = 1;
		break;
	case PROFILE_RAID1:
		per_unit = t->drives;
		break;
	case PROFILE_RAID10:
		per_unit = 2;
		break;
	default:
		per_unit = 2 * (1 + (t->raid == PROFILE_RAID6 ? 2 : 1));
		break;
	}
	return pieces * units * per_unit;
}

/* A write-anywhere layout (scatter > 0): the array put each piece where
 * it was writing when the piece was last written, so pieces adjacent
 * in the host's address space are unrelated on the drives. The place
 * is a fixed function of the piece, so a re-read finds it where it was
 * written; the pieces of one I/O run in parallel, each with the full
 * cost the RAID layout gives it (a 4K piece on raid5: 2 reads, then 2
 * writes). */
static void plan_scattered(const struct profile_tier *t, enum engine_op op,
			   uint64_t off, uint64_t len, uint64_t usable,
			   struct raid_plan *plan)
{
	uint64_t piece = t->scatter_bytes, places = usable / piece;

	for (uint64_t pos = off; pos < off + len;) {
		struct piece p = piece_at(pos, off + len, piece);
		uint64_t r;

		r = p.unit;
		plan_layout(t, op, prng_next(&r) % places * piece + p.start,
			    p.bytes, plan);
		pos += p.bytes;
	}
}

int raid_plan(const struct profile_tier *t, enum engine_op op, uint64_t off,
	      uint64_t len, struct raid_plan *plan)
{
	uint64_t usable = profile_tier_usable_bytes(t);

	plan->n = plan->reads = plan->writes = plan->phases = 0;
	if (len == 0 || len > RAID_IO_MAX || !usable ||
	    t->drives > PROFILE_MAX_DRIVES ||
	    ((t->raid == PROFILE_RAID5 || t->raid == PROFILE_RAID6) &&
	     t->stripe_width > PROFILE_MAX_WIDTH))
		return -EINVAL;
	/* Wrap into the tier: the model places blocks, not a file system. */
	off %= usable;
	if (t->scatter_bytes && usable / t->scatter_bytes)
		plan_scattered(t, op, off, len, usable, plan);
	else
		plan_layout(t, op, off, len, plan);
	return 0;
}
