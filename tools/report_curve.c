/* Curve runs in arraysim report; see tools/report_curve.h. */
#include "tools/report_curve.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report_json.h"
#include "tools/report_text.h"

/* The chart's geometry, in SVG user units (CSS pixels). */
#define CW 900.0
#define CH 380.0
#define CLEFT 70.0
#define CRIGHT 20.0
#define CTOP 40.0
#define CBOTTOM 45.0
#define CPW (CW - CLEFT - CRIGHT)
#define CPH (CH - CTOP - CBOTTOM)
#define TICKS 5

/* The first is REPORT_COLOUR_CURVE; none is a colour the page uses for
 * something else. */
static const char *const palette[] = {REPORT_COLOUR_CURVE, "#e6550d", "#3182bd",
				      "#756bb1", "#636363"};
#define NPALETTE (sizeof(palette) / sizeof(*palette))

static bool parse_step(const char *line, size_t len, struct rcurve_step *s)
{
	struct rj_obj o;
	if (rj_parse(line, len, &o) || !rj_num(&o, "pct", &s->pct) ||
	    !rj_num(&o, "iops", &s->iops) ||
	    !rj_num(&o, "lat_mean_us", &s->lat_mean_us))
		return false;
	if (!rj_num(&o, "target_iops", &s->target_iops))
		s->target_iops = 0;
	if (!rj_num(&o, "lat_p99_us", &s->lat_p99_us))
		s->lat_p99_us = 0;
	const double v[] = {s->pct, s->iops, s->lat_mean_us, s->target_iops,
			    s->lat_p99_us};
	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++)
		if (!isfinite(v[i]) || v[i] < 0)
			return false;
	return s->pct <= 1000;
}

static bool blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", line[i]))
			return false;
	return true;
}

static void set_label(struct rcurve *c, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(c->label, sizeof(c->label), "%s", base);
	char *dot = strrchr(c->label, '.');
	if (dot && dot != c->label)
		*dot = '\0';
}

static int add_step(struct rcurve *c, const struct rcurve_step *s, size_t *cap)
{
	if (c->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		void *p = realloc(c->steps, ncap * sizeof(*c->steps));
		if (!p)
			return -ENOMEM;
		c->steps = p;
		*cap = ncap;
	}
	c->steps[c->n++] = *s;
	return 0;
}

int rcurve_load(const char *path, struct rcurve *c, size_t *line)
{
	memset(c, 0, sizeof(*c));
	*line = 0;
	FILE *in = fopen(path, "r");
	if (!in)
		return -errno;
	int r = rcurve_read(in, c, line);
	fclose(in);
	if (!r)
		set_label(c, path);
	return r;
}

int rcurve_read(FILE *in, struct rcurve *c, size_t *line)
{
	memset(c, 0, sizeof(*c));
	*line = 0;
	char *buf = NULL;
	size_t bufsz = 0, cap = 0;
	ssize_t len;
	int r = 0;
	while (!r && (len = getline(&buf, &bufsz, in)) >= 0) {
		++*line;
		struct rcurve_step s;
		if (blank(buf, (size_t)len))
			continue;
		r = parse_step(buf, (size_t)len, &s) ? add_step(c, &s, &cap)
						     : -EINVAL;
	}
	free(buf);
	if (!r && !c->n) {
		*line = 0;
		r = -EINVAL;
	}
	if (r)
		rcurve_free(c);
	return r;
}

void rcurve_free(struct rcurve *c)
{
	free(c->steps);
	c->steps = NULL;
	c->n = 0;
}

/* 1, 2 or 5 times a power of ten, at least @v (> 0). */
static double round_up(double v)
{
	double p = pow(10, floor(log10(v)));
	double m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

struct caxes {
	double x1, y1; /* IOPS 0..x1, latency 0..y1 ms */
};

static double cx(const struct caxes *a, double iops)
{
	return CLEFT + iops / a->x1 * CPW;
}

static double cy(const struct caxes *a, double ms)
{
	return CTOP + CPH - ms / a->y1 * CPH;
}

static void bounds(const struct rcurve *c, size_t n, struct caxes *a)
{
	double x = 0, y = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < c[i].n; k++) {
			x = fmax(x, c[i].steps[k].iops);
			y = fmax(y, c[i].steps[k].lat_mean_us / 1e3);
		}
	/* A step of TICKS round numbers that holds the largest value. */
	a->x1 = TICKS * round_up(x > 0 ? x / TICKS : 1);
	a->y1 = TICKS * round_up(y > 0 ? y / TICKS : 1);
}

static void grid(FILE *out, const struct caxes *a)
{
	for (int i = 0; i <= TICKS; i++) {
		double xv = a->x1 * i / TICKS, yv = a->y1 * i / TICKS;
		double x = cx(a, xv), y = cy(a, yv);
		fprintf(out,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">%g</text>\n",
			x, CTOP, x, CTOP + CPH, x, CTOP + CPH + 14, xv);
		fprintf(out,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"end\">%g</text>\n",
			CLEFT, y, CLEFT + CPW, y, CLEFT - 6, y + 4, yv);
	}
	fprintf(out,
		"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\">IOPS</text>"
		"<text class=\"tick\" x=\"14\" y=\"%.1f\" "
		"transform=\"rotate(-90 14 %.1f)\" text-anchor=\"middle\">"
		"mean latency (ms)</text>\n",
		CLEFT + CPW / 2, CH - 8, CTOP + CPH / 2, CTOP + CPH / 2);
}

/* One curve: its held steps joined in the order of their rate, each a
 * dot; the unlimited run (pct 0) a ring apart, the curve's maximum. */
static void curve(FILE *out, const struct rcurve *c, const struct caxes *a,
		  const char *colour)
{
	fprintf(out,
		"<polyline class=\"curve\" fill=\"none\" "
		"stroke-width=\"2\" stroke=\"%s\" points=\"",
		colour);
	for (size_t k = 0; k < c->n; k++)
		if (c->steps[k].pct > 0)
			fprintf(out, "%.1f,%.1f ", cx(a, c->steps[k].iops),
				cy(a, c->steps[k].lat_mean_us / 1e3));
	fprintf(out, "\"/>\n");
	for (size_t k = 0; k < c->n; k++) {
		const struct rcurve_step *s = &c->steps[k];
		bool max = s->pct == 0;
		fprintf(out,
			"<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" "
			"fill=\"%s\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			max ? "step max" : "step", cx(a, s->iops),
			cy(a, s->lat_mean_us / 1e3), max ? 6 : 4,
			max ? "none" : colour, colour);
	}
}

static void legend(FILE *out, const struct rcurve *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double x = CLEFT + 10 + 200.0 * (double)i;
		fprintf(out,
			"<rect x=\"%.1f\" y=\"12\" width=\"12\" height=\"12\" "
			"fill=\"%s\"/><text class=\"tick\" x=\"%.1f\" "
			"y=\"22\">",
			x, palette[i % NPALETTE], x + 16);
		report_html_text(out, c[i].label);
		fprintf(out, "</text>\n");
	}
}

static void chart(FILE *out, const struct rcurve *c, size_t n)
{
	struct caxes a;
	bounds(c, n, &a);
	fprintf(out,
		"<svg class=\"chart curve-chart\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n",
		CW, CH, CW, CH);
	grid(out, &a);
	for (size_t i = 0; i < n; i++)
		curve(out, &c[i], &a, palette[i % NPALETTE]);
	legend(out, c, n);
	fprintf(out, "</svg>\n");
}

static void table(FILE *out, const struct rcurve *c)
{
	fprintf(out, "<h3>");
	report_html_text(out, c->label);
	fprintf(out, "</h3>\n<table class=\"curve\"><tr><th>step</th>"
		     "<th>target IOPS</th><th>IOPS</th><th>mean latency "
		     "(ms)</th><th>p99 latency (ms)</th></tr>\n");
	for (size_t k = 0; k < c->n; k++) {
		const struct rcurve_step *s = &c->steps[k];
		if (s->pct == 0)
			fprintf(out, "<tr><td>max</td><td>unlimited</td>");
		else
			fprintf(out, "<tr><td>%g%%</td><td>%.0f</td>", s->pct,
				s->target_iops);
		fprintf(out, "<td>%.1f</td><td>%.3f</td><td>%.3f</td></tr>\n",
			s->iops, s->lat_mean_us / 1e3, s->lat_p99_us / 1e3);
	}
	fprintf(out, "</table>\n");
}

void report_curve_section(FILE *out, const struct rcurve *c, size_t n)
{
	if (!n)
		return;
	fprintf(out, "<h2>Latency against IOPS</h2>\n<p class=\"note\">Curve "
		     "runs (workloads/curve.sh): the job unlimited (a ring, "
		     "its maximum), then held at shares of that rate (dots, "
		     "joined in step order).</p>\n");
	chart(out, c, n);
	for (size_t i = 0; i < n; i++)
		table(out, &c[i]);
}
