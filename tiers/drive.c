/* The drive kinds, in one sorted table (see drive.h). */
#include "tiers/drive.h"

#include <stdlib.h>
#include <string.h>

const struct drive_kind drive_kinds[] = {
    {"hdd", PROFILE_KIND_HDD, &drive_hdd},
    {"nvme", PROFILE_KIND_NVME, &drive_flash},
    {"ssd", PROFILE_KIND_SSD, &drive_flash},
};

const size_t drive_n_kinds = sizeof(drive_kinds) / sizeof(drive_kinds[0]);

static int kind_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct drive_kind *)elem)->name);
}

const struct drive_kind *drive_kind_find(const char *name)
{
	return bsearch(name, drive_kinds, drive_n_kinds, sizeof(drive_kinds[0]),
		       kind_cmp);
}

const struct drive_ops *drive_ops_of(enum profile_kind kind)
{
	for (size_t i = 0; i < drive_n_kinds; i++)
		if (drive_kinds[i].kind == kind)
			return drive_kinds[i].ops;
	return &drive_flash; /* not reached: the parser takes only these */
}
