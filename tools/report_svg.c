/* The charts of arraysim report: inline SVG, drawn here so that the page
 * needs no script and nothing from the network. */
#include <math.h>
#include <string.h>

#include "tools/report.h"

/* The geometry of every chart, in SVG user units (CSS pixels). */
#define W 1300.0
#define H 250.0
#define LEFT 70.0
#define RIGHT 20.0
#define TOP 56.0 /* room for marker labels */
#define BOTTOM 30.0
#define PW (W - LEFT - RIGHT)
#define PH (H - TOP - BOTTOM)
#define STALL_BAND 14.0

struct axes {
	double t1;     /* x: 0..t1 s */
	double y0, y1; /* y: linear, or log10 of the values */
	bool log_y;
};

static double x_of(const struct axes *a, double t)
{
	if (t < 0)
		t = 0;
	if (t > a->t1)
		t = a->t1;
	return LEFT + t / a->t1 * PW;
}

/* NAN when the value cannot be drawn (<= 0 on a log axis). */
static double y_of(const struct axes *a, double v)
{
	if (a->log_y) {
		if (v <= 0)
			return NAN;
		v = log10(v);
	}
	return TOP + PH - (v - a->y0) / (a->y1 - a->y0) * PH;
}

/* 1, 2 or 5 times a power of ten, at least @v: round tick steps. */
static double nice(double v)
{
	double p = pow(10, floor(log10(v)));
	double m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static double value(const struct rsample *s, const struct chart_series *cs)
{
	return s->v[cs->field] * (cs->scale ? cs->scale : 1);
}

static void set_y(const struct rrun *r, const struct chart_spec *c,
		  struct axes *a)
{
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < r->ns; i++)
		for (unsigned k = 0; k < c->nseries; k++) {
			double v = value(&r->s[i], &c->series[k]);
			if (v > hi)
				hi = v;
			if (v > 0 && v < lo)
				lo = v;
		}
	a->log_y = c->log_y;
	if (c->log_y) {
		a->y0 = isfinite(lo) ? floor(log10(lo)) : 0;
		a->y1 = hi > 0 ? ceil(log10(hi)) : 1;
		if (a->y1 <= a->y0)
			a->y1 = a->y0 + 1;
	} else {
		a->y0 = 0;
		a->y1 = hi > 0 ? nice(hi * 1.05) : 1;
		if (!isfinite(a->y1)) /* hi near DBL_MAX: no headroom */
			a->y1 = hi;
		if (c->y_max > 0 && hi <= c->y_max) /* a ratio: 0 to 1 */
			a->y1 = c->y_max;
	}
}

static void y_grid(FILE *out, const struct axes *a, const char *unit)
{
	int n = a->log_y ? (int)(a->y1 - a->y0) : 5;
	for (int i = 0; i <= n; i++) {
		double v = a->log_y ? a->y0 + i : a->y1 * i / n;
		double y = TOP + PH - (v - a->y0) / (a->y1 - a->y0) * PH;
		double shown = a->log_y ? pow(10, v) : v;
		fprintf(out,
			"<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"end\">%g</text>\n",
			LEFT, y, LEFT + PW, y, LEFT - 6, y + 4, shown);
	}
	fprintf(out,
		"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"start\">%s</text>\n",
		4.0, TOP - 8, unit);
}

static void x_grid(FILE *out, const struct axes *a)
{
	double step = nice(a->t1 / 10);
	for (double t = 0; t <= a->t1 + 1e-9; t += step)
		fprintf(out,
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\">%gs</text>\n",
			x_of(a, t), TOP + PH + 18, t);
}

/* A band over t0..t1, at least 2 units wide so that a short one shows;
 * its <title> (the tooltip) is left open for the caller to fill. */
static void band_open(FILE *out, const struct axes *a, const char *cls,
		      const char *colour, double t0, double t1, double y,
		      double h)
{
	double x0 = x_of(a, t0), w = x_of(a, t1) - x0;
	fprintf(out,
		"<rect class=\"%s\" data-t0=\"%.3f\" data-t1=\"%.3f\" "
		"x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"%s\" shape-rendering=\"crispEdges\"><title>",
		cls, t0, t1, x0, y, w > 2 ? w : 2, h, colour);
}

/* Shading first, so that lines and markers lie on it. */
static void shading(FILE *out, const struct rrun *r, const struct axes *a)
{
	for (size_t i = 0; i < r->nperiods; i++) {
		const struct rperiod *p = &r->periods[i];
		band_open(out, a, "degraded", REPORT_COLOUR_DEGRADED, p->start,
			  p->end, TOP, PH);
		fprintf(out, "fault %llu active: ", (unsigned long long)p->id);
		report_html_text(out, p->rule);
		fprintf(out, "</title></rect>\n");
	}
	for (size_t i = 0; i < r->nstalls; i++) {
		const struct rstall *s = &r->stalls[i];
		double len = s->end - s->start;
		band_open(out, a, "stall", REPORT_COLOUR_STALL, s->start,
			  s->end, TOP + PH - STALL_BAND, STALL_BAND);
		fprintf(out,
			"stall %.1f s</title></rect>\n"
			"<text class=\"stall-label\" x=\"%.1f\" y=\"%.1f\">"
			"stall %.1f s</text>\n",
			len, x_of(a, s->start) + 2, TOP + PH - 3, len);
	}
}

/* Rebuilds as a band along the top of the plot, so that the degraded
 * shading under it still shows. */
static void rebuild_bands(FILE *out, const struct rrun *r, const struct axes *a)
{
	for (size_t i = 0; i < r->nrebuilds; i++) {
		const struct rspan *s = &r->rebuilds[i];
		double len = s->end - s->start;
		band_open(out, a, "rebuild", REPORT_COLOUR_REBUILD, s->start,
			  s->end, TOP, STALL_BAND / 2);
		fprintf(out, "rebuild %.1f s</title></rect>\n", len);
	}
}

static void polyline(FILE *out, const struct rrun *r, const struct axes *a,
		     const struct chart_series *cs)
{
	bool open = false;
	for (size_t i = 0; i < r->ns; i++) {
		double y = y_of(a, value(&r->s[i], cs));
		if (isnan(y)) { /* a gap on a log axis */
			if (open)
				fprintf(out, "\"/>\n");
			open = false;
			continue;
		}
		if (!open)
			fprintf(out,
				"<polyline class=\"series\" fill=\"none\" "
				"stroke=\"%s\" stroke-width=\"1.5\"%s "
				"points=\"",
				cs->colour,
				cs->dashed ? " stroke-dasharray=\"5,3\"" : "");
		open = true;
		fprintf(out, "%.1f,%.1f ", x_of(a, r->s[i].t), y);
	}
	if (open)
		fprintf(out, "\"/>\n");
}

/* The marker of an event, or NULL if it has none. */
static const char *marker_kind(const struct revent *e, const char **colour)
{
	if (!strcmp(e->event, "inject")) {
		bool power =
		    e->commits_lost >= 0 || !strncmp(e->rule, "power-loss", 10);
		*colour = power ? REPORT_COLOUR_POWER : REPORT_COLOUR_INJECT;
		return power ? "power" : "inject";
	}
	if (!strcmp(e->event, "clear")) {
		*colour = REPORT_COLOUR_CLEAR;
		return "clear";
	}
	if (!strcmp(e->event, "block_lost") || !strcmp(e->event, "thin_full") ||
	    !strcmp(e->event, "torn_write")) {
		*colour = REPORT_COLOUR_EFFECT;
		return "effect";
	}
	return NULL;
}

static void marker_label(FILE *out, const char *kind, const struct revent *e)
{
	if (!strcmp(kind, "clear"))
		fprintf(out, "clear %s%llu", e->id ? "#" : "all",
			(unsigned long long)e->id);
	else if (!strcmp(kind, "effect"))
		report_html_text(out, e->event);
	else {
		/* Long rules would run into the next label: cut. */
		char shortened[48];
		size_t n = strnlen(e->rule, sizeof(shortened) - 4);
		memcpy(shortened, e->rule, n);
		strcpy(shortened + n, e->rule[n] ? "..." : "");
		if (e->id)
			fprintf(out, "#%llu ", (unsigned long long)e->id);
		report_html_text(out, shortened);
	}
}

static void markers(FILE *out, const struct rrun *r, const struct axes *a)
{
	double last_effect = -1;
	unsigned n = 0;
	for (size_t i = 0; i < r->ne; i++) {
		const struct revent *e = &r->e[i];
		const char *colour, *kind = marker_kind(e, &colour);
		if (!kind)
			continue;
		/* Bit rot reports a block_lost per file and offset at once:
		 * one marker for the lot. */
		if (!strcmp(kind, "effect")) {
			if (e->t - last_effect < 0.01)
				continue;
			last_effect = e->t;
		}
		double x = round(x_of(a, e->t));
		fprintf(out,
			"<g class=\"marker %s\" data-t=\"%.3f\">"
			"<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"3\" "
			"shape-rendering=\"crispEdges\"/>"
			"<text x=\"%.0f\" y=\"%.1f\" fill=\"%s\">",
			kind, e->t, x, TOP - 16 + 12.0 * (n % 2), x, TOP + PH,
			colour, x + 3, TOP - 20 + 12.0 * (n % 2), colour);
		marker_label(out, kind, e);
		fprintf(out, "</text></g>\n");
		n++;
	}
}

static void legend(FILE *out, const struct chart_spec *c)
{
	double x = LEFT + 200;
	for (unsigned k = 0; k < c->nseries; k++) {
		fprintf(out,
			"<line x1=\"%.0f\" y1=\"12\" x2=\"%.0f\" y2=\"12\" "
			"stroke=\"%s\" stroke-width=\"2\"%s/>"
			"<text class=\"tick\" x=\"%.0f\" y=\"16\">%s</text>\n",
			x, x + 20, c->series[k].colour,
			c->series[k].dashed ? " stroke-dasharray=\"5,3\"" : "",
			x + 24, c->series[k].label);
		x += 30 + 7.0 * (double)strlen(c->series[k].label);
	}
}

void report_svg_chart(FILE *out, const struct rrun *r,
		      const struct chart_spec *c)
{
	struct axes a = {.t1 = r->length > 1 ? r->length : 1};
	set_y(r, c, &a);
	fprintf(out,
		"<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"data-t1=\"%.3f\" data-left=\"%.0f\" data-width=\"%.0f\">\n"
		"<text class=\"title\" x=\"%.0f\" y=\"16\">%s</text>\n"
		"<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
		"fill=\"#ffffff\" stroke=\"#cccccc\"/>\n",
		W, H, W, H, a.t1, LEFT, PW, LEFT, c->title, LEFT, TOP, PW, PH);
	shading(out, r, &a);
	rebuild_bands(out, r, &a);
	y_grid(out, &a, c->unit);
	x_grid(out, &a);
	for (unsigned k = 0; k < c->nseries; k++)
		polyline(out, r, &a, &c->series[k]);
	markers(out, r, &a);
	legend(out, c);
	fprintf(out, "</svg>\n");
}

bool report_chart_has_data(const struct rrun *r, const struct chart_spec *c)
{
	for (size_t i = 0; i < r->ns; i++)
		for (unsigned k = 0; k < c->nseries; k++)
			if (!isnan(value(&r->s[i], &c->series[k])))
				return true;
	return false;
}
