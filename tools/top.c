/* arraysim top: a live view of a mounted array, refreshed once a second,
 * from the daemon's per-second samples (STORE/samples.jsonl, format in
 * common/samples.h and, for a timed profile's tiers, cache hit ratio,
 * rebuild and drive states, tiers/array_samples.h) and its active faults
 * (the control socket). On a
 * terminal the screen is redrawn; otherwise one block per refresh is
 * appended, so it can be logged or read by a test. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/ctl.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/report_json.h"

struct top_opts {
	uint64_t count;	      /* refreshes, 0 = until interrupted */
	uint64_t interval_ns; /* between refreshes */
};

#define O(f) offsetof(struct top_opts, f)
static const struct opt_def top_defs[] = {
    {"count", 'n', OPT_U64, O(count), "N",
     "refresh N times, then exit (default: until interrupted)"},
    {"interval", 0, OPT_DURATION, O(interval_ns), "TIME",
     "time between refreshes (default 1s)"},
    {0},
};
#undef O

/* A sample's number under @key; 0 when absent (no sample yet). */
static double num(const struct rj_obj *o, const char *key)
{
	double v = 0;
	return rj_num(o, key, &v) ? v : 0;
}

/* The last complete line of @path into @buf; false if none. */
static bool last_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	fseek(f, 0, SEEK_END);
	long end = ftell(f),
	     from = end > (long)len - 1 ? end - (long)len + 1 : 0;
	fseek(f, from, SEEK_SET);
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	char *nl = strrchr(buf, '\n');
	if (nl)
		memmove(buf, nl + 1, strlen(nl + 1) + 1);
	return buf[0] == '{';
}

/* The tiers the sample has (timed profiles): drive operations, their
 * MB/s and times, and queue depth, under the table of host I/O. */
static void show_tiers(FILE *out, const struct rj_obj *line)
{
	static const char *const tiers[] = {"flash", "cache", "backing"};
	for (int i = 0; i < 3; i++) {
		char k[5][40];
		snprintf(k[0], 40, "tier_%s_iops", tiers[i]);
		double v;
		if (!rj_num(line, k[0], &v))
			continue;
		snprintf(k[1], 40, "tier_%s_mbps", tiers[i]);
		snprintf(k[2], 40, "tier_%s_p50_us", tiers[i]);
		snprintf(k[3], 40, "tier_%s_p99_us", tiers[i]);
		snprintf(k[4], 40, "tier_%s_qd", tiers[i]);
		fprintf(out, "%-8s %10.0f %10.2f %12.1f %12.1f  QD %.2f\n",
			tiers[i], v, num(line, k[1]), num(line, k[2]),
			num(line, k[3]), num(line, k[4]));
	}
}

/* The array model's state: cache hit ratio, rebuild, what is out. */
static void show_array(FILE *out, const struct rj_obj *line)
{
	double v;
	if (!rj_num(line, "array_up", &v))
		return; /* the null profile: no model */
	if (rj_num(line, "cache_hit_ratio", &v))
		fprintf(out, "cache hit ratio %.3f\n", v);
	else if (rj_has_prefix(line, "tier_cache"))
		fprintf(out, "cache hit ratio -  (no reads this second)\n");
	fprintf(out,
		"rebuild %.1f%% done, %.3f GB left  drives failed %.0f "
		"rebuilding %.0f slow %.0f\n",
		num(line, "rebuild_ratio") * 100,
		num(line, "rebuild_left_bytes") / 1e9,
		num(line, "drives_failed"), num(line, "drives_rebuilding"),
		num(line, "drives_slow"));
	fprintf(out, "controllers down %.0f  paths down %.0f  array %s\n",
		num(line, "ctls_down"), num(line, "paths_down"),
		num(line, "array_up") ? "up" : "DOWN");
}

static void show(FILE *out, const char *mnt, const struct rj_obj *line,
		 const char *faults)
{
	char power[16] = "";
	rj_str(line, "power", power, sizeof(power));
	fprintf(out, "arraysim %s  t=%.0fs  power %s\n", mnt, num(line, "t"),
		power);
	fprintf(out, "         %10s %10s %12s %12s\n", "IOPS", "MB/s", "p50 us",
		"p99 us");
	static const char *const ops[] = {"read", "write"};
	for (int i = 0; i < 2; i++) {
		char k[4][32];
		snprintf(k[0], 32, "%s_iops", ops[i]);
		snprintf(k[1], 32, "%s_mbps", ops[i]);
		snprintf(k[2], 32, "%s_p50_us", ops[i]);
		snprintf(k[3], 32, "%s_p99_us", ops[i]);
		fprintf(out, "%-8s %10.0f %10.2f %12.1f %12.1f\n", ops[i],
			num(line, k[0]), num(line, k[1]), num(line, k[2]),
			num(line, k[3]));
	}
	show_tiers(out, line);
	fprintf(out, "dedupe ratio %.3f  unique blocks %.0f  errors/s %.0f\n",
		num(line, "dedupe_ratio"), num(line, "unique_blocks"),
		num(line, "errors"));
	show_array(out, line);
	fprintf(out, "faults active %.0f\n%s", num(line, "faults_active"),
		faults);
}

static int refresh(const char *mnt, const char *samples, bool tty)
{
	char line[4096], faults[4096] = "", err[512];
	struct rj_obj sample = {.n = 0}; /* none yet: every figure 0 */
	if (last_line(samples, line, sizeof(line)) &&
	    rj_parse(line, strlen(line), &sample))
		sample.n = 0; /* a torn last line: shown as none */
	FILE *f = fmemopen(faults, sizeof(faults) - 1, "w");
	if (!f || ctl_request(mnt, "fault list", f, err, sizeof(err))) {
		if (f)
			fclose(f);
		tool_error("top: %s", err);
		return 2;
	}
	fclose(f);
	if (tty)
		fputs("\033[H\033[2J", stdout);
	show(stdout, mnt, &sample, faults);
	if (!tty)
		fputs("--\n", stdout);
	fflush(stdout);
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = {.interval_ns = NS_PER_SEC};
	const char *pos[1];
	int npos;
	int r = opts_parse("top", "[--count N] [--interval TIME] MOUNTPOINT",
			   top_defs, &o, argc, argv, pos, 1, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	char store[PATH_MAX], samples[PATH_MAX + 16];
	if (npos != 1 || !o.interval_ns) {
		tool_error("top: need MOUNTPOINT (and --interval > 0)");
		return 2;
	}
	if (ctl_find_store(pos[0], store, sizeof(store))) {
		tool_error("top: no arraysim is mounted on %s", pos[0]);
		return 2;
	}
	snprintf(samples, sizeof(samples), "%s/samples.jsonl", store);
	bool tty = isatty(STDOUT_FILENO);
	for (uint64_t i = 0; !o.count || i < o.count; i++) {
		if (i) {
			struct timespec ts = {
			    (time_t)(o.interval_ns / NS_PER_SEC),
			    (long)(o.interval_ns % NS_PER_SEC)};
			nanosleep(&ts, NULL);
		}
		r = refresh(pos[0], samples, tty);
		if (r)
			return r;
	}
	return 0;
}
