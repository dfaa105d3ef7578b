/* arraysim report RUN: the rehearsal report of a run, from the samples and
 * the event log a mount leaves in its store. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/commands.h"
#include "tools/options.h"
#include "tools/report.h"
#include "tools/report_curve.h"

struct report_opts {
	const char *out;
	const char *curve;
	uint64_t run; /* 1-based; RUN_UNSET: not given, the last */
};
#define RUN_UNSET UINT64_MAX

#define O(f) offsetof(struct report_opts, f)
static const struct opt_def report_defs[] = {
    {"out", 'o', OPT_STRING, O(out), "FILE",
     "where to write the page [RUN/report.html]"},
    {"run", 0, OPT_U64, O(run), "N",
     "which mount of the store, from 1 [the last]"},
    {"curve", 0, OPT_STRING, O(curve), "FILE[,FILE...]",
     "also chart workloads/curve.sh output: latency against IOPS"},
    {0},
};
#undef O

/* Read @dir/@name into @f; a missing file is an empty one (a store that
 * was never mounted with this version has neither). */
static int load(const char *dir, const char *name, bool samples,
		struct rfile *f, bool *found)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *in = fopen(path, "r");
	if (!in) {
		if (errno == ENOENT)
			return 0;
		tool_error("report: %s: %s", path, strerror(errno));
		return -1;
	}
	*found = true;
	int r = rfile_read(in, samples, f);
	fclose(in);
	if (r)
		tool_error("report: %s: %s", path, strerror(-r));
	return r ? -1 : 0;
}

static int write_page(const char *path, const struct report_page *p)
{
	FILE *out = fopen(path, "w");
	if (!out) {
		tool_error("report: %s: %s", path, strerror(errno));
		return -1;
	}
	report_html_write(out, p);
	if (fclose(out)) {
		tool_error("report: %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int check_dir(const char *dir)
{
	struct stat st;
	if (stat(dir, &st)) {
		tool_error("report: %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		tool_error("report: %s: not a directory (RUN is a store)", dir);
		return -1;
	}
	return 0;
}

/* The curves of --curve, a comma-separated list: at most MAX_CURVES. */
#define MAX_CURVES 8

static void free_curves(struct rcurve *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rcurve_free(&c[i]);
}

static int load_curves(const char *list, struct rcurve *c, size_t *n)
{
	*n = 0;
	if (!list)
		return 0;
	char buf[PATH_MAX * 2];
	snprintf(buf, sizeof(buf), "%s", list);
	char *save = NULL;
	for (char *p = strtok_r(buf, ",", &save); p;
	     p = strtok_r(NULL, ",", &save)) {
		size_t line;
		int r =
		    *n == MAX_CURVES ? -E2BIG : rcurve_load(p, &c[*n], &line);
		if (r == -E2BIG)
			tool_error("report: --curve: at most %d files",
				   MAX_CURVES);
		else if (r == -EINVAL && line)
			tool_error("report: %s line %zu: not a curve.sh step "
				   "(pct, iops and lat_mean_us, as numbers)",
				   p, line);
		else if (r == -EINVAL)
			tool_error("report: %s: no curve.sh step in it", p);
		else if (r)
			tool_error("report: %s: %s", p, strerror(-r));
		if (r) {
			free_curves(c, *n);
			return -1;
		}
		++*n;
	}
	return 0;
}

static int report_run(const char *dir, const struct report_opts *o)
{
	if (check_dir(dir))
		return 2;
	struct rfile f = {0};
	bool found = false;
	if (load(dir, "samples.jsonl", true, &f, &found) ||
	    load(dir, "events.jsonl", false, &f, &found)) {
		rfile_free(&f);
		return 2;
	}
	if (!found) {
		tool_error("report: %s has neither samples.jsonl nor "
			   "events.jsonl (is it a store that was mounted?)",
			   dir);
		return 2;
	}
	struct rrun r;
	unsigned want =
	    o->run == RUN_UNSET ? REPORT_RUN_LAST : (unsigned)o->run;
	int rc = rrun_select(&f, want, &r);
	if (rc) {
		if (rc == -ERANGE)
			tool_error("report: --run %llu: %s has %u run(s)",
				   (unsigned long long)o->run, dir,
				   rfile_runs(&f));
		else
			tool_error("report: %s", strerror(-rc));
		rfile_free(&f);
		return 2;
	}
	char def[PATH_MAX];
	snprintf(def, sizeof(def), "%s/report.html", dir);
	const char *path = o->out ? o->out : def;
	struct rcurve curves[MAX_CURVES];
	size_t ncurves;
	if (load_curves(o->curve, curves, &ncurves)) {
		rrun_free(&r);
		rfile_free(&f);
		return 2;
	}
	struct report_page page = {dir, &f, &r, curves, ncurves};
	rc = write_page(path, &page);
	free_curves(curves, ncurves);
	if (!rc) {
		size_t hangs = 0;
		for (size_t i = 0; i < r.nstalls; i++)
			hangs += r.stalls[i].no_fault;
		printf("%s: run %u of %u, %.1f s, %zu faults, %zu stalls\n",
		       path, r.index, r.nruns, r.length, r.nperiods, r.nstalls);
		/* What a CI log must not scroll past: I/O waited with no
		 * fault to blame. */
		if (hangs)
			printf("%s: %zu of the stalls with no fault active: "
			       "hangs to explain (see its Stalls table)\n",
			       path, hangs);
		struct rhost h;
		rrun_host(&r, &h);
		if (h.seconds_over)
			printf(
			    "%s: host-bound: %.1f%% of the replies late "
			    "(worst %.3f ms), %u s past %.0f%%: there the "
			    "figures are the host's, not the model's\n",
			    path, h.replies > 0 ? 100 * h.late / h.replies : 0,
			    h.worst_ms, h.seconds_over, REPORT_LATE_WARN * 100);
	}
	rrun_free(&r);
	rfile_free(&f);
	return rc ? 2 : 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {.run = RUN_UNSET};
	const char *pos[1];
	int npos;
	int r = opts_parse(
	    "report", "[--out FILE] [--run N] [--curve FILE[,FILE...]] RUN",
	    report_defs, &o, argc, argv, pos, 1, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	if (npos != 1) {
		tool_error("report: no RUN given (a store directory)");
		return 2;
	}
	/* Runs count from 1: 0 is refused rather than read as "the last"
	 * (omitting --run says that), so a script's off-by-one is seen. */
	if (o.run == 0) {
		tool_error("report: --run 0: runs count from 1 (leave --run "
			   "out for the last)");
		return 2;
	}
	if (o.run != RUN_UNSET && o.run >= REPORT_RUN_LAST) {
		tool_error("report: --run %llu: too large",
			   (unsigned long long)o.run);
		return 2;
	}
	return report_run(pos[0], &o);
}
