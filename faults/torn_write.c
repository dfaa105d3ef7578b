/* torn-write: only a prefix of a write persists (fault_torn_prefix),
 * while the host is told all of it did. */
#include "faults/faults.h"

size_t fault_torn_prefix(size_t len)
{
	return (len / 2) & ~(size_t)511;
}

static void defaults(struct fault_rule *r)
{
	r->ops = FOP_WRITE;
	r->count = 1;
}

static void on_io(const struct fault_rule *r, struct fault_hit *hit)
{
	(void)r;
	hit->torn = true;
}

const struct fault_ops fault_kind_torn_write = {
    .name = "torn-write",
    .help = "half of the write, down to 512 bytes, persists; the host is "
	    "told all did",
    .keys = {{FAULT_KEY_PATH, "path=GLOB"},
	     {FAULT_KEY_PROB, "prob=P [1]"},
	     {FAULT_KEY_COUNT, "count=N [1]"}},
    .defaults = defaults,
    .on_io = on_io,
};
