/* drive: a drive of a tier is pulled. After the profile's
 * detection_window its data is reconstructed for reads and a rebuild
 * runs at rebuild_rate; beyond the RAID level's tolerance the stripes it
 * broke are lost (a loss event the store reports: hooks->loss_report). */
#include "faults/array_fault.h"

FAULT_ARRAY_CALLBACKS(FAULT_ARRAY_DRIVE)

const struct fault_ops fault_kind_drive = {
    .name = "drive",
    .help = "pulled; after detection_window reads are reconstructed and a "
	    "rebuild runs at rebuild_rate",
    .keys = {{FAULT_KEY_ID, "id=N"},
	     {FAULT_KEY_TIER, "tier=flash|cache|backing [data tier]"}},
    .array = true,
    .check = fault_array_check,
    .inject = inject,
    .clear = clear,
};
