/* arraysim top's screen (tools/top_show.c). */
#ifndef ARRAYSIM_TOOLS_TOP_H
#define ARRAYSIM_TOOLS_TOP_H

#include <stdio.h>

#include "tools/report_json.h"

/* The late share past which top marks the host as the bottleneck. */
#define TOP_LATE_WARN 0.05

/* One screen: @line, the last sample (n == 0: none yet); @mount, the
 * mount event of the run (n == 0: none); @faults, `fault list`'s text. */
void top_show(FILE *out, const char *mnt, const struct rj_obj *line,
	      const struct rj_obj *mount, const char *faults);

#endif
