/* Scenarios: fault timelines in the INI style of fio job files and array
 * profiles, parsed with libinih.
 *
 *   [scenario]
 *   name = slow-then-dead
 *   description = reads slow down, then the power goes
 *
 *   [at 0s]
 *   inject.slow = latency latency=5ms op=read
 *
 *   [at 2m]
 *   clear = slow
 *   inject = error op=write errno=EIO prob=0.01
 *
 *   [at 5m]
 *   inject = power-loss
 *
 * A section [at TIME] holds the steps taken TIME after the scenario
 * starts (divided by the run's time scale): `inject = RULE` or
 * `inject.LABEL = RULE` (a fault rule as after `fault inject`), and
 * `clear = LABEL|all` (a fault this scenario injected under LABEL, or every
 * active fault), and `replication = start|stop|pause|resume|sync` (as
 * `ctl MNT replication VERB`, on a mount with --replicate-to). Steps run in
 * time order, and in file order at one time.
 */
#ifndef ARRAYSIM_FAULTS_SCENARIO_H
#define ARRAYSIM_FAULTS_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "faults/rule.h"

#define SCENARIO_LABEL_MAX 32
#define SCENARIO_MAX_STEPS 1024

enum scenario_action { SCENARIO_INJECT, SCENARIO_CLEAR, SCENARIO_REPLICATION };

struct scenario_step {
	uint64_t at_ns;
	enum scenario_action action;
	char label[SCENARIO_LABEL_MAX]; /* "" = none; clear: "all" or one */
	struct fault_rule rule;		/* inject */
	char verb[8];			/* replication: start, stop, ... */
	unsigned order;			/* its place in the file */
};

struct scenario {
	char name[64];
	char description[256];
	unsigned n;
	struct scenario_step *steps; /* sorted by at_ns, then by line */
};

/* Parse scenario text; @source names it in errors ("FILE:LINE: ...").
 * 0, or -EINVAL with a one-line reason in @err. */
int scenario_parse_string(const char *text, const char *source,
			  struct scenario *out, char *err, size_t errlen);
/* The same from a file: -errno (cannot read it) or -EINVAL. */
int scenario_parse_file(const char *path, struct scenario *out, char *err,
			size_t errlen);
void scenario_free(struct scenario *s);
/* The step's action as the event log names it. */
const char *scenario_action_name(enum scenario_action a);
/* Does @s have a replication step? */
bool scenario_replicates(const struct scenario *s);

#endif
