/* Drive kinds: how a drive of a profile's tier is checked and timed.
 *
 * A kind is a file (drive_flash.c, drive_hdd.c) ending in one
 * const struct drive_ops; drive.c lists them in drive_kinds[], sorted by
 * the name the profile's `kind` key takes (nvme and ssd are both flash).
 * Adding a kind: one file, one line in drive_kinds[], one name in
 * profile_keys.c's kind names and tiers/profiles/README.md.
 */
#ifndef ARRAYSIM_TIERS_DRIVE_H
#define ARRAYSIM_TIERS_DRIVE_H

#include <stddef.h>

#include "tiers/drive_ops.h"

struct drive_kind {
	const char *name; /* the `kind` key's value */
	enum profile_kind kind;
	const struct drive_ops *ops;
};

/* Every kind, sorted by name; drive_n_kinds of them. */
extern const struct drive_kind drive_kinds[];
extern const size_t drive_n_kinds;

/* The kind named @name, or NULL. */
const struct drive_kind *drive_kind_find(const char *name);
/* The ops of a profile's kind (every enum profile_kind has one). */
const struct drive_ops *drive_ops_of(enum profile_kind kind);

#endif
