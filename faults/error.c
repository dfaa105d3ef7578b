/* error: fail the operations a rule matches with an errno instead of
 * doing them. */
#include <errno.h>

#include "faults/faults.h"

static void defaults(struct fault_rule *r)
{
	r->err = EIO;
}

static void on_io(const struct fault_rule *r, struct fault_hit *hit)
{
	if (!hit->err)
		hit->err = -r->err;
}

const struct fault_ops fault_kind_error = {
    .name = "error",
    .help = "fail the operation instead of doing it",
    .keys = {{FAULT_KEY_OP, "op=LIST [any]"},
	     {FAULT_KEY_ERRNO, "errno=EIO|ENOSPC|EROFS [EIO]"},
	     {FAULT_KEY_PATH, "path=GLOB"},
	     {FAULT_KEY_PROB, "prob=P [1]"},
	     {FAULT_KEY_COUNT, "count=N [unlimited]"}},
    .defaults = defaults,
    .on_io = on_io,
};
