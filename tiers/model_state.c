/* Read-only views of the model's fault state; see tiers/model_state.h. */
#include "tiers/model_state.h"

#include <errno.h>

#include "tiers/model_i.h"

#define NEVER UINT64_MAX

const struct profile *model_profile(const struct model *m)
{
	return m->p;
}

int model_drive_res(const struct model *m, unsigned tier, unsigned id)
{
	if (tier >= PROFILE_TIER_COUNT || !m->p->tier[tier].present ||
	    id >= m->p->tier[tier].drives)
		return -1;
	return m->drive0[tier] + (int)id;
}

/* Bytes of drive @d's rebuild still to copy at @t, of @total. */
static uint64_t rebuild_left(const struct drive_fault *d, uint64_t total,
			     uint64_t t)
{
	double span = (double)(d->rebuild_end_ns - d->fail_ns);

	if (t <= d->fail_ns || span <= 0)
		return t < d->rebuild_end_ns ? total : 0;
	if (t >= d->rebuild_end_ns)
		return 0;
	return total -
	       (uint64_t)((double)total * (double)(t - d->fail_ns) / span);
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
	/* What drive_pull() planned to copy: the drive's used space. */
	v->rebuild_bytes =
	    (uint64_t)((double)pt->capacity_bytes * pt->fill_pct / 100.0);
	v->rebuild_left = rebuild_left(d, v->rebuild_bytes, now_ns);
	v->state = now_ns >= d->fail_ns && now_ns < d->rebuild_end_ns
		       ? MODEL_DRIVE_REBUILDING
		       : MODEL_DRIVE_FAILED;
	return 0;
}

bool model_ctl_up(const struct model *m, unsigned i, uint64_t now_ns)
{
	return i < m->p->ctl.count && !m->f.ctl_down[i] &&
	       m->f.ctl_serves_ns[i] <= now_ns;
}

bool model_path_up(const struct model *m, unsigned i)
{
	return i < m->p->fe.links && !m->f.link_down[i];
}
