/* power-loss: everything since the last sync is gone at the next mount;
 * until the unmount every operation fails with EIO. The store pins its
 * durable state and cuts the power (hooks->power_cut). */
#include <stdio.h>

#include "common/log.h"
#include "faults/events.h"
#include "faults/faults.h"
#include "faults/hooks.h"

static int act(const struct fault_env *env, const struct fault_rule *r,
	       const char *rule_json, FILE *out, char *err, size_t errlen)
{
	uint64_t lost = 0;
	bool was = false;
	int rc = env->hooks->power_cut(env->ctx, &lost, &was, err, errlen);

	(void)r;
	if (rc)
		return rc;
	if (!was) {
		events_emit(env->events, "inject",
			    "\"id\":0,\"rule\":\"%s\",\"commits_lost\":%llu",
			    rule_json, (unsigned long long)lost);
		log_warn("faults",
			 "power lost: %llu commits since the last sync are "
			 "gone at the next mount; every operation fails "
			 "until the unmount",
			 (unsigned long long)lost);
	}
	fprintf(out,
		"power lost: %llu commits since the last sync are gone; "
		"unmount and mount again to see the state of the last sync\n",
		(unsigned long long)lost);
	return 0;
}

const struct fault_ops fault_kind_power_loss = {
    .name = "power-loss",
    .help = "everything since the last sync (fsync, or the background "
	    "sync) is gone at the next mount; until the unmount every "
	    "operation fails with EIO",
    .act = act,
};
