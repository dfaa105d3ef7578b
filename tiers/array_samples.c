/* The array model's members of a sample; see tiers/array_samples.h. */
#include "tiers/array_samples.h"

#include "common/samples.h"

static uint64_t delta(uint64_t now, uint64_t *prev)
{
	uint64_t d = now >= *prev ? now - *prev : now;

	*prev = now;
	return d;
}

static void tier_members(FILE *out, const struct array_snapshot *s, unsigned t,
			 struct array_sample_prev *prev, double iv)
{
	const struct array_snap_tier *st = &s->tier[t];
	static struct latency_hist h; /* one sampler thread writes it */
	const char *n = array_tier_name(t);
	uint64_t ops = delta(st->ops[0] + st->ops[1], &prev->ops[t]);
	uint64_t bytes = delta(st->bytes[0] + st->bytes[1], &prev->bytes[t]);
	uint64_t q = delta(st->queue_ns, &prev->queue_ns[t]);

	sample_interval_hist(&st->hist, &prev->hist[t], &h);
	fprintf(out,
		",\"tier_%s_iops\":%.1f,\"tier_%s_mbps\":%.3f,"
		"\"tier_%s_p50_us\":%.1f,\"tier_%s_p99_us\":%.1f,"
		"\"tier_%s_qd\":%.3f",
		n, (double)ops / iv, n, (double)bytes / iv / 1e6, n,
		(double)latency_hist_percentile(&h, 50) / 1e3, n,
		(double)latency_hist_percentile(&h, 99) / 1e3, n,
		(double)q / 1e9 / iv);
}

/* The controllers' CPU over the interval by the profile's cpu_counter
 * (busy cores / cores without hyper-threading), what the vSAN and
 * XtremIO evaluations report; on average and for the busiest, where a
 * hot node shows; and the counter's name. */
static void ctl_members(FILE *out, const struct array_snapshot *s,
			struct array_sample_prev *prev, double iv)
{
	uint64_t busy = 0, most = 0;
	unsigned n = 0;
	for (unsigned i = 0; i < s->nres; i++) {
		if (s->res[i].kind != ARRAY_RES_CTL)
			continue;
		busy += s->res[i].busy_ns;
		if (n < ARRAY_SAMPLE_CTLS) {
			uint64_t d =
			    delta(s->res[i].busy_ns, &prev->ctl_each_ns[n]);
			most = d > most ? d : most;
		}
		n++;
	}
	uint64_t d = delta(busy, &prev->ctl_busy_ns);
	if (n)
		fprintf(out,
			",\"ctl_busy_pct\":%.1f,\"ctl_busy_max_pct\":%.1f,"
			"\"ctl_cpu_counter\":\"%s\"",
			100.0 * (double)d / 1e9 / iv / n,
			100.0 * (double)most / 1e9 / iv, s->cpu_counter);
}

static void fault_members(FILE *out, const struct array_snapshot *s)
{
	uint64_t bytes = 0, left = 0;
	unsigned in[MODEL_DRIVE_STATES] = {0}, ctls = 0, paths = 0;

	for (unsigned t = 0; t < PROFILE_TIER_COUNT; t++) {
		bytes += s->tier[t].rebuild_bytes;
		left += s->tier[t].rebuild_left;
		for (int k = 0; k < MODEL_DRIVE_STATES; k++)
			in[k] += s->tier[t].in_state[k];
	}
	for (unsigned i = 0; i < s->nctl; i++)
		ctls += !s->ctl_up[i];
	for (unsigned i = 0; i < s->npath; i++)
		paths += !s->path_up[i];
	fprintf(out,
		",\"rebuild_ratio\":%.4f,\"rebuild_left_bytes\":%llu,"
		"\"drives_failed\":%u,\"drives_rebuilding\":%u,"
		"\"drives_slow\":%u,\"ctls_down\":%u,\"paths_down\":%u,"
		"\"array_up\":%d",
		bytes ? 1.0 - (double)left / (double)bytes : 1.0,
		(unsigned long long)left, in[MODEL_DRIVE_FAILED],
		in[MODEL_DRIVE_REBUILDING], in[MODEL_DRIVE_SLOW], ctls, paths,
		s->down ? 0 : 1);
}

static void host_members(FILE *out, const struct array_snapshot *s,
			 struct array_sample_prev *prev)
{
	uint64_t n = delta(s->host.completed, &prev->completed);
	uint64_t late = delta(s->host.late, &prev->late);

	fprintf(out,
		",\"host_late_share\":%.4f,\"host_worst_late_ms\":%.3f,"
		"\"host_replies\":%llu,\"host_late\":%llu",
		n ? (double)late / (double)n : 0.0,
		(double)s->host.worst_1s_ns / 1e6, (unsigned long long)n,
		(unsigned long long)late);
}

void array_sample_write(FILE *out, const struct array_snapshot *s,
			struct array_sample_prev *prev, double interval_s)
{
	if (!s->timed)
		return;
	for (unsigned t = 0; t < PROFILE_TIER_COUNT; t++)
		if (s->tier[t].present)
			tier_members(out, s, t, prev, interval_s);
	if (s->has_cache) {
		uint64_t hits = delta(s->cache.hits, &prev->hits);
		uint64_t n =
		    delta(s->cache.hits + s->cache.misses, &prev->lookups);

		if (n)
			fprintf(out, ",\"cache_hit_ratio\":%.4f",
				(double)hits / (double)n);
	}
	ctl_members(out, s, prev, interval_s);
	fault_members(out, s);
	host_members(out, s, prev);
}
