/* The charts of arraysim report: inline SVG, drawn here so that the page
 * needs no script and nothing from the network. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report.h"

/* The geometry of every chart, in SVG user units (CSS pixels). */
#define W 1300.0
#define H 250.0
#define LEFT 70.0
#define RIGHT 20.0
#define TOP 72.0 /* room for marker labels: LANES rows over the plot */
#define BOTTOM 30.0
#define PW (W - LEFT - RIGHT)
#define PH (H - TOP - BOTTOM)
#define STALL_BAND 14.0
/* Marker labels: rows of 11px text (.marker text), the lowest just over
 * the plot. CHAR_W is wider than an average 11px sans-serif glyph, so
 * that a label's estimated box holds its rendered one. */
#define LANES 3
#define LANE_H 14.0
#define CHAR_W 7.0
#define LABEL_GAP 6.0
/* Wider than an average glyph of the 14px bold title (.title). */
#define TITLE_CHAR_W 9.0

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

static double label_width(const char *text)
{
	return CHAR_W * (double)strlen(text);
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
	double label_end = -1e9; /* stall labels never overlap either */
	for (size_t i = 0; i < r->nstalls; i++) {
		const struct rstall *s = &r->stalls[i];
		double len = s->end - s->start;
		/* A hang with no fault to blame is what a reader must see. */
		const char *what =
		    s->no_fault ? "hang, no fault active:" : "stall";
		band_open(out, a, "stall", REPORT_COLOUR_STALL, s->start,
			  s->end, TOP + PH - STALL_BAND, STALL_BAND);
		fprintf(out, "%s %.1f s</title></rect>\n", what, len);
		char text[64];
		snprintf(text, sizeof(text), "%s %.1f s", what, len);
		double x = x_of(a, s->start) + 2;
		if (x < label_end + LABEL_GAP ||
		    x + label_width(text) > W) /* its tooltip says it */
			continue;
		label_end = x + label_width(text);
		fprintf(out,
			"<text class=\"stall-label\" x=\"%.1f\" y=\"%.1f\" "
			"data-w=\"%.1f\">%s</text>\n",
			x, TOP + PH - 3, label_width(text), text);
	}
}

/* Host-bound seconds (late share past REPORT_LATE_WARN), consecutive
 * ones merged, shaded see-through over the plot: what the chart shows
 * there is the host's pace, not the model's. */
static void host_bands(FILE *out, const struct rrun *r, const struct axes *a)
{
	for (size_t i = 0; i < r->ns; i++) {
		if (!rsample_host_bound(&r->s[i]))
			continue;
		const struct rsample *s = &r->s[i];
		double t0 = s->t - (s->interval_s > 0 ? s->interval_s : 1);
		double worst = 0, share = 0;
		size_t j = i;
		for (; j < r->ns && rsample_host_bound(&r->s[j]); j++) {
			if (r->s[j].v[RS_HOST_WORST_LATE_MS] > worst)
				worst = r->s[j].v[RS_HOST_WORST_LATE_MS];
			if (r->s[j].v[RS_HOST_LATE_SHARE] > share)
				share = r->s[j].v[RS_HOST_LATE_SHARE];
		}
		double x0 = x_of(a, t0 > 0 ? t0 : 0),
		       w = x_of(a, r->s[j - 1].t) - x0;
		fprintf(out,
			"<rect class=\"host-bound\" data-t0=\"%.3f\" "
			"data-t1=\"%.3f\" x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
			"fill-opacity=\"0.18\" shape-rendering=\"crispEdges\">"
			"<title>host-bound: up to %.1f%% of replies late, "
			"worst %.3f ms</title></rect>\n",
			t0 > 0 ? t0 : 0, r->s[j - 1].t, x0, TOP, w > 2 ? w : 2,
			PH, REPORT_COLOUR_HOST_BOUND, share * 100, worst);
		i = j - 1;
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
	if (!strcmp(e->event, "replication_paused") ||
	    !strcmp(e->event, "replication_resumed") ||
	    !strcmp(e->event, "replication_lag") ||
	    !strcmp(e->event, "replication_caught_up")) {
		*colour = REPORT_COLOUR_REPLICATION;
		return "replication";
	}
	return NULL;
}

/* The label of marker @kind of @e, unescaped, into @buf. */
static void marker_text(const char *kind, const struct revent *e, char *buf,
			size_t len)
{
	if (!strcmp(kind, "clear")) {
		if (e->id)
			snprintf(buf, len, "clear #%llu",
				 (unsigned long long)e->id);
		else
			snprintf(buf, len, "clear all");
	} else if (!strcmp(kind, "effect")) {
		snprintf(buf, len, "%s", e->event);
	} else if (!strcmp(kind, "replication")) {
		/* "repl paused: replication-link", "repl lag 2.4 s" */
		snprintf(buf, len, "repl %s%s%s",
			 strcmp(e->event + 12, "caught_up") ? e->event + 12
							    : "caught up",
			 e->rule[0] ? ": " : "", e->rule);
		if (!strcmp(e->event, "replication_lag") && !isnan(e->lag_s))
			snprintf(buf, len, "repl lag %.1f s", e->lag_s);
	} else if (e->id) {
		snprintf(buf, len, "#%llu %s", (unsigned long long)e->id,
			 e->rule);
	} else {
		snprintf(buf, len, "%s", e->rule);
	}
}

/* A marker as laid out: where its line is, the row its label is in (-1:
 * no room in any, the label is only its tooltip) and the label. */
struct mlabel {
	const struct revent *e;
	const char *kind, *colour;
	double x;
	int lane;
	char text[48]; /* long rules would crowd the rows: cut */
	char full[REV_TEXT + 32];
};

static int cmp_x(const void *a, const void *b)
{
	double x = ((const struct mlabel *)a)->x,
	       y = ((const struct mlabel *)b)->x;
	return (x > y) - (x < y);
}

/* Markers of one kind at one x (four paths lost at once) share one
 * label, "+N" more: rows could not hold them all. Members get lane -2. */
static void group(struct mlabel *m, size_t n)
{
	size_t head = 0;
	unsigned more = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && i > head && !strcmp(m[i].kind, m[head].kind) &&
		    m[i].x - m[head].x < 2) {
			m[i].lane = -2;
			more++;
			continue;
		}
		if (more) {
			size_t k = strnlen(m[head].text, 30);
			snprintf(m[head].text + k, sizeof(m[head].text) - k,
				 "%s +%u", m[head].text[k] ? "..." : "", more);
		}
		head = i;
		more = 0;
	}
}

/* Lay the labels out in rows, left to right, each in the lowest row
 * where it clears the one before it by LABEL_GAP: labels never overlap.
 * A label past the chart's right edge is cut to fit; one no row has room
 * for keeps its line and its tooltip. */
static void lay_out(struct mlabel *m, size_t n)
{
	double end[LANES];
	for (int k = 0; k < LANES; k++)
		end[k] = -1e9;
	qsort(m, n, sizeof(*m), cmp_x);
	group(m, n);
	for (size_t i = 0; i < n; i++) {
		if (m[i].lane == -2)
			continue;
		double x0 = m[i].x + 3;
		size_t room = (size_t)((W - x0) / CHAR_W);
		size_t len = strlen(m[i].text);
		if (len > room) { /* cut at the right edge, marked */
			len = room > 3 ? room - 3 : 0;
			strcpy(m[i].text + len, len ? "..." : "");
		}
		m[i].lane = -1;
		for (int k = 0; k < LANES && m[i].text[0]; k++)
			if (x0 >= end[k] + LABEL_GAP) {
				m[i].lane = k;
				end[k] = x0 + label_width(m[i].text);
				break;
			}
	}
}

/* The line spans the plot only, so that it never crosses the labels
 * of the rows above; its label starts just right of it. */
static void marker_draw(FILE *out, const struct mlabel *m)
{
	int lane = m->lane < 0 ? 0 : m->lane; /* -1: none, -2: a group's */
	double y = TOP - 8 - LANE_H * lane;   /* the label's baseline */
	fprintf(out, "<g class=\"marker %s\" data-t=\"%.3f\"><title>", m->kind,
		m->e->t);
	report_html_text(out, m->full);
	fprintf(out,
		"</title><line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" "
		"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\" "
		"shape-rendering=\"crispEdges\"/>",
		m->x, TOP, m->x, TOP + PH, m->colour);
	if (m->lane >= 0) {
		fprintf(out,
			"<text class=\"label\" x=\"%.0f\" y=\"%.1f\" "
			"fill=\"%s\" data-w=\"%.1f\">",
			m->x + 3, y, m->colour, label_width(m->text));
		report_html_text(out, m->text);
		fprintf(out, "</text>");
	}
	fprintf(out, "</g>\n");
}

static void markers(FILE *out, const struct rrun *r, const struct axes *a)
{
	struct mlabel *m = malloc((r->ne ? r->ne : 1) * sizeof(*m));
	double last_effect = -1;
	size_t n = 0;
	if (!m)
		return; /* the page goes without markers; its tables have all */
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
		struct mlabel *l = &m[n++];
		*l = (struct mlabel){.e = e,
				     .kind = kind,
				     .colour = colour,
				     .x = round(x_of(a, e->t)),
				     .lane = -1};
		marker_text(kind, e, l->full, sizeof(l->full));
		size_t k = strnlen(l->full, sizeof(l->text) - 4);
		memcpy(l->text, l->full, k);
		strcpy(l->text + k, l->full[k] ? "..." : "");
	}
	lay_out(m, n);
	for (size_t i = 0; i < n; i++)
		marker_draw(out, &m[i]);
	free(m);
}

static void legend(FILE *out, const struct chart_spec *c)
{
	/* Right of the title, whose length varies (the CPU counter's). */
	double x =
	    LEFT + fmax(200, TITLE_CHAR_W * (double)strlen(c->title) + 20);
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
		"<text class=\"title\" x=\"%.0f\" y=\"16\">",
		W, H, W, H, a.t1, LEFT, PW, LEFT);
	/* A title can carry what the samples say (a CPU counter's name). */
	report_html_text(out, c->title);
	fprintf(out,
		"</text>\n"
		"<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
		"fill=\"#ffffff\" stroke=\"#cccccc\"/>\n",
		LEFT, TOP, PW, PH);
	shading(out, r, &a);
	host_bands(out, r, &a);
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
