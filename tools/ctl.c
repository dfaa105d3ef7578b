/* arraysim ctl: one control command to a mounted array, its answer on
 * stdout. The protocol is common/ctl.h's: one line in, "ok" or "error:"
 * and a body out. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ctl.h"
#include "faults/kind.h"
#include "tools/commands.h"

static const char ctl_help[] =
    "usage: arraysim ctl MOUNTPOINT COMMAND [ARGS...]\n"
    "\n"
    "Send one command to the array mounted at MOUNTPOINT (only its owner\n"
    "or root may) and print the answer.\n"
    "\n"
    "commands:\n"
    "  status                      store, seed, profile, active faults\n"
    "  stats [json|reset]          counters, as `arraysim stats`\n"
    "  stats mark                  set the mark of stats --array --since-mark\n"
    "  sync                        make everything written so far durable\n"
    "  model pause|resume          paused: files land where the model puts\n"
    "                              them, at host speed (no timing)\n"
    "  fault inject KIND [K=V...]  start a fault; prints its id\n"
    "  fault list                  active faults: ID RULE fired=N\n"
    "  fault clear ID|all          stop one fault, or every one\n"
    "  scenario run FILE [time-scale=F]\n"
    "                              run a fault timeline (faults/scenario.h),\n"
    "                              F times faster than written\n"
    "  scenario status|stop        where it is; stop it (faults stay)\n"
    "  replication status          with --replicate-to: state, lag, backlog,\n"
    "                              bytes on the wire, saved by dedupe\n"
    "  replication sync            ship what is committed now; wait for it\n"
    "  replication pause|resume    hold batches (freed blocks stay held)\n"
    "  replication stop|start      end replicating; start again (a full\n"
    "                              batch, checked block by block)\n"
    "\n";

/* After the kinds (faults/kinds.c prints them from fault_kinds[]). */
static const char ctl_help_tail[] =
    "op LIST: read,write,fsync,open,create,mkdir,unlink,rmdir,rename,\n"
    "setattr,readdir or any. GLOB: fnmatch(3) on the path from the mount's\n"
    "root, '*' matching '/' too. Every fault and effect is logged to\n"
    "STORE/events.jsonl.\n";

int cmd_ctl(int argc, char **argv)
{
	if (argc >= 2 &&
	    (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(ctl_help, stdout);
		fault_kinds_help(stdout);
		fputs(ctl_help_tail, stdout);
		return 0;
	}
	if (argc < 3) {
		tool_error("ctl: need MOUNTPOINT and COMMAND (try: arraysim "
			   "ctl --help)");
		return 2;
	}
	char line[CTL_MAX_LINE];
	size_t at = 0;
	for (int i = 2; i < argc; i++) {
		size_t n = strlen(argv[i]);
		if (at + n + 2 > sizeof(line) || strchr(argv[i], '\n')) {
			tool_error("ctl: command too long or has a newline");
			return 2;
		}
		if (i > 2)
			line[at++] = ' ';
		memcpy(line + at, argv[i], n);
		at += n;
	}
	line[at] = '\0';
	/* The daemon runs in /: it needs the scenario file's full path. */
	char full[PATH_MAX];
	if (argc >= 5 && !strcmp(argv[2], "scenario") &&
	    !strcmp(argv[3], "run")) {
		if (!realpath(argv[4], full)) {
			tool_error("ctl: %s: %s", argv[4], strerror(errno));
			return 2;
		}
		int n = snprintf(line, sizeof(line),
				 "scenario run %.3000s%s%.900s", full,
				 argc > 5 ? " " : "", argc > 5 ? argv[5] : "");
		if (n < 0 || (size_t)n >= sizeof(line) || strlen(full) > 3000) {
			tool_error("ctl: scenario path too long");
			return 2;
		}
	}
	char err[1024];
	if (ctl_request(argv[1], line, stdout, err, sizeof(err))) {
		tool_error("ctl: %s", err);
		return 2;
	}
	return 0;
}
