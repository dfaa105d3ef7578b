/* Scenario timelines run against the mount: see fs/scenario_run.c. */
#ifndef ARRAYSIM_FS_SCENARIO_RUN_H
#define ARRAYSIM_FS_SCENARIO_RUN_H

#include <stdio.h>

#include "faults/scenario.h"
#include "fs/fs.h"

/* The control commands "scenario run FILE [time-scale=F]", "scenario
 * status" and "scenario stop" (@args: what follows "scenario "). The
 * control socket serves one command at a time, so these never race each
 * other. 0, or -errno with a one-line reason in @err. */
int scenario_run_ctl(struct fs *fs, const char *args, FILE *out, char *err,
		     size_t errlen);
/* Stop a running scenario (at unmount). */
void scenario_run_close(struct fs *fs);

#endif
