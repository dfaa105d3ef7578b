/* The control protocol's commands: one line in (common/ctl.h carries it),
 * parsed here without side effects, so that the whole grammar is fuzzed
 * (tests/fuzz/fuzz_control.c) and the daemon only dispatches.
 *
 *   status
 *   stats [json|reset|array [json]]
 *   sync
 *   fault inject KIND [key=value ...]      (faults/rule.h)
 *   fault list
 *   fault clear ID|all
 *   scenario run /ABSOLUTE/FILE [time-scale=F]
 *   scenario status
 *   scenario stop
 */
#ifndef ARRAYSIM_FAULTS_CONTROL_H
#define ARRAYSIM_FAULTS_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include "faults/rule.h"

enum control_verb {
	CONTROL_STATUS,
	CONTROL_STATS,
	CONTROL_STATS_JSON,
	CONTROL_STATS_RESET,
	CONTROL_STATS_ARRAY,
	CONTROL_STATS_ARRAY_JSON,
	CONTROL_SYNC,
	CONTROL_FAULT_INJECT,
	CONTROL_FAULT_LIST,
	CONTROL_FAULT_CLEAR,
	CONTROL_SCENARIO_RUN,
	CONTROL_SCENARIO_STATUS,
	CONTROL_SCENARIO_STOP,
	CONTROL_STATS_MARK,	       /* stats mark */
	CONTROL_STATS_ARRAY_MARK,      /* stats array since-mark */
	CONTROL_STATS_ARRAY_MARK_JSON, /* stats array since-mark json */
	CONTROL_MODEL_PAUSE,	       /* model pause: no timing, same layout */
	CONTROL_MODEL_RESUME,
};

#define CONTROL_PATH_MAX 1024

struct control_cmd {
	enum control_verb verb;
	struct fault_rule rule;	     /* FAULT_INJECT */
	uint64_t id;		     /* FAULT_CLEAR; 0 = all */
	char path[CONTROL_PATH_MAX]; /* SCENARIO_RUN */
	double time_scale;	     /* SCENARIO_RUN, (0, 1e6] */
};

/* Parse one command line into @out. 0, or -EINVAL with a one-line reason
 * in @err (and @out untouched). */
int control_parse(const char *line, struct control_cmd *out, char *err,
		  size_t errlen);

#endif
