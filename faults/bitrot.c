/* bitrot: corrupt stored blocks now, as a failing medium would, and
 * report every file and offset that lost data (the store does both:
 * hooks->corrupt, store/bitrot.c). Nothing stays active. */
#include <errno.h>
#include <stdio.h>

#include "faults/events.h"
#include "faults/faults.h"
#include "faults/hooks.h"

static void defaults(struct fault_rule *r)
{
	r->blocks = 1;
}

static int check(const struct fault_rule *r, unsigned seen, char *err,
		 size_t errlen)
{
	bool file = seen & FAULT_KEY_PATH, off = seen & FAULT_KEY_OFFSET;

	(void)r;
	if (file != off) {
		snprintf(err, errlen,
			 "bitrot takes path= and offset= together");
		return -EINVAL;
	}
	if (file && (seen & FAULT_KEY_BLOCKS)) {
		snprintf(err, errlen,
			 "bitrot takes blocks=N or path= with offset=, not "
			 "both");
		return -EINVAL;
	}
	return 0;
}

static int act(const struct fault_env *env, const struct fault_rule *r,
	       const char *rule_json, FILE *out, char *err, size_t errlen)
{
	events_emit(env->events, "inject", "\"id\":0,\"rule\":\"%s\"",
		    rule_json);
	return env->hooks->corrupt(env->ctx, r, out, err, errlen);
}

const struct fault_ops fault_kind_bitrot = {
    .name = "bitrot",
    .help = "corrupt stored blocks now; prints every file and offset that "
	    "lost data",
    .keys = {{FAULT_KEY_BLOCKS, "blocks=N [1] |"},
	     {FAULT_KEY_PATH, "path=FILE"},
	     {FAULT_KEY_OFFSET, "offset=OFF"}},
    .defaults = defaults,
    .check = check,
    .act = act,
};
