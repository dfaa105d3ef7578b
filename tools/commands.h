/* Subcommands of the `arraysim` command. Each takes the arguments after
 * its name (argv[0] is the subcommand) and returns the process exit code:
 * 0 success, 1 the command ran and found a problem, 2 it could not run
 * (bad usage, unusable store). Errors are one line on stderr, starting
 * "arraysim: ". */
#ifndef ARRAYSIM_TOOLS_COMMANDS_H
#define ARRAYSIM_TOOLS_COMMANDS_H

#include <stdio.h>

int cmd_mount(int argc, char **argv);
int cmd_umount(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_fsck(int argc, char **argv);
int cmd_ctl(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_dedupe_scan(int argc, char **argv);
int cmd_profiles(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_replica(int argc, char **argv);

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};
/* Every verb, sorted by name, ended by a zeroed row (arraysim.c). */
extern const struct subcommand subcommands[];

/* mount(8)'s helper: `STORE MOUNTPOINT [-sfnv] [-o OPTS] [-t TYPE]`, each
 * of OPTS an option of `arraysim mount` or of FUSE (mount_helper.c). */
int mount_helper(int argc, char **argv);
/* What @c prints for --help, its option table in format @fmt (enum
 * opts_format of tools/options.h). The command writes to stdout: that goes
 * to a temporary file for the time of the call. NULL on failure; the
 * caller frees. */
char *command_help(const struct subcommand *c, int fmt);
/* Print bash's completion script for arraysim (completion.c). */
int completion_bash(FILE *out);
/* Print man page @page as roff (man.c); 0, or 2 after one error line. */
int man_page(FILE *out, const char *page);

/* Print "arraysim: <fmt>\n" to stderr. */
void tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
