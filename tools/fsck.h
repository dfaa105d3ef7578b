/* The checker behind `arraysim fsck`, callable without the command line
 * (tests run it on stores they build and break). */
#ifndef ARRAYSIM_TOOLS_FSCK_H
#define ARRAYSIM_TOOLS_FSCK_H

#include <stdbool.h>
#include <stdio.h>

/* Check the unmounted store in directory @store, one line per problem on
 * @out, then a summary line unless @quiet; with @repair, repair what can
 * be rebuilt first ("repaired: " lines) and report each problem left as
 * "cannot repair: ". Returns 0 when the check ran (*problems: how many it
 * found, or left), or -errno when it could not run (a one-line reason has
 * gone to tool_error()): -EBUSY (mounted), -ENOENT, -EINVAL (not a store),
 * -EIO (metadata unreadable), -ENOMEM. */
int fsck_run(const char *store, FILE *out, bool quiet, bool repair,
	     int *problems);

#endif
