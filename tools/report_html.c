/* The page of arraysim report: a summary table and the charts, in one
 * HTML file with its style inline and no script, so that it opens from a
 * file anywhere, offline, with nothing to fetch. */
#include <math.h>
#include <string.h>
#include <time.h>

#include "tools/report.h"
#include "replication/repl.h"
#include "tools/report_curve.h"
#include "tiers/profile_calc.h"

static const char style[] =
    "body{font-family:sans-serif;margin:16px;color:#222}"
    "table{border-collapse:collapse;margin:8px 0 16px}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;"
    "font-size:13px}th{background:#f0f0f0}"
    "svg.chart{display:block;margin:8px 0}"
    ".title{font-size:14px;font-weight:bold}"
    ".tick,.marker text,.stall-label{font-size:11px}"
    ".grid{stroke:#e8e8e8}.note{color:#555;font-size:13px}"
    ".swatch{display:inline-block;width:12px;height:12px;"
    "vertical-align:middle;margin:0 4px}";

/* The charts, one row a chart: adding a tier's series is a row here. */
static const struct chart_series s_iops[] = {
    {RS_READ_IOPS, "read", "#1f77b4", 0, false},
    {RS_WRITE_IOPS, "write", "#2ca02c", 0, false},
};
static const struct chart_series s_mbps[] = {
    {RS_READ_MBPS, "read", "#1f77b4", 0, false},
    {RS_WRITE_MBPS, "write", "#2ca02c", 0, false},
};
static const struct chart_series s_lat[] = {
    {RS_READ_P50, "read p50", "#1f77b4", 1e-3, false},
    {RS_READ_P99, "read p99", "#1f77b4", 1e-3, true},
    {RS_WRITE_P50, "write p50", "#2ca02c", 1e-3, false},
    {RS_WRITE_P99, "write p99", "#2ca02c", 1e-3, true},
};
static const struct chart_series s_dedupe[] = {
    {RS_DEDUPE_RATIO, "dedupe ratio", "#9467bd", 0, false},
};
static const struct chart_series s_faults[] = {
    {RS_FAULTS_ACTIVE, "faults active", "#d62728", 0, false},
    {RS_ERRORS, "errors/interval", "#ff7f0e", 0, false},
    {RS_CHECKSUM_ERRORS, "checksum errors/interval", "#17becf", 0, true},
};
/* Per tier: the drive operations of each (foreground, destage,
 * rebuild), as the array model timed them. */
#define C_FLASH "#1f77b4"
#define C_CACHE "#ff7f0e"
#define C_BACKING "#2ca02c"
static const struct chart_series s_tier_iops[] = {
    {RS_FLASH_IOPS, "flash", C_FLASH, 0, false},
    {RS_CACHE_IOPS, "cache", C_CACHE, 0, false},
    {RS_BACKING_IOPS, "backing", C_BACKING, 0, false},
};
static const struct chart_series s_tier_mbps[] = {
    {RS_FLASH_MBPS, "flash", C_FLASH, 0, false},
    {RS_CACHE_MBPS, "cache", C_CACHE, 0, false},
    {RS_BACKING_MBPS, "backing", C_BACKING, 0, false},
};
static const struct chart_series s_tier_lat[] = {
    {RS_FLASH_P50, "flash p50", C_FLASH, 1e-3, false},
    {RS_FLASH_P99, "flash p99", C_FLASH, 1e-3, true},
    {RS_CACHE_P50, "cache p50", C_CACHE, 1e-3, false},
    {RS_CACHE_P99, "cache p99", C_CACHE, 1e-3, true},
    {RS_BACKING_P50, "backing p50", C_BACKING, 1e-3, false},
    {RS_BACKING_P99, "backing p99", C_BACKING, 1e-3, true},
};
static const struct chart_series s_ratios[] = {
    {RS_CACHE_HIT_RATIO, "cache hit ratio", "#17becf", 0, false},
    {RS_REBUILD_RATIO, "rebuild progress", "#9467bd", 0, true},
};
static const struct chart_series s_ctl_cpu[] = {
    {RS_CTL_BUSY_PCT, "controllers' CPU", "#8c564b", 0, false},
    {RS_CTL_BUSY_MAX_PCT, "busiest controller", "#8c564b", 0, true},
};
static const struct chart_series s_repl_lag[] = {
    {RS_REPL_LAG_S, "lag", "#006400", 0, false},
};
static const struct chart_series s_repl_bytes[] = {
    {RS_REPL_LAG_BYTES, "lag (written since)", "#006400", 1e-6, false},
    {RS_REPL_WIRE_BPS, "shipped per second", "#1f77b4", 1e-6, true},
};
#define N(a) (unsigned)(sizeof(a) / sizeof(*(a)))
/* Shown when the run replicated (its samples have repl_*). */
static const struct chart_spec repl_charts[] = {
    {"Replication lag", "s", false, s_repl_lag, N(s_repl_lag), 0},
    {"Replication bytes", "MB", false, s_repl_bytes, N(s_repl_bytes), 0},
};
static const struct chart_spec tier_charts[] = {
    {"Tier IOPS", "ops/s", false, s_tier_iops, N(s_tier_iops), 0},
    {"Tier MB/s", "MB/s", false, s_tier_mbps, N(s_tier_mbps), 0},
    {"Tier latency (log)", "ms", true, s_tier_lat, N(s_tier_lat), 0},
    {"Hit ratio, rebuild", "ratio", false, s_ratios, N(s_ratios), 1},
};
static const struct chart_spec charts[] = {
    {"IOPS", "ops/s", false, s_iops, N(s_iops), 0},
    {"Throughput", "MB/s", false, s_mbps, N(s_mbps), 0},
    {"Latency (log scale)", "ms", true, s_lat, N(s_lat), 0},
    {"Dedupe ratio", "ratio", false, s_dedupe, N(s_dedupe), 0},
    {"Faults and errors", "count", false, s_faults, N(s_faults), 0},
};

static void fmt_wall(double wall, char *buf, size_t len)
{
	time_t s = (time_t)wall;
	struct tm tm;
	if (wall <= 0 || !gmtime_r(&s, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "unknown");
}

/* What the run emulated, from its mount event. */
static void emulated_row(FILE *out, const struct rrun *r)
{
	const struct revent *m = rrun_mount(r);
	fprintf(out, "<tr><th>emulated</th><td class=\"emulated\">");
	if (!m || !m->profile[0]) {
		fprintf(out, "not said (the mount event predates it)");
		if (m && m->has_seed)
			fprintf(out, "; seed %llu",
				(unsigned long long)m->seed);
		fprintf(out, "</td></tr>\n");
		return;
	}
	fprintf(out, "profile ");
	report_html_text(out, m->profile);
	if (!isnan(m->scale))
		fprintf(out, ", scale %g", m->scale);
	if (!isnan(m->time_scale))
		fprintf(out, ", time scale %g", m->time_scale);
	if (m->has_seed)
		fprintf(out, ", seed %llu", (unsigned long long)m->seed);
	if (m->version[0]) {
		fprintf(out, " (arraysim ");
		report_html_text(out, m->version);
		fprintf(out, ")");
	}
	fprintf(out, "</td></tr>\n");
}

/* Whether the figures are the model's or the host's (tiers/completer.h):
 * said in words, so a 96% late run never reads like a 0.7% one. */
static void host_row(FILE *out, const struct rrun *r)
{
	struct rhost h;
	rrun_host(r, &h);
	fprintf(out, "<tr><th>host-bound</th><td class=\"host-bound\">");
	if (!h.known)
		fprintf(out, "not measured (the null profile, or older "
			     "samples)");
	else if (h.late < 0.5)
		fprintf(out,
			"no: the host kept pace (0 of %.0f replies "
			"late)",
			h.replies);
	else
		fprintf(out,
			"%s%.1f%% of %.0f replies late (%.0f), worst %.3f ms; "
			"%u s past %.0f%% (shaded)%s",
			h.seconds_over ? "<b>HOST-BOUND</b>: " : "",
			h.replies > 0 ? 100.0 * h.late / h.replies : 0.0,
			h.replies, h.late, h.worst_ms, h.seconds_over,
			REPORT_LATE_WARN * 100,
			h.seconds_over ? ": there the host, not the model, "
					 "set the figures"
				       : "");
	fprintf(out, "</td></tr>\n");
}

static void run_rows(FILE *out, const struct report_page *p)
{
	const struct rrun *r = p->run;
	char when[64];
	fmt_wall(r->ne	 ? r->e[0].wall
		 : r->ns ? r->s[0].wall
			 : 0,
		 when, sizeof(when));
	double checksum = 0, errors = 0;
	for (size_t i = 0; i < r->ns; i++) {
		checksum += r->s[i].v[RS_CHECKSUM_ERRORS];
		errors += r->s[i].v[RS_ERRORS];
	}
	fprintf(out, "<h2>Summary</h2><table class=\"summary\">\n");
	fprintf(out, "<tr><th>store</th><td>");
	report_html_text(out, p->source);
	fprintf(out,
		"</td></tr>\n<tr><th>run</th><td>%u of %u (mount at %s)"
		"</td></tr>\n<tr><th>run length</th><td>%.1f s</td></tr>\n"
		"<tr><th>samples</th><td>%zu</td></tr>\n"
		"<tr><th>errors returned</th><td>%.0f</td></tr>\n"
		"<tr><th>checksum errors</th><td>%.0f</td></tr>\n"
		"<tr><th>unreadable lines skipped</th><td>%zu</td></tr>\n",
		r->index, r->nruns, when, r->length, r->ns, errors, checksum,
		p->file->bad_lines);
	emulated_row(out, r);
	host_row(out, r);
	fprintf(out, "</table>\n");
}

static void fault_rows(FILE *out, const struct rrun *r)
{
	fprintf(out, "<h2>Faults injected</h2>\n<table class=\"faults\">"
		     "<tr><th>id</th><th>rule</th><th>at</th>"
		     "<th>cleared at</th><th>active</th><th>hits</th></tr>\n");
	for (size_t i = 0; i < r->nperiods; i++) {
		const struct rperiod *q = &r->periods[i];
		fprintf(out, "<tr><td>%llu</td><td>",
			(unsigned long long)q->id);
		report_html_text(out, q->rule);
		fprintf(out, "</td><td>%.3f s</td><td>", q->start);
		if (q->used_up)
			fprintf(out, "%.3f s (used up: its last hit)", q->end);
		else if (q->cleared)
			fprintf(out, "%.3f s", q->end);
		else
			fprintf(out, "not cleared (%.3f s: run end)", q->end);
		fprintf(out, "</td><td>%.3f s</td><td>%llu</td></tr>\n",
			q->end - q->start, (unsigned long long)q->hits);
	}
	/* Faults that act at once (id 0) have no period: listed too. */
	for (size_t i = 0; i < r->ne; i++) {
		const struct revent *e = &r->e[i];
		if (strcmp(e->event, "inject") || e->id)
			continue;
		fprintf(out, "<tr><td>-</td><td>");
		report_html_text(out, e->rule);
		fprintf(out,
			"</td><td>%.3f s</td><td>acts at once</td><td>-</td>"
			"<td>-</td></tr>\n",
			e->t);
	}
	fprintf(out, "</table>\n<p class=\"note\">hits: the times the "
		     "fault acted, from the events naming it: operations it "
		     "failed, delayed or tore (its first fault_hit, then the "
		     "counts of its fault_hits, logged at most once a "
		     "second) and the array model's effects of it "
		     "(stall, shutdown, rebuild). A count=N rule ends at its "
		     "last hit (its rule_done event).</p>\n");
}

/* What a stall is, as its table row says it. */
static const char *stall_cause(const struct rstall *s)
{
	if (s->from_events)
		return "the array (stall event)";
	if (s->no_fault)
		return "HANG: no fault active";
	return "slow I/O under a fault";
}

static void stall_rows(FILE *out, const struct rrun *r)
{
	fprintf(out, "<h2>Stalls</h2>\n");
	fprintf(out,
		"<p class=\"note\">A stall: a span the array model said I/O "
		"waits (its stall events, to the event's own time), or "
		"consecutive samples that offered load (I/O completed, or the "
		"I/O that next completed waited through them) with IOPS under "
		"%.0f%% of the median of the samples with no fault active",
		REPORT_STALL_FRACTION * 100);
	if (r->baseline_iops > 0)
		fprintf(out, " (%.1f IOPS).", r->baseline_iops);
	else
		fprintf(out, ": none did I/O, so only the array's own stalls "
			     "are known.");
	fprintf(out, " Idle samples, and a workload that stopped (fio "
		     "exiting on EIO), are not stalls; one with no fault "
		     "active is a hang to explain.</p>\n");
	fprintf(out,
		"<table class=\"stalls\"><tr><th>from</th><th>to</th>"
		"<th>length</th><th>lowest IOPS</th><th>cause</th></tr>\n");
	for (size_t i = 0; i < r->nstalls; i++) {
		const struct rstall *s = &r->stalls[i];
		fprintf(out,
			"<tr%s><td>%.1f s</td><td>%.1f s</td><td>%.1f s</td>",
			s->no_fault ? " class=\"hang\"" : "", s->start, s->end,
			s->end - s->start);
		if (isnan(s->min_iops))
			fprintf(out, "<td>-</td>");
		else
			fprintf(out, "<td>%.1f</td>", s->min_iops);
		fprintf(out, "<td>%s</td></tr>\n", stall_cause(s));
	}
	if (!r->nstalls)
		fprintf(out, "<tr><td colspan=\"5\">none</td></tr>\n");
	fprintf(out, "</table>\n");
}

static void loss_rows(FILE *out, const struct rrun *r)
{
	unsigned n = 0;
	fprintf(out, "<h2>Data lost</h2>\n<table class=\"lost\">"
		     "<tr><th>at</th><th>what</th></tr>\n");
	for (size_t i = 0; i < r->ne; i++) {
		const struct revent *e = &r->e[i];
		if (!strcmp(e->event, "block_lost")) {
			fprintf(out, "<tr><td>%.3f s</td><td>", e->t);
			report_html_text(out, e->path);
			fprintf(out, " offset %llu length %llu</td></tr>\n",
				(unsigned long long)e->offset,
				(unsigned long long)e->length);
		} else if (!strcmp(e->event, "inject") &&
			   e->commits_lost >= 0) {
			fprintf(out,
				"<tr><td>%.3f s</td><td>power lost: %lld "
				"commits since the last sync</td></tr>\n",
				e->t, (long long)e->commits_lost);
		} else if (!strcmp(e->event, "torn_write")) {
			fprintf(out,
				"<tr><td>%.3f s</td><td>torn write: offset "
				"%llu length %llu, a part persisted"
				"</td></tr>\n",
				e->t, (unsigned long long)e->offset,
				(unsigned long long)e->length);
		} else {
			continue;
		}
		n++;
	}
	if (!n)
		fprintf(out, "<tr><td colspan=\"2\">none</td></tr>\n");
	fprintf(out, "</table>\n");
}

/* Replication's charts, when the run replicated: the lag against time,
 * with the run's markers (a replication-link fault shaded as any fault,
 * the replication events marked). */
static void repl_section(FILE *out, const struct rrun *r)
{
	if (!report_chart_has_data(r, &repl_charts[0]))
		return;
	fprintf(out,
		"<h2 class=\"replication\">Replication</h2>\n<p "
		"class=\"note\">How far the replica is behind (seconds since "
		"the cut it holds, bytes written since), what ships per "
		"second; markers: replication paused, resumed, lag past "
		"%d x rpo, caught up.</p>\n",
		REPL_LAG_RPOS);
	for (size_t i = 0; i < N(repl_charts); i++)
		report_svg_chart(out, r, &repl_charts[i]);
}

/* The controllers' CPU chart, titled by the counter the run's samples
 * name, and a note of what that counter counts: the figure is a
 * different one for each on a controller with hyper-threading. 1 if it
 * was drawn (the run has the figures), else 0. */
static unsigned ctl_cpu_chart(FILE *out, const struct rrun *r)
{
	const char *counter = rrun_cpu_counter(r);
	const char *what = profile_cpu_counter_what(counter);
	char title[64];
	struct chart_spec c = {title, "%", false, s_ctl_cpu, N(s_ctl_cpu), 100};

	if (!report_chart_has_data(r, &c))
		return 0;
	/* Samples without a counter are older than the counters, from when
	 * no profile had hyper-threading: busy cores / cores. */
	snprintf(title, sizeof(title), "Controller CPU (%s)",
		 counter ? counter : "busy cores / cores");
	report_svg_chart(out, r, &c);
	fprintf(out, "<p class=\"note ctl-cpu\">Controller CPU: ");
	if (!counter) {
		fprintf(out, "the samples do not name the counter (written "
			     "before arraysim had ctl_cpu_counter, when a "
			     "controller had no hyper-threading): busy cores / "
			     "cores");
	} else {
		report_html_text(out, counter);
		fprintf(out, ", %s",
			what ? what
			     : "a counter this arraysim does not know (the "
			       "samples' ctl_cpu_counter): drawn as given");
	}
	fprintf(out, ". Dashed: the busiest controller's (on a cluster, "
		     "node's).</p>\n");
	return 1;
}

/* The charts of the array model, those with data; one note when the run
 * has none (the null profile). */
static void tier_section(FILE *out, const struct rrun *r)
{
	unsigned n = 0;
	fprintf(out, "<h2>Per tier</h2>\n<p class=\"note\">Drive operations of "
		     "each tier as the array model timed them (foreground, "
		     "destage and rebuild), their times at the drives "
		     "(queueing included), the flash cache's read hit ratio "
		     "and the share of running rebuilds done; the "
		     "controllers' CPU by the counter the profile names "
		     "(said under its chart).</p>\n");
	for (size_t i = 0; i < N(tier_charts); i++)
		if (report_chart_has_data(r, &tier_charts[i])) {
			report_svg_chart(out, r, &tier_charts[i]);
			n++;
		}
	n += ctl_cpu_chart(out, r);
	if (!n)
		fprintf(out,
			"<p class=\"note tiers\">Not available: the samples "
			"of this run have no per-tier fields (they come "
			"with a timed array profile).</p>\n");
}

static void rebuild_rows(FILE *out, const struct rrun *r)
{
	fprintf(out, "<h2>Rebuilds</h2>\n<table class=\"rebuilds\"><tr>"
		     "<th>from</th><th>to</th><th>length</th></tr>\n");
	for (size_t i = 0; i < r->nrebuilds; i++)
		fprintf(out,
			"<tr><td>%.1f s</td><td>%.1f s</td><td>%.1f s</td>"
			"</tr>\n",
			r->rebuilds[i].start, r->rebuilds[i].end,
			r->rebuilds[i].end - r->rebuilds[i].start);
	if (!r->nrebuilds)
		fprintf(out, "<tr><td colspan=\"3\">none</td></tr>\n");
	fprintf(out, "</table>\n");
}

static void key(FILE *out)
{
	static const struct {
		const char *colour, *what;
	} k[] = {
	    {REPORT_COLOUR_INJECT, "fault injected"},
	    {REPORT_COLOUR_CLEAR, "fault cleared"},
	    {REPORT_COLOUR_POWER, "power lost"},
	    {REPORT_COLOUR_EFFECT, "data lost, torn write, thin full"},
	    {REPORT_COLOUR_DEGRADED, "a fault active (degraded)"},
	    {REPORT_COLOUR_STALL, "stall"},
	    {REPORT_COLOUR_REBUILD, "rebuild (band on top)"},
	    {REPORT_COLOUR_HOST_BOUND, "host-bound: over 5% of replies late"},
	    {REPORT_COLOUR_REPLICATION,
	     "replication paused, resumed, lagging, caught up"},
	};
	fprintf(out, "<p class=\"note\">");
	for (size_t i = 0; i < sizeof(k) / sizeof(*k); i++)
		fprintf(out,
			"<span class=\"swatch\" style=\"background:%s\">"
			"</span>%s ",
			k[i].colour, k[i].what);
	fprintf(out, "</p>\n");
}

void report_html_write(FILE *out, const struct report_page *p)
{
	fprintf(out,
		"<!DOCTYPE html>\n<html lang=\"en\"><head>"
		"<meta charset=\"utf-8\"><title>arraysim report</title>"
		"<style>%s</style></head><body>\n"
		"<h1>arraysim rehearsal report</h1>\n",
		style);
	run_rows(out, p);
	fault_rows(out, p->run);
	stall_rows(out, p->run);
	rebuild_rows(out, p->run);
	loss_rows(out, p->run);
	/* Before the run's own charts: a curve run is what the reader came
	 * for when one is given. */
	report_curve_section(out, p->curves, p->ncurves);
	fprintf(out, "<h2>Over time</h2>\n");
	key(out);
	if (!p->run->ns)
		fprintf(out, "<p class=\"note\">No samples in this run.</p>\n");
	for (size_t i = 0; i < sizeof(charts) / sizeof(*charts); i++)
		report_svg_chart(out, p->run, &charts[i]);
	repl_section(out, p->run);
	tier_section(out, p->run);
	fprintf(out, "</body></html>\n");
}
