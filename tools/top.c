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
#include "tools/top.h"

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
	/* What follows the last newline is a line the sampler has not
	 * finished writing: the complete one is before it. */
	char *nl = strrchr(buf, '\n');
	if (!nl)
		return false;
	*nl = '\0';
	nl = strrchr(buf, '\n');
	if (nl)
		memmove(buf, nl + 1, strlen(nl + 1) + 1);
	return buf[0] == '{';
}

/* The last "mount" event of @path (events.jsonl) into @buf and @o: what
 * the mounted run emulates. @o->n stays 0 if there is none. */
static void last_mount(const char *path, char *buf, size_t len,
		       struct rj_obj *o)
{
	char line[4096];
	FILE *f = fopen(path, "r");

	o->n = 0;
	buf[0] = '\0';
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "\"event\":\"mount\""))
			snprintf(buf, len, "%s", line);
	fclose(f);
	if (buf[0] && rj_parse(buf, strlen(buf), o))
		o->n = 0;
}

static int refresh(const char *mnt, const char *samples,
		   const struct rj_obj *mount, bool tty)
{
	char line[4096], faults[4096] = "", err[512];
	struct rj_obj sample = {.n = 0}; /* none yet: every figure 0 */
	if (last_line(samples, line, sizeof(line)) &&
	    rj_parse(line, strlen(line), &sample))
		sample.n = 0; /* not a sample: shown as none */
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
	top_show(stdout, mnt, &sample, mount, faults);
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
	static char mount_line[4096];
	static struct rj_obj mount;
	char events[PATH_MAX + 16];
	snprintf(events, sizeof(events), "%s/events.jsonl", store);
	last_mount(events, mount_line, sizeof(mount_line), &mount);
	bool tty = isatty(STDOUT_FILENO);
	for (uint64_t i = 0; !o.count || i < o.count; i++) {
		if (i) {
			struct timespec ts = {
			    (time_t)(o.interval_ns / NS_PER_SEC),
			    (long)(o.interval_ns % NS_PER_SEC)};
			nanosleep(&ts, NULL);
		}
		r = refresh(pos[0], samples, &mount, tty);
		if (r)
			return r;
	}
	return 0;
}
