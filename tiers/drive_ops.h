/* What a drive kind fills (see tiers/drive.h). Types only: the kind
 * files include this, the table of kinds (drive.c) lists them. */
#ifndef ARRAYSIM_TIERS_DRIVE_OPS_H
#define ARRAYSIM_TIERS_DRIVE_OPS_H

#include "tiers/engine.h"
#include "tiers/profile_types.h"

struct drive_ops {
	const char *name; /* the file's: "flash", "hdd" */
	/* The cross-key checks of a tier of this kind: NULL, or what is
	 * wrong and *@key, the key to name. */
	const char *(*check)(const struct profile_tier *t, const char **key);
	/* What this kind adds to one drive's engine resource, at --scale
	 * @scale (model.c has set slots, service, bandwidth, iops). */
	void (*engine_conf)(const struct profile_tier *t, double scale,
			    struct engine_resource_conf *c);
	/* One drive's service time for a sequential @op (the head already
	 * there), before its transfer: what a rebuild's 1 MiB operations
	 * cost it (profile_check.c's rebuild limit). Unscaled. */
	uint64_t (*seq_service_ns)(const struct profile_tier *t,
				   enum engine_op op);
};

extern const struct drive_ops drive_flash; /* drive_flash.c */
extern const struct drive_ops drive_hdd;   /* drive_hdd.c */

#endif
