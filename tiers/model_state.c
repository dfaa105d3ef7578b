/* Read-only views of the model's fault state; see tiers/model_state.h. */
#include "tiers/model_state.h"

#include <errno.h>

#include "tiers/model_i.h"
#include "tiers/profile_calc.h"

#define NEVER UINT64_MAX

const struct profile *model_profile(const struct model *m)
{
	return m->p;
}

int model_drive_res(const struct model *m, unsigned tier, unsigned id)
{
	if (tier >= PROFILE_TIER_COUNT || !m->p->tier[tier].present ||
	    id >= model_drives(m, tier))
		return -1;
	return m->drive0[tier] + (int)id;
}

/* Bytes of drive @d's rebuild still to copy at @t, of @total: what the
 * drives have not written by then. */
static uint64_t rebuild_left(const struct drive_fault *d, unsigned w,
			     uint64_t total, uint64_t t)
{
	uint64_t done = model_rebuild_done(d, w, t) * MODEL_REBUILD_CHUNK;

	if (t >= d->rebuild_end_ns)
		return 0;
	if (t < d->fail_ns)
		return total;
	return done >= total ? 0 : total - done;
}

int model_rebuild_end(const struct model *m, unsigned tier, unsigned id,
		      uint64_t fail_ns, uint64_t *end_ns)
{
	const struct drive_fault *d;
	double left;

	if (model_drive_res(m, tier, id) < 0 || !m->f.drive[tier])
		return -ENOENT;
	d = &m->f.drive[tier][id];
	if (d->done_fail_ns == fail_ns && d->fail_ns != fail_ns) {
		*end_ns = d->done_end_ns;
		return 0;
	}
	if (d->fail_ns != fail_ns || fail_ns == NEVER)
		return -ENOENT;
	if (d->rebuild_end_ns != NEVER) {
		*end_ns = d->rebuild_end_ns;
		return 0;
	}
	/* The rest at the rate after the last chunk booked, and never
	 * before its schedule. */
	left = (double)(d->rebuild_chunks - d->rebuild_next) * d->chunk_ns;
	*end_ns = d->last_end_ns + (uint64_t)left;
	if (*end_ns < d->plan_end_ns)
		*end_ns = d->plan_end_ns;
	return -EAGAIN;
}

int model_drive_view(const struct model *m, unsigned tier, unsigned id,
		     uint64_t now_ns, struct model_drive_view *v)
{
	const struct profile_tier *pt;
	const struct drive_fault *d;

	if (model_drive_res(m, tier, id) < 0 || !m->f.drive[tier])
		return -EINVAL;
	pt = &m->p->tier[tier];
	d = &m->f.drive[tier][id];
	*v = (struct model_drive_view){
	    .state = d->slow != 1.0 ? MODEL_DRIVE_SLOW : MODEL_DRIVE_OK};
	if (d->fail_ns == NEVER ||
	    (now_ns >= d->rebuild_end_ns && d->pulled_ns == NEVER))
		return 0; /* in place, or back and rebuilt */
	/* What was planned: a pulled drive's used space, a resync's share. */
	v->rebuild_bytes = d->bytes;
	v->rebuild_left = rebuild_left(d, model_rebuild_window(pt->drives),
				       v->rebuild_bytes, now_ns);
	v->state = now_ns >= d->fail_ns && now_ns < d->rebuild_end_ns
		       ? MODEL_DRIVE_REBUILDING
		       : MODEL_DRIVE_FAILED;
	return 0;
}

int model_resync_end(const struct model *m, const struct model_fault *f,
		     uint64_t fail_ns, uint64_t *end_ns)
{
	unsigned tier = profile_data_tier(m->p), per = m->p->tier[tier].drives;
	unsigned node = model_fault_node(m, f);
	int rc = -ENOENT;

	if (node >= m->nodes)
		return -ENOENT;
	*end_ns = 0;
	/* The last of its drives to finish (one still booking: -EAGAIN). */
	for (unsigned i = node * per; i < (node + 1) * per; i++) {
		uint64_t end;
		int r = model_rebuild_end(m, tier, i, fail_ns, &end);

		if (r == -ENOENT)
			continue;
		rc = rc == -EAGAIN || r == -EAGAIN ? -EAGAIN : 0;
		*end_ns = end > *end_ns ? end : *end_ns;
	}
	return rc;
}

bool model_ctl_up(const struct model *m, unsigned i, uint64_t now_ns)
{
	return i < m->nodes * m->p->ctl.count && !m->f.ctl_down[i] &&
	       m->f.ctl_serves_ns[i] <= now_ns;
}

unsigned model_path_count(const struct model *m)
{
	return model_paths(m);
}

bool model_path_up(const struct model *m, unsigned i)
{
	return i < model_path_count(m) && !m->f.link_down[i];
}
