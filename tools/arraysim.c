/* The `arraysim` command: one binary, one subcommand per verb. Invoked as
 * mount.fuse.arraysim, or by mount.fuse3 as `arraysim STORE MNT -o OPTS`,
 * it is mount(8)'s helper (mount_helper.c). */
#include <stdio.h>
#include <string.h>

#include "tools/commands.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: arraysim COMMAND [OPTIONS] ...\n"
		   "       arraysim --version | --man PAGE | --completion "
		   "bash\n\ncommands:\n");
	for (const struct subcommand *c = subcommands; c->name; c++)
		fprintf(f, "  %-11s %s\n", c->name, c->summary);
	fprintf(f, "\n'arraysim COMMAND --help' describes each.\n");
}

static const struct subcommand *find_command(const char *name)
{
	for (const struct subcommand *c = subcommands; c->name; c++)
		if (!strcmp(name, c->name))
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	if (!strcmp(base ? base + 1 : argv[0], "mount.fuse.arraysim"))
		return mount_helper(argc, argv);
	if (argc < 2) {
		tool_error("no command given (try: arraysim --help)");
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("arraysim %s\n", ARRAYSIM_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--man")) {
		if (argc != 3) {
			tool_error("--man needs one PAGE (arraysim, "
				   "arraysim-COMMAND, arraysim-profile.5, "
				   "arraysim-scenario)");
			return 2;
		}
		return man_page(stdout, argv[2]);
	}
	if (!strcmp(argv[1], "--completion")) {
		if (argc != 3 || strcmp(argv[2], "bash")) {
			tool_error("--completion: only bash is written");
			return 2;
		}
		return completion_bash(stdout);
	}
	const struct subcommand *c = find_command(argv[1]);
	if (c)
		return c->run(argc - 1, argv + 1);
	/* mount.fuse3 runs the type's subtype with the source first. */
	if (strchr(argv[1], '/') && argc >= 3)
		return mount_helper(argc, argv);
	tool_error("unknown command '%s' (try: arraysim --help)", argv[1]);
	return 2;
}
