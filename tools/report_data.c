/* Loading and deriving the data of a rehearsal run; see
 * tools/report_data.h. */
#include "tools/report_data.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/report_json.h"

/* The samples' member of each field (tiers/array_samples.c and the
 * others that write STORE/samples.jsonl). */
const char *const rsample_field_names[RS_NFIELDS] = {
    [RS_READ_IOPS] = "read_iops",
    [RS_WRITE_IOPS] = "write_iops",
    [RS_READ_MBPS] = "read_mbps",
    [RS_WRITE_MBPS] = "write_mbps",
    [RS_READ_P50] = "read_p50_us",
    [RS_READ_P99] = "read_p99_us",
    [RS_WRITE_P50] = "write_p50_us",
    [RS_WRITE_P99] = "write_p99_us",
    [RS_OTHER_OPS] = "other_ops",
    [RS_ERRORS] = "errors",
    [RS_CHECKSUM_ERRORS] = "checksum_errors",
    [RS_DEDUPE_RATIO] = "dedupe_ratio",
    [RS_UNIQUE_BLOCKS] = "unique_blocks",
    [RS_LOGICAL_BYTES] = "logical_bytes_held",
    [RS_FAULTS_ACTIVE] = "faults_active",
    [RS_FLASH_IOPS] = "tier_flash_iops",
    [RS_FLASH_MBPS] = "tier_flash_mbps",
    [RS_FLASH_P50] = "tier_flash_p50_us",
    [RS_FLASH_P99] = "tier_flash_p99_us",
    [RS_CACHE_IOPS] = "tier_cache_iops",
    [RS_CACHE_MBPS] = "tier_cache_mbps",
    [RS_CACHE_P50] = "tier_cache_p50_us",
    [RS_CACHE_P99] = "tier_cache_p99_us",
    [RS_BACKING_IOPS] = "tier_backing_iops",
    [RS_BACKING_MBPS] = "tier_backing_mbps",
    [RS_BACKING_P50] = "tier_backing_p50_us",
    [RS_BACKING_P99] = "tier_backing_p99_us",
    [RS_CACHE_HIT_RATIO] = "cache_hit_ratio",
    [RS_REBUILD_RATIO] = "rebuild_ratio",
    [RS_DRIVES_REBUILDING] = "drives_rebuilding",
    [RS_CTL_BUSY_PCT] = "ctl_busy_pct",
    [RS_CTL_BUSY_MAX_PCT] = "ctl_busy_max_pct",
    [RS_HOST_LATE_SHARE] = "host_late_share",
    [RS_HOST_WORST_LATE_MS] = "host_worst_late_ms",
    [RS_HOST_REPLIES] = "host_replies",
    [RS_HOST_LATE] = "host_late",
    [RS_REPL_LAG_S] = "repl_lag_s",
    [RS_REPL_LAG_BYTES] = "repl_lag_bytes",
    [RS_REPL_BACKLOG] = "repl_backlog_txns",
    [RS_REPL_WIRE_BPS] = "repl_wire_bytes_per_s",
};

/* A line longer than this is not one of ours: refused, counted. */
#define LINE_MAX_BYTES (1u << 20)

double report_parse_ts(const char *ts)
{
	struct tm tm = {0};
	char *rest = strptime(ts, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!rest)
		return 0;
	double frac = 0;
	/* Digits only: strtod would take an exponent or a sign too. */
	if (*rest == '.') {
		const char *dot = rest;
		for (double scale = 0.1; *++rest >= '0' && *rest <= '9';
		     scale /= 10)
			frac += (*rest - '0') * scale;
		if (rest == dot + 1)
			return 0; /* a point and no digit */
	}
	if (strcmp(rest, "Z"))
		return 0;
	time_t s = timegm(&tm);
	return s < 0 ? 0 : (double)s + frac;
}

static double wall_of(const struct rj_obj *o)
{
	char ts[64];
	return rj_str(o, "ts", ts, sizeof(ts)) ? report_parse_ts(ts) : 0;
}

int rsample_parse(const char *line, size_t len, struct rsample *s,
		  bool *tier_fields)
{
	struct rj_obj o;
	if (rj_parse(line, len, &o) || !rj_num(&o, "t", &s->t))
		return -1;
	s->wall = wall_of(&o);
	if (!rj_num(&o, "interval_s", &s->interval_s) || s->interval_s < 0)
		s->interval_s = 0;
	/* A missing series reads as 0: older samples lack newer fields;
	 * the array model's as NAN, a gap, not a fall to 0. */
	for (int i = 0; i < RS_NFIELDS; i++)
		if (!rj_num(&o, rsample_field_names[i], &s->v[i]))
			s->v[i] = i >= RS_TIER_FIRST ? NAN : 0;
	if (!rj_num(&o, "dedupe_ratio", &s->v[RS_DEDUPE_RATIO]))
		s->v[RS_DEDUPE_RATIO] = 1;
	char power[16];
	s->power_lost =
	    rj_str(&o, "power", power, sizeof(power)) && !strcmp(power, "lost");
	if (!rj_str(&o, "ctl_cpu_counter", s->cpu_counter,
		    sizeof(s->cpu_counter)))
		s->cpu_counter[0] = '\0';
	if (tier_fields && rj_has_prefix(&o, "tier"))
		*tier_fields = true;
	return 0;
}

static uint64_t u64_of(const struct rj_obj *o, const char *key)
{
	double d;
	return rj_num(o, key, &d) && d >= 0 && d < 1.8e19 ? (uint64_t)d : 0;
}

int revent_parse(const char *line, size_t len, struct revent *e)
{
	struct rj_obj o;
	memset(e, 0, sizeof(*e));
	if (rj_parse(line, len, &o) || !rj_num(&o, "t", &e->t) ||
	    !rj_str(&o, "event", e->event, sizeof(e->event)))
		return -1;
	e->wall = wall_of(&o);
	e->id = u64_of(&o, "id");
	if (!rj_str(&o, "rule", e->rule, sizeof(e->rule)) &&
	    !rj_str(&o, "name", e->rule, sizeof(e->rule)))
		rj_str(&o, "why", e->rule, sizeof(e->rule));
	rj_str(&o, "path", e->path, sizeof(e->path));
	e->offset = u64_of(&o, "offset");
	e->length = u64_of(&o, "length");
	if (!strcmp(e->event, "fault_hits"))
		e->hits = u64_of(&o, "hits");
	double d;
	if (!rj_num(&o, "in_s", &e->in_s))
		e->in_s = NAN;
	if (!rj_num(&o, "lasts_s", &e->lasts_s))
		e->lasts_s = NAN;
	if (!rj_num(&o, "lag_s", &e->lag_s))
		e->lag_s = NAN;
	rj_str(&o, "profile", e->profile, sizeof(e->profile));
	rj_str(&o, "version", e->version, sizeof(e->version));
	if (!rj_num(&o, "scale", &e->scale))
		e->scale = NAN;
	if (!rj_num(&o, "time_scale", &e->time_scale))
		e->time_scale = NAN;
	e->has_seed = rj_num(&o, "seed", &d) && d >= 0;
	e->seed = u64_of(&o, "seed");
	e->commits_lost = rj_num(&o, "commits_lost", &d) && d >= 0
			      ? (int64_t)(d < 9e18 ? d : 9e18)
			      : -1;
	return 0;
}

/* Grow *@p (of *@cap elements of @size) to hold @n + 1. */
static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 256;
	void *q = realloc(*p, c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static int add_line(const char *line, size_t len, bool samples,
		    struct rfile *out, size_t *cap)
{
	if (samples) {
		struct rsample s;
		if (rsample_parse(line, len, &s, &out->tier_fields))
			return 1;
		if (grow((void **)&out->s, cap, out->ns, sizeof(s)))
			return -ENOMEM;
		out->s[out->ns++] = s;
	} else {
		struct revent e;
		if (revent_parse(line, len, &e))
			return 1;
		if (grow((void **)&out->e, cap, out->ne, sizeof(e)))
			return -ENOMEM;
		out->e[out->ne++] = e;
	}
	return 0;
}

int rfile_read(FILE *f, bool samples, struct rfile *out)
{
	char *line = NULL;
	size_t linecap = 0, cap = samples ? out->ns : out->ne;
	ssize_t n;
	int r = 0;
	while (!r && (n = getline(&line, &linecap, f)) >= 0) {
		if (n == 0 || (n == 1 && line[0] == '\n'))
			continue;
		r = (size_t)n > LINE_MAX_BYTES
			? 1
			: add_line(line, (size_t)n, samples, out, &cap);
		if (r == 1) {
			out->bad_lines++;
			r = 0;
		}
	}
	if (!r && ferror(f))
		r = -EIO;
	free(line);
	return r;
}

void rfile_free(struct rfile *f)
{
	free(f->s);
	free(f->e);
	memset(f, 0, sizeof(*f));
}

static bool is_mount(const struct revent *e)
{
	return !strcmp(e->event, "mount");
}

unsigned rfile_runs(const struct rfile *f)
{
	unsigned n = 0;
	for (size_t i = 0; i < f->ne; i++)
		n += is_mount(&f->e[i]);
	return n ? n : 1;
}

/* The events of run @index: from its mount event to the next one. With
 * no mount events, everything is the one run. */
static void event_bounds(const struct rfile *f, unsigned index, size_t *lo,
			 size_t *hi)
{
	unsigned seen = 0;
	*lo = 0;
	*hi = f->ne;
	for (size_t i = 0; i < f->ne; i++) {
		if (!is_mount(&f->e[i]))
			continue;
		seen++;
		if (seen == index)
			*lo = i;
		else if (seen == index + 1) {
			*hi = i;
			return;
		}
	}
}

/* Samples belong to the run whose mount came last before them on the
 * wall clock: the two files have their own t origins and a short mount
 * may leave a single sample, so a reset of t cannot split them. A sample
 * without ts goes with the one before it. */
static int select_samples(const struct rfile *f, double from, double to,
			  struct rrun *r)
{
	r->ns = 0;
	struct rsample *s = malloc((f->ns ? f->ns : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	bool in = from == 0;
	for (size_t i = 0; i < f->ns; i++) {
		double w = f->s[i].wall;
		if (w > 0)
			in = w >= from && (to == 0 || w < to);
		if (in)
			s[r->ns++] = f->s[i];
	}
	r->s = s;
	return 0;
}

static double run_length(const struct rrun *r)
{
	double len = 0;
	if (r->ns)
		len = r->s[r->ns - 1].t;
	for (size_t i = 0; i < r->ne; i++)
		if (r->e[i].t > len)
			len = r->e[i].t;
	return len;
}

int rrun_select(const struct rfile *f, unsigned index, struct rrun *r)
{
	memset(r, 0, sizeof(*r));
	unsigned n = rfile_runs(f);
	if (index == REPORT_RUN_LAST)
		index = n;
	if (index == 0 || index > n)
		return -ERANGE;
	r->index = index;
	r->nruns = n;
	size_t lo, hi;
	event_bounds(f, index, &lo, &hi);
	r->e = f->e ? f->e + lo : NULL; /* no events: no array to offset */
	r->ne = hi - lo;
	double from = r->ne && is_mount(&r->e[0]) ? r->e[0].wall : 0;
	double to = hi < f->ne ? f->e[hi].wall : 0;
	int rc = select_samples(f, from, to, r);
	if (rc)
		return rc;
	r->length = run_length(r);
	rc = rrun_periods(r);
	if (!rc)
		rc = rrun_stalls(r, REPORT_STALL_FRACTION);
	if (!rc)
		rc = rrun_rebuilds(r);
	if (rc)
		rrun_free(r);
	return rc;
}

void rrun_free(struct rrun *r)
{
	free((void *)r->s);
	free(r->periods);
	free(r->stalls);
	free(r->rebuilds);
	memset(r, 0, sizeof(*r));
}
