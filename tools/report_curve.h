/* Curve runs in arraysim report: the lines workloads/curve.sh prints (one
 * JSON object a step: the unlimited run at pct 0, then the job held at a
 * share of it), read and drawn as latency against IOPS, the chart of a
 * VDBench curve run. */
#ifndef ARRAYSIM_TOOLS_REPORT_CURVE_H
#define ARRAYSIM_TOOLS_REPORT_CURVE_H

#include <stddef.h>
#include <stdio.h>

/* Colour of the first curve's line, for a test to find in a screenshot;
 * used for nothing else on the page. */
#define REPORT_COLOUR_CURVE "#00a651"

struct rcurve_step {
	double pct; /* 0: the unlimited run, the curve's maximum */
	double target_iops, iops, lat_mean_us, lat_p99_us;
};

struct rcurve {
	char label[64]; /* the file's name without its directory and suffix */
	struct rcurve_step *steps;
	size_t n;
};

/* Read the curve in @path. 0; -errno if it cannot be read; -EINVAL with
 * @line set to the first line that is not a step (a curve.sh line needs
 * pct, iops and lat_mean_us), or when the file has no step at all. */
int rcurve_load(const char *path, struct rcurve *c, size_t *line);
/* The same from @in, with no label. */
int rcurve_read(FILE *in, struct rcurve *c, size_t *line);
void rcurve_free(struct rcurve *c);

/* The page's "Latency against IOPS" section: one chart of every curve,
 * then each curve's steps as a table. */
void report_curve_section(FILE *out, const struct rcurve *c, size_t n);

#endif
