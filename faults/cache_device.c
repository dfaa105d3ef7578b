/* cache-device: a hybrid's cache device fails now. Its dirty blocks, not
 * yet destaged, are lost (EIO, listed by file and offset) unless the
 * profile's [cache] is mirrored; the store finds and reports them
 * (hooks->cache_fail, store/loss.c). Nothing stays active. */
#include <stdio.h>

#include "faults/events.h"
#include "faults/faults.h"
#include "faults/hooks.h"

static int act(const struct fault_env *env, const struct fault_rule *r,
	       const char *rule_json, FILE *out, char *err, size_t errlen)
{
	(void)r;
	events_emit(env->events, "inject", "\"id\":0,\"rule\":\"%s\"",
		    rule_json);
	return env->hooks->cache_fail(env->ctx, out, err, errlen);
}

const struct fault_ops fault_kind_cache_device = {
    .name = "cache-device",
    .help = "a hybrid's cache device fails: dirty blocks not yet destaged "
	    "are lost (EIO, listed by file and offset) unless the profile's "
	    "[cache] is mirrored",
    .act = act,
};
