/* path: front-end path (link) N is lost. I/O stalls for the profile's
 * multipath_timeout, then the other links carry it. On several nodes N
 * is array-wide, and with a local front end (vSAN) it is a host's
 * network port (tiers/model_faults.c). */
#include "faults/array_fault.h"

FAULT_ARRAY_CALLBACKS(FAULT_ARRAY_PATH)

const struct fault_ops fault_kind_path = {
    .name = "path",
    .help = "front-end link N is lost: I/O stalls for multipath_timeout, "
	    "then the others carry it",
    .keys = {{FAULT_KEY_ID, "id=N"}},
    .array = true,
    .check = fault_array_check,
    .inject = inject,
    .clear = clear,
};
