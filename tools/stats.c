/* arraysim stats: a mounted array's counters, through its control socket. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/ctl.h"
#include "tools/commands.h"
#include "tools/options.h"

struct stats_opts {
	bool json;
	bool reset;
	bool array;
	bool since_mark;
};

#define O(f) offsetof(struct stats_opts, f)
static const struct opt_def stats_defs[] = {
    {"json", 0, OPT_FLAG, O(json), NULL, "one JSON object"},
    {"array", 0, OPT_FLAG, O(array), NULL,
     "the array model's figures: per tier and per link, controller "
     "and drive; the flash cache; host-bound replies"},
    {"since-mark", 0, OPT_FLAG, O(since_mark), NULL,
     "with --array: the figures since `arraysim ctl MOUNTPOINT stats "
     "mark` (one run's)"},
    {"reset", 0, OPT_FLAG, O(reset), NULL,
     "zero the counters (gauges such as unique blocks stay)"},
    {0},
};
#undef O

int cmd_stats(int argc, char **argv)
{
	struct stats_opts o = {0};
	const char *pos[1];
	int npos;
	int r = opts_parse(
	    "stats", "[--array [--since-mark]] [--json|--reset] MOUNTPOINT",
	    stats_defs, &o, argc, argv, pos, 1, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	if (npos != 1) {
		tool_error("stats: no MOUNTPOINT given");
		return 2;
	}
	if (o.since_mark && (!o.array || o.reset)) {
		tool_error("stats: --since-mark goes with --array alone");
		return 2;
	}
	char err[1024];
	const char *cmd = o.since_mark ? (o.json ? "stats array since-mark json"
						 : "stats array since-mark")
			  : o.reset    ? "stats reset"
			  : o.array && o.json ? "stats array json"
			  : o.array	      ? "stats array"
			  : o.json	      ? "stats json"
					      : "stats";
	r = ctl_request(pos[0], cmd, stdout, err, sizeof(err));
	if (r) {
		tool_error("stats: %s", err);
		return 2;
	}
	return 0;
}
