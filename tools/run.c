/* arraysim run [MOUNT OPTIONS] [--scenario FILE] [--report OUT.html]
 * [--expect EXPR]... -- COMMAND...: one CI step. Mounts a fresh store (or
 * --store) at a temporary mountpoint (or --mountpoint), runs COMMAND with
 * ARRAYSIM_MNT set, starts the scenario as the command starts, then
 * checks the expectations on the final stats, unmounts (always: also when
 * the command fails or a signal comes), writes the report and removes
 * what it made. Exit: the command's status when it failed (128 + signal
 * when killed); else 1 when an expectation is false; else 0. 2: could not
 * run (one line says why). The mount, umount, ctl and report steps are
 * this binary's own commands, run as children (/proc/self/exe). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/ctl.h"
#include "tools/commands.h"
#include "tools/expect.h"
#include "tools/mount_opts.h"
#include "tools/options.h"

#define RUN_MAX_EXPECT 32
#define RUN_MAX_WORDS 128

struct run {
	const char *scenario, *report, *mountpoint, *store;
	/* The mount's --time-scale, else its --scale: the scenario's too. */
	const char *time_scale;
	bool time_scale_given;
	struct expect expect[RUN_MAX_EXPECT];
	unsigned n_expect;
	char *mount_argv[RUN_MAX_WORDS]; /* "arraysim" "mount" OPTIONS... */
	int mount_argc;
	char **command;
	char tmp[PATH_MAX]; /* "": nothing made */
	char store_buf[PATH_MAX], mnt_buf[PATH_MAX];
	bool mounted, was_mounted;
	bool scenario_failed;
};

static const char synopsis[] =
    "[MOUNT OPTIONS] [--scenario FILE] [--report OUT.html] [--expect "
    "EXPR]... -- COMMAND...";

/* Run's own options; the offsets are unused (run_split takes them). */
static const struct opt_def run_defs[] = {
    {"scenario", 0, OPT_STRING, 0, "FILE",
     "start this fault timeline (arraysim-scenario(5)) as COMMAND starts, "
     "at the mount's --time-scale (else its --scale)"},
    {"report", 0, OPT_STRING, 0, "OUT.html",
     "write the run's report (arraysim report) here after the unmount"},
    {"expect", 0, OPT_STRING, 0, "EXPR",
     "NAME OP NUMBER on the final stats (stats --json names, dotted for "
     "nested ones, and host_bound_ratio), OP one of == != < <= > >=; "
     "false: exit 1. Repeatable"},
    {"mountpoint", 0, OPT_STRING, 0, "DIR",
     "mount here (default: a new temporary directory)"},
    {0},
};

static void usage(void)
{
	/* One table for --help and the man page: run's, then mount's. */
	static struct opt_def all[64];
	size_t n = 0;
	for (const struct opt_def *d = run_defs; d->name; d++)
		all[n++] = *d;
	for (const struct opt_def *d = mount_opt_defs; d->name && n < 63; d++)
		if (strcmp(d->name, "foreground"))
			all[n++] = *d;
	all[n] = (struct opt_def){0};
	opts_usage(stdout, "run", synopsis, all);
}

/* Run's option @d with @val. */
static int take_run_opt(struct run *r, const struct opt_def *d, const char *val)
{
	char err[512];
	if (!strcmp(d->name, "expect")) {
		if (r->n_expect == RUN_MAX_EXPECT) {
			tool_error("run: more than %d --expect",
				   RUN_MAX_EXPECT);
			return -1;
		}
		if (expect_parse(val, &r->expect[r->n_expect], err,
				 sizeof(err))) {
			tool_error("run: %s", err);
			return -1;
		}
		r->n_expect++;
		return 0;
	}
	const char **field = !strcmp(d->name, "scenario") ? &r->scenario
			     : !strcmp(d->name, "report") ? &r->report
							  : &r->mountpoint;
	*field = val;
	return 0;
}

/* One option word at argv[*i]: run's own, or mount's (copied to the
 * mount's argv). */
static int split_one(struct run *r, int argc, char **argv, int *i)
{
	const int first = *i;
	const char *a = argv[*i], *eq = strchr(a, '=');
	bool lng = a[1] == '-';
	size_t len = eq && lng ? (size_t)(eq - a - 2) : strlen(a + 1 + lng);
	const struct opt_def *d =
	    lng ? opts_find_long(run_defs, a + 2, len) : NULL;
	bool own = d != NULL;
	if (!d)
		d = lng ? opts_find_long(mount_opt_defs, a + 2, len)
			: (a[2] ? NULL : opts_find_short(mount_opt_defs, a[1]));
	if (!d || !strcmp(d->name, "foreground")) {
		tool_error(
		    "run: unknown option '%s' (try: arraysim run --help)", a);
		return -1;
	}
	const char *val = lng && eq ? eq + 1 : NULL;
	if (d->type != OPT_FLAG && !val) {
		if (*i + 1 >= argc) {
			tool_error("run: %s needs %s", a, d->metavar);
			return -1;
		}
		val = argv[++*i];
	}
	if (own)
		return take_run_opt(r, d, val);
	if (!strcmp(d->name, "time-scale") ||
	    (!strcmp(d->name, "scale") && !r->time_scale_given)) {
		r->time_scale = val;
		r->time_scale_given = !strcmp(d->name, "time-scale");
	}
	if (!strcmp(d->name, "store")) {
		r->store = val;
		return 0;
	}
	if (r->mount_argc + 6 >= RUN_MAX_WORDS) {
		tool_error("run: too many mount options");
		return -1;
	}
	for (int k = first; k <= *i; k++)
		r->mount_argv[r->mount_argc++] = argv[k];
	return 0;
}

/* The arguments: options up to "--", then COMMAND. 0, 1 for --help, or
 * -1 after one error line. */
static int run_split(struct run *r, int argc, char **argv)
{
	r->mount_argv[r->mount_argc++] = (char *)"arraysim";
	r->mount_argv[r->mount_argc++] = (char *)"mount";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			r->command = argv + i + 1;
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage();
			return 1;
		}
		if (a[0] != '-' || !a[1]) {
			tool_error("run: unexpected argument '%s' (COMMAND "
				   "goes after --)",
				   a);
			return -1;
		}
		if (split_one(r, argc, argv, &i))
			return -1;
	}
	if (!r->command || !r->command[0]) {
		tool_error("run: no COMMAND (usage: arraysim run %s)",
			   synopsis);
		return -1;
	}
	return 0;
}

/* This binary's command @argv (NULL-terminated), as a child; its exit
 * status, or -1 (could not run, or killed). */
static int self_run(char *const argv[], bool quiet)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = quiet ? open("/dev/null", O_WRONLY) : -1;
		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The store and mountpoint: given, or made in one temporary directory. */
static int make_dirs(struct run *r)
{
	const char *tmpdir = getenv("TMPDIR");
	if (!r->store || !r->mountpoint) {
		snprintf(r->tmp, sizeof(r->tmp), "%.4000s/arraysim-run.XXXXXX",
			 tmpdir && *tmpdir ? tmpdir : "/tmp");
		if (!mkdtemp(r->tmp)) {
			tool_error("run: %s: %s", r->tmp, strerror(errno));
			r->tmp[0] = '\0';
			return -1;
		}
	}
	if (!r->store) {
		snprintf(r->store_buf, sizeof(r->store_buf), "%.4000s/store",
			 r->tmp);
		r->store = r->store_buf;
	}
	if (!r->mountpoint) {
		snprintf(r->mnt_buf, sizeof(r->mnt_buf), "%.4000s/mnt", r->tmp);
		r->mountpoint = r->mnt_buf;
	}
	if ((r->store == r->store_buf && mkdir(r->store, 0700)) ||
	    (r->mountpoint == r->mnt_buf && mkdir(r->mountpoint, 0700))) {
		tool_error("run: mkdir under %s: %s", r->tmp, strerror(errno));
		return -1;
	}
	return 0;
}

static int do_mount(struct run *r)
{
	r->mount_argv[r->mount_argc++] = (char *)"--store";
	r->mount_argv[r->mount_argc++] = (char *)r->store;
	r->mount_argv[r->mount_argc++] = (char *)r->mountpoint;
	r->mount_argv[r->mount_argc] = NULL;
	if (self_run(r->mount_argv, false) != 0)
		return -1; /* mount said why */
	r->mounted = r->was_mounted = true;
	return 0;
}

static volatile sig_atomic_t child_pid, got_signal;

/* INT, TERM, HUP: to the command; run then cleans up as it would. Before
 * the command starts, run skips it. */
static void forward(int sig)
{
	got_signal = sig;
	if (child_pid > 0)
		kill(child_pid, sig);
}

static void on_signals(void (*fn)(int))
{
	struct sigaction sa = {.sa_handler = fn};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* COMMAND with ARRAYSIM_MNT, the scenario started as it starts; its
 * exit status (128 + signal when killed), or -1 if it could not start. */
static int run_command(struct run *r)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		tool_error("run: fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		on_signals(SIG_DFL);
		setenv("ARRAYSIM_MNT", r->mountpoint, 1);
		execvp(r->command[0], r->command);
		tool_error("run: %s: %s", r->command[0], strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	if (got_signal) /* came before child_pid was set */
		kill(pid, got_signal);
	if (r->scenario) {
		char ts[128];
		snprintf(ts, sizeof(ts), "time-scale=%.100s",
			 r->time_scale ? r->time_scale : "1");
		char *argv[] = {"arraysim", "ctl", (char *)r->mountpoint,
				"scenario", "run", (char *)r->scenario,
				ts,	    NULL};
		if (self_run(argv, true) != 0) {
			r->scenario_failed = true; /* ctl said why */
			kill(pid, SIGTERM);
		}
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	child_pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The answer to control command @line, malloc'd; NULL after one line. */
static char *ask(const struct run *r, const char *line)
{
	char *text = NULL, err[1024];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m) {
		tool_error("run: out of memory");
		return NULL;
	}
	int rc = ctl_request(r->mountpoint, line, m, err, sizeof(err));
	fclose(m);
	if (rc) {
		tool_error("run: %s: %s", line, err);
		free(text);
		return NULL;
	}
	return text;
}

/* The figure @name: from `stats json`, or host_bound_ratio (late replies
 * over replies, 0 with none or the null profile) from the array's. */
static bool figure(const char *stats, const char *array, const char *name,
		   double *v)
{
	if (strcmp(name, "host_bound_ratio"))
		return expect_lookup(stats, name, v);
	double late = 0, done = 0;
	(void)expect_lookup(array, "host_bound.late", &late);
	(void)expect_lookup(array, "host_bound.completed", &done);
	*v = done > 0 ? late / done : 0;
	return true;
}

/* Check every --expect on the stats now. @names_only: only that each
 * name is a figure (before COMMAND). 0 all hold, 1 one is false (said on
 * stderr), -1 could not check (one line). */
static int check_expect(const struct run *r, bool names_only)
{
	if (!r->n_expect)
		return 0;
	char *stats = ask(r, "stats json"), *array = NULL;
	int rc = stats && (array = ask(r, "stats array json")) ? 0 : -1;
	for (unsigned i = 0; !rc && i < r->n_expect; i++) {
		const struct expect *e = &r->expect[i];
		double v;
		if (!figure(stats, array, e->name, &v)) {
			tool_error("run: --expect: '%s' is not a figure of "
				   "arraysim stats --json",
				   e->name);
			rc = -1;
		} else if (!names_only) {
			bool ok = expect_holds(e, v);
			fprintf(stderr, "arraysim run: expect %s (%g): %s\n",
				e->name, v, ok ? "holds" : "FALSE");
			if (!ok)
				rc = 1;
		}
	}
	free(stats);
	free(array);
	return rc;
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(path);
}

/* Unmount (the daemon gone before it returns), the report, then what run
 * made. -1 when one failed (said). */
static int finish(struct run *r)
{
	int rc = 0;
	if (r->mounted) {
		char *argv[] = {"arraysim", "umount", (char *)r->mountpoint,
				NULL};
		if (self_run(argv, false) != 0)
			return -1; /* never remove through a live mount */
		r->mounted = false;
	}
	if (r->report && r->was_mounted) {
		char *argv[] = {"arraysim", "report",	       (char *)r->store,
				"--out",    (char *)r->report, NULL};
		if (self_run(argv, true) != 0)
			rc = -1;
	}
	if (r->tmp[0] && nftw(r->tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS)) {
		tool_error("run: removing %s: %s", r->tmp, strerror(errno));
		rc = -1;
	}
	return rc;
}

int cmd_run(int argc, char **argv)
{
	static struct run r;
	int rc = run_split(&r, argc, argv);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (r.report && r.report[0] != '/') {
		static char abs_report[PATH_MAX];
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd))) {
			tool_error("run: getcwd: %s", strerror(errno));
			return 2;
		}
		snprintf(abs_report, sizeof(abs_report), "%.2000s/%.2000s", cwd,
			 r.report);
		r.report = abs_report;
	}
	on_signals(forward);
	int status = 2;
	if (make_dirs(&r) || do_mount(&r) || check_expect(&r, true))
		goto out;
	if (got_signal) {
		status = 128 + got_signal;
		goto out;
	}
	status = run_command(&r);
	if (status < 0 || r.scenario_failed) {
		status = 2;
		goto out;
	}
	int verdict = check_expect(&r, false);
	if (verdict < 0)
		status = 2;
	else if (status == 0 && verdict > 0)
		status = 1;
out:
	if (finish(&r) && status == 0)
		status = 2;
	return status;
}
