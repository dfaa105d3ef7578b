/* The `arraysim` command: one binary, one subcommand per verb. */
#include <stdio.h>
#include <string.h>

#include "tools/commands.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* Sorted by name: the set of verbs, in one place. */
static const struct subcommand subcommands[] = {
    {"ctl", cmd_ctl, "control a mounted array: status, faults, stats"},
    {"dedupe-scan", cmd_dedupe_scan,
     "what dedupe and compression would save on files"},
    {"fsck", cmd_fsck, "check a store that is not mounted"},
    {"mount", cmd_mount, "mount a store as a virtual array"},
    {"profile", cmd_profile, "show NAME|FILE: print a profile fully resolved"},
    {"profiles", cmd_profiles, "list the built-in array profiles"},
    {"report", cmd_report, "RUN: the rehearsal report of a run, as HTML"},
    {"stats", cmd_stats, "print the counters of a mounted array"},
    {"top", cmd_top, "live view of a mounted array, once a second"},
    {"umount", cmd_umount, "unmount and wait for the store to close"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: arraysim COMMAND [OPTIONS] ...\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(*subcommands); i++)
		fprintf(f, "  %-11s %s\n", subcommands[i].name,
			subcommands[i].summary);
	fprintf(f, "\n'arraysim COMMAND --help' describes each.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		tool_error("no command given (try: arraysim --help)");
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(*subcommands); i++)
		if (!strcmp(argv[1], subcommands[i].name))
			return subcommands[i].run(argc - 1, argv + 1);
	tool_error("unknown command '%s' (try: arraysim --help)", argv[1]);
	return 2;
}
