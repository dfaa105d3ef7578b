/* The host ceiling against a profile's peak (tools/profile_fit.h). */
#include "tools/profile_fit.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/block.h"
#include "tiers/profile_calc.h"

#define CEILING_MAX_BYTES (64 * 1024)

const struct fit_workload_def fit_workloads[FIT_WORKLOADS] = {
    [FIT_RAND4K_READ] = {"rand4k_read", "4k random read QD32", 4096,
			 ENGINE_OP_READ},
    [FIT_RAND4K_WRITE] = {"rand4k_write", "4k random write QD32", 4096,
			  ENGINE_OP_WRITE},
    [FIT_SEQ1M_READ] = {"seq1m_read", "1M sequential read QD8", 1 << 20,
			ENGINE_OP_READ},
    [FIT_SEQ1M_WRITE] = {"seq1m_write", "1M sequential write QD8", 1 << 20,
			 ENGINE_OP_WRITE},
};

/* One "KEY IOPS" line (NUL-terminated, comments already cut). */
static int parse_line(char *s, struct fit_ceiling *c, const char **why)
{
	char *save, *key = strtok_r(s, " \t\r", &save);
	char *val = strtok_r(NULL, " \t\r", &save);
	if (!key)
		return 0; /* blank */
	if (!val || strtok_r(NULL, " \t\r", &save)) {
		*why = "expected KEY IOPS";
		return -EINVAL;
	}
	char *end;
	errno = 0;
	double v = strtod(val, &end);
	if (*end || errno || !isfinite(v) || v <= 0 || v > 1e12) {
		*why = "the rate is not a number in (0, 1e12]";
		return -EINVAL;
	}
	for (int w = 0; w < FIT_WORKLOADS; w++)
		if (!strcmp(key, fit_workloads[w].key)) {
			c->iops[w] = v;
			return 0;
		}
	*why = "unknown workload";
	return -EINVAL;
}

/* Line @no of @n bytes at @s into @c. */
static int parse_numbered(const char *s, size_t n, struct fit_ceiling *c,
			  const char **why)
{
	char line[256];
	if (n >= sizeof(line)) {
		*why = "line too long";
		return -EINVAL;
	}
	if (memchr(s, '\0', n)) {
		*why = "a NUL byte";
		return -EINVAL;
	}
	memcpy(line, s, n);
	line[n] = '\0';
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	return parse_line(line, c, why);
}

int fit_ceiling_parse(const char *text, size_t len, const char *file,
		      struct fit_ceiling *c, char *err, size_t errlen)
{
	*c = (struct fit_ceiling){0};
	size_t at = 0;
	for (unsigned no = 1; at < len; no++) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = (nl ? (size_t)(nl - text) : len) - at;
		const char *why = "";
		int r = parse_numbered(text + at, n, c, &why);
		if (r) {
			snprintf(err, errlen, "%s:%u: %s", file, no, why);
			return r;
		}
		at += n + 1;
	}
	for (int w = 0; w < FIT_WORKLOADS; w++)
		if (c->iops[w] > 0)
			return 0;
	snprintf(err, errlen, "%s: no workload in it", file);
	return -EINVAL;
}

int fit_ceiling_load(const char *path, struct fit_ceiling *c, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	static char buf[CEILING_MAX_BYTES + 1];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n > CEILING_MAX_BYTES) {
		snprintf(err, errlen, "%s: larger than %d bytes", path,
			 CEILING_MAX_BYTES);
		return -EINVAL;
	}
	return fit_ceiling_parse(buf, n, path, c, err, errlen);
}

/* Requests per second all controllers' cores can take in: front-end CPU
 * and one back-end operation each (a request makes at least one), and a
 * write's dedupe work. */
static double ctl_peak(const struct profile *p,
		       const struct fit_workload_def *d)
{
	const struct profile_controllers *ctl = &p->ctl;
	double ns = (double)ctl->frontend_op_ns + (double)ctl->backend_op_ns;
	if (d->op == ENGINE_OP_WRITE && p->dedupe.enabled) {
		ns += (double)p->dedupe.cpu_ns * (double)d->bytes / BLOCK_BYTES;
		if (p->dedupe.hash_bytes_per_s)
			ns += 1e9 * (double)d->bytes /
			      (double)p->dedupe.hash_bytes_per_s;
		if (p->dedupe.compress_bytes_per_s)
			ns += 1e9 * (double)d->bytes /
			      (double)p->dedupe.compress_bytes_per_s;
	}
	unsigned serving = ctl->ha == PROFILE_HA_ACTIVE_ACTIVE ? ctl->count : 1;
	return ns > 0 ? serving * ctl->cores * 1e9 / ns : INFINITY;
}

/* The fastest service a drive's latency distribution allows. */
static double fastest_ns(const struct engine_dist *d)
{
	double ns = (double)d->fixed_ns;
	for (unsigned i = 0; i < d->n_points; i++)
		if (i == 0 || (double)d->points[i].ns < ns)
			ns = (double)d->points[i].ns;
	return ns;
}

/* Requests per second one drive of @t can serve: its slots at its
 * fastest latency, its IOPS cap, its bandwidth cap. */
static double drive_peak(const struct profile_tier *t,
			 const struct fit_workload_def *d)
{
	double peak = INFINITY, ns = fastest_ns(&t->latency[d->op]);
	if (ns > 0)
		peak = t->slots * 1e9 / ns;
	if (t->iops[d->op] && (double)t->iops[d->op] < peak)
		peak = (double)t->iops[d->op];
	double bw = (double)t->bandwidth_bytes_per_s[d->op];
	if (bw > 0 && bw / (double)d->bytes < peak)
		peak = bw / (double)d->bytes;
	return peak;
}

double fit_peak(const struct profile *p, enum fit_workload w,
		const char **limit)
{
	const struct fit_workload_def *d = &fit_workloads[w];
	*limit = "none";
	if (p->model == PROFILE_MODEL_NULL)
		return 0;
	double link = p->fe.links * profile_link_bytes_per_s(&p->fe, d->op) /
		      (double)d->bytes;
	double drives = 0;
	for (int i = 0; i < PROFILE_TIER_COUNT; i++)
		if (p->tier[i].present)
			drives +=
			    p->tier[i].drives * drive_peak(&p->tier[i], d);
	double ctl = ctl_peak(p, d), peak = ctl;
	*limit = "controllers";
	if (link < peak)
		peak = link, *limit = "front-end links";
	if (drives < peak)
		peak = drives, *limit = "drives";
	return peak;
}

/* The largest scale with at most two significant digits at which
 * @peak x scale <= @ceiling. */
static double fit_scale(double peak, double ceiling)
{
	double s = ceiling / peak;
	if (s >= 1000)
		return 1000;
	double unit = pow(10, floor(log10(s)) - 1);
	return floor(s / unit) * unit;
}

static void print_rate(FILE *f, const struct fit_workload_def *d, double iops)
{
	if (d->bytes >= (1 << 20))
		fprintf(f, "%10.0f MB/s", iops * (double)d->bytes / 1e6);
	else
		fprintf(f, "%10.0f IOPS", iops);
}

void fit_print(FILE *f, const struct profile *p, const struct fit_ceiling *c)
{
	fprintf(f, "\n; --scale against this host's ceiling (bench/ceiling.sh, "
		   "null profile).\n"
		   "; ESTIMATE from the model's resources, not a run: the "
		   "peak counts only\n"
		   "; controllers' CPU, front-end links and drives' fastest "
		   "service, so real\n"
		   "; figures are lower and the scale given is a safe one "
		   "(keep headroom:\n"
		   "; tests/integration/profile_figures.sh wants 4x).\n");
	fprintf(f, ";   %-24s %15s %15s  %-16s %s\n", "workload",
		"peak (scale 1)", "host ceiling", "set by",
		"fits up to --scale");
	for (int w = 0; w < FIT_WORKLOADS; w++) {
		const struct fit_workload_def *d = &fit_workloads[w];
		const char *limit;
		double peak = fit_peak(p, w, &limit);
		if (!c->iops[w])
			continue;
		fprintf(f, ";   %-24s ", d->label);
		if (peak > 0 && isfinite(peak))
			print_rate(f, d, peak);
		else
			fprintf(f, "%15s", "no limit");
		fputc(' ', f);
		print_rate(f, d, c->iops[w]);
		if (peak > 0 && isfinite(peak))
			fprintf(f, "  %-16s %g\n", limit,
				fit_scale(peak, c->iops[w]));
		else
			fprintf(f, "  %-16s -\n", limit);
	}
}
