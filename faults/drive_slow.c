/* drive-slow: a drive serves F times slower (F in (1, 1000]). */
#include <errno.h>
#include <stdio.h>

#include "faults/array_fault.h"

FAULT_ARRAY_CALLBACKS(FAULT_ARRAY_DRIVE_SLOW)

static int check(const struct fault_rule *r, unsigned seen, char *err,
		 size_t errlen)
{
	int rc = fault_array_check(r, seen, err, errlen);

	if (rc || (seen & FAULT_KEY_FACTOR))
		return rc;
	snprintf(err, errlen, "drive-slow needs factor=F (like 4)");
	return -EINVAL;
}

const struct fault_ops fault_kind_drive_slow = {
    .name = "drive-slow",
    .help = "serves F times slower",
    .keys = {{FAULT_KEY_ID, "id=N"},
	     {FAULT_KEY_TIER, "tier=..."},
	     {FAULT_KEY_FACTOR, "factor=F"}},
    .array = true,
    .check = check,
    .inject = inject,
    .clear = clear,
};
