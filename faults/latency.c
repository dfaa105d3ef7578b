/* latency: delay the reply of the operations a rule matches. */
#include <errno.h>
#include <stdio.h>

#include "faults/faults.h"

static int check(const struct fault_rule *r, unsigned seen, char *err,
		 size_t errlen)
{
	(void)r;
	if (seen & FAULT_KEY_LATENCY)
		return 0;
	snprintf(err, errlen, "latency needs latency=DURATION");
	return -EINVAL;
}

static void on_io(const struct fault_rule *r, struct fault_hit *hit)
{
	hit->delay_ns += r->latency_ns;
}

const struct fault_ops fault_kind_latency = {
    .name = "latency",
    .help = "the reply comes that much later",
    .keys = {{FAULT_KEY_OP, "op=LIST [any]"},
	     {FAULT_KEY_LATENCY, "latency=DURATION"},
	     {FAULT_KEY_PATH, "path=GLOB"},
	     {FAULT_KEY_PROB, "prob=P"},
	     {FAULT_KEY_COUNT, "count=N"}},
    .check = check,
    .on_io = on_io,
};
