/* A hard disk: service time from the head's position, not a sampled
 * distribution. The profile's latency keys are its command overhead;
 * seek grows with the square root of the distance (struct engine_hdd),
 * plus half a revolution; a sequential stream pays neither (the next
 * sector is under the head). rpm is required, track_seek and full_seek
 * in order.
 */
#include "tiers/drive_hdd.h"

#include <stddef.h>

#include "common/clock.h"
#include "tiers/drive_ops.h"
#include "tiers/scale.h"

/* floor(sqrt(x)), bit by bit: integers keep the seek model exact and
 * free of libm. */
static uint64_t isqrt128(unsigned __int128 x)
{
	unsigned __int128 root = 0, bit = (unsigned __int128)1 << 126;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= root + bit) {
			x -= root + bit;
			root = (root >> 1) + bit;
		} else {
			root >>= 1;
		}
		bit >>= 2;
	}
	return (uint64_t)root;
}

uint64_t drive_hdd_position_ns(const struct engine_hdd *h, uint64_t *head_bytes,
			       const struct engine_stage *s)
{
	uint64_t d, frac, ns = h->overhead_ns;

	d = s->offset_bytes > *head_bytes ? s->offset_bytes - *head_bytes
					  : *head_bytes - s->offset_bytes;
	*head_bytes = s->offset_bytes + s->bytes;
	if (d == 0)
		return ns;
	if (d > h->span_bytes)
		d = h->span_bytes;
	/* sqrt(d / span) in 32.32 fixed point: 0 .. 1 << 32. */
	frac = isqrt128(((unsigned __int128)d << 64) / h->span_bytes);
	ns += h->track_seek_ns +
	      (uint64_t)(((unsigned __int128)(h->full_seek_ns -
					      h->track_seek_ns) *
			      frac +
			  (1ull << 31)) >>
			 32);
	/* Average rotational latency: half a revolution, 60e9/rpm/2 ns. */
	ns += (30 * NS_PER_SEC + h->rpm / 2) / h->rpm;
	return ns;
}

static const char *hdd_check(const struct profile_tier *t, const char **key)
{
	if (!t->rpm)
		return *key = "rpm", "required for kind = hdd";
	if (t->full_seek_ns < t->track_seek_ns)
		return *key = "full_seek", "shorter than track_seek";
	return NULL;
}

/* The latency keys are the command overhead; seek and rotation come from
 * the head position (drive_hdd_position_ns). */
static void hdd_engine_conf(const struct profile_tier *t, double scale,
			    struct engine_resource_conf *c)
{
	const struct engine_dist *d = &t->latency[ENGINE_OP_READ];

	c->position_ns = drive_hdd_position_ns;
	c->hdd.rpm = (uint32_t)scale_rate(scale, t->rpm);
	c->hdd.overhead_ns = scale_ns(
	    scale, d->n_points ? d->points[d->n_points - 1].ns : d->fixed_ns);
	c->hdd.track_seek_ns = scale_ns(scale, t->track_seek_ns);
	c->hdd.full_seek_ns = scale_ns(scale, t->full_seek_ns);
	c->hdd.span_bytes = t->capacity_bytes;
	if (!c->hdd.rpm)
		c->hdd.rpm = 1;
}

/* Sequential: the command overhead alone, no seek, no rotation (as
 * drive_hdd_position_ns at distance 0; the read latency, as there). */
static uint64_t hdd_seq_service_ns(const struct profile_tier *t,
				   enum engine_op op)
{
	const struct engine_dist *d = &t->latency[ENGINE_OP_READ];

	(void)op;
	return d->n_points ? d->points[d->n_points - 1].ns : d->fixed_ns;
}

const struct drive_ops drive_hdd = {
    .name = "hdd",
    .check = hdd_check,
    .engine_conf = hdd_engine_conf,
    .seq_service_ns = hdd_seq_service_ns,
};
