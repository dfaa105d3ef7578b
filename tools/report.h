/* arraysim report: the page of one rehearsal run (tools/report_data.h),
 * as one self-contained HTML file with inline SVG charts. */
#ifndef ARRAYSIM_TOOLS_REPORT_H
#define ARRAYSIM_TOOLS_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "tools/report_data.h"
#include "tools/report_text.h"

/* Classes, and fill or stroke colours, that a test can look for in the
 * page or in a screenshot of it: each is used for one thing only. */
#define REPORT_COLOUR_INJECT "#ff00ff"	    /* fault injected: marker */
#define REPORT_COLOUR_CLEAR "#7f7f7f"	    /* fault cleared: marker */
#define REPORT_COLOUR_POWER "#000000"	    /* power lost: marker */
#define REPORT_COLOUR_EFFECT "#8c564b"	    /* data lost, thin full: marker */
#define REPORT_COLOUR_DEGRADED "#ffe4b5"    /* a fault active: shading */
#define REPORT_COLOUR_STALL "#00e5ff"	    /* a stall: shading */
#define REPORT_COLOUR_REBUILD "#9c27b0"	    /* a rebuild: band on top */
#define REPORT_COLOUR_HOST_BOUND "#e53935"  /* host-bound second: shading */
#define REPORT_COLOUR_REPLICATION "#006400" /* replication_*: marker */

struct rcurve;

struct report_page {
	const char *source; /* the directory read */
	const struct rfile *file;
	const struct rrun *run;
	const struct rcurve *curves; /* --curve files, drawn after the run */
	size_t ncurves;
};

/* One chart: @series of the run's samples against time, with the run's
 * periods, stalls and markers. */
struct chart_series {
	enum rs_field field;
	const char *label;
	const char *colour;
	double scale; /* multiplies the value (us -> ms) */
	bool dashed;
};

struct chart_spec {
	const char *title, *unit;
	bool log_y;
	const struct chart_series *series;
	unsigned nseries;
	double y_max; /* linear: the top, unless a value is above; 0: auto */
};

void report_svg_chart(FILE *out, const struct rrun *r,
		      const struct chart_spec *c);
/* Whether some sample of @r has a value of one of @c's series. */
bool report_chart_has_data(const struct rrun *r, const struct chart_spec *c);
void report_html_write(FILE *out, const struct report_page *p);

#endif
