/* Subcommands of the `arraysim` command. Each takes the arguments after
 * its name (argv[0] is the subcommand) and returns the process exit code:
 * 0 success, 1 the command ran and found a problem, 2 it could not run
 * (bad usage, unusable store). Errors are one line on stderr, starting
 * "arraysim: ". */
#ifndef ARRAYSIM_TOOLS_COMMANDS_H
#define ARRAYSIM_TOOLS_COMMANDS_H

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

/* Print "arraysim: <fmt>\n" to stderr. */
void tool_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
