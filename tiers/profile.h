/* Array profiles: an INI description of an array, parsed and resolved.
 *
 * A profile names the hardware of an array (controllers, front-end links,
 * drive groups, cache policy, dedupe) with a unit on every value. It is
 * parsed by libinih into a struct profile in which every field is set:
 * defaults filled in, limits checked, nothing left to interpret. The
 * timing model (tiers/model.h) builds its resources from that struct.
 * tiers/profiles/README.md describes the format key by key; the built-in
 * profiles are those .ini files, embedded at build time.
 *
 * Errors are one line naming the file, the line, the section and the key:
 *   "tintri.ini:12: [tier cache] raid: unknown RAID level 'raid7'".
 */
#ifndef ARRAYSIM_TIERS_PROFILE_H
#define ARRAYSIM_TIERS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tiers/profile_types.h"

/* Parse INI @text; @file names it in errors. 0, or -EINVAL with one line
 * in @err (no "arraysim: " prefix), or -ENOMEM. */
int profile_parse_string(const char *text, const char *file,
			 struct profile *out, char *err, size_t errlen);
/* Parse the file at @path. As above, plus -errno if it cannot be read. */
int profile_parse_file(const char *path, struct profile *out, char *err,
		       size_t errlen);
/* A built-in name, or else a path to a file. As above; an unknown name
 * that is no file is -ENOENT ("unknown profile ..."). */
int profile_load(const char *name_or_path, struct profile *out, char *err,
		 size_t errlen);
/* Print @p fully resolved as INI (it parses back to the same profile). */
void profile_print(FILE *f, const struct profile *p);
/* The built-ins, sorted by name, ended by {NULL, NULL}. */
const struct profile_builtin *profile_builtins(void);
/* Parse a --scale factor: a decimal in (0, 1000]. 0 or -EINVAL. */
int profile_parse_scale(const char *s, double *out);

#endif
