/* Scenario timelines run against the mount: see fs/scenario_run.c. */
#ifndef ARRAYSIM_FS_SCENARIO_RUN_H
#define ARRAYSIM_FS_SCENARIO_RUN_H

#include <stdio.h>

#include "faults/scenario.h"
#include "fs/fs.h"

/* Start the scenario in @path (absolute), its timeline divided by
 * @time_scale; one at a time. 0, or -errno with a one-line reason. */
int scenario_run_start(struct fs *fs, const char *path, double time_scale,
		       FILE *out, char *err, size_t errlen);
/* Where the last scenario is: "running|finished NAME step I/N ...". */
void scenario_run_status(struct fs *fs, FILE *out);
/* Stop it; the faults it injected stay. */
void scenario_run_stop(struct fs *fs);
/* Stop a running scenario (at unmount). */
void scenario_run_close(struct fs *fs);

#endif
