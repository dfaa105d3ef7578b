/* controller: controller N (from 0) fails. I/O stalls for the profile's
 * failover_time, then the others serve; with too many lost the array
 * shuts down until one returns. Run by the timed model until cleared. */
#include "faults/array_fault.h"

FAULT_ARRAY_CALLBACKS(FAULT_ARRAY_CONTROLLER)

const struct fault_ops fault_kind_controller = {
    .name = "controller",
    .help = "controller N (from 0) fails: I/O stalls for failover_time, "
	    "then the others serve; too many lost: the array shuts down "
	    "(EIO, or blocks) until one returns",
    .keys = {{FAULT_KEY_ID, "id=N"}},
    .array = true,
    .check = fault_array_check,
    .inject = inject,
    .clear = clear,
};
