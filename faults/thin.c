/* thin: thin provisioning. New unique blocks beyond the capacity get
 * ENOSPC (the data path asks faults_thin_limit); writes whose blocks
 * dedupe against stored ones still succeed. One at a time. */
#include <errno.h>
#include <stdio.h>

#include "common/block.h"
#include "faults/faults.h"
#include "faults/hooks.h"

static int check(const struct fault_rule *r, unsigned seen, char *err,
		 size_t errlen)
{
	(void)r;
	if (seen & FAULT_KEY_CAPACITY)
		return 0;
	snprintf(err, errlen, "thin needs capacity=SIZE");
	return -EINVAL;
}

static uint64_t on_alloc(const struct fault_rule *r)
{
	return r->capacity_bytes / BLOCK_BYTES;
}

static int inject(const struct fault_env *env, const struct fault_rule *r,
		  uint64_t id, unsigned *loss, char *err, size_t errlen)
{
	(void)r, (void)id, (void)loss, (void)err, (void)errlen;
	if (env->hooks->thin_changed)
		env->hooks->thin_changed(env->ctx);
	return 0;
}

const struct fault_ops fault_kind_thin = {
    .name = "thin",
    .help = "new unique blocks beyond it get ENOSPC, writes that dedupe "
	    "still succeed",
    .keys = {{FAULT_KEY_CAPACITY, "capacity=SIZE"}},
    .single = true,
    .check = check,
    .on_alloc = on_alloc,
    .inject = inject,
};
