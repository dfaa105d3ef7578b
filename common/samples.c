/* Per-second samples; see common/samples.h. */
#include "common/samples.h"

#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct sampler {
	FILE *f;
	uint64_t period_ns, start_ns;
	const struct stats *s;
	sample_state_fn fn;
	void *ctx;
	struct sample_prev prev;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stopping;
};

static const enum stats_op rw[2] = {STATS_OP_READ, STATS_OP_WRITE};

static uint64_t load(const _Atomic uint64_t *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

/* The interval's histogram: now minus @prev, bucket by bucket; @prev
 * becomes now. Counters only grow (a stats reset in between is seen as a
 * fresh start). */
void sample_interval_hist(const struct latency_hist *now,
			  struct latency_hist *prev, struct latency_hist *out)
{
	for (unsigned i = 0; i < LATENCY_HIST_BUCKETS; i++) {
		uint64_t n = load(&now->bucket[i]), p = load(&prev->bucket[i]);
		atomic_store_explicit(&out->bucket[i], n >= p ? n - p : n,
				      memory_order_relaxed);
		atomic_store_explicit(&prev->bucket[i], n,
				      memory_order_relaxed);
	}
	uint64_t s = load(&now->sum_ns), p = load(&prev->sum_ns);
	atomic_store_explicit(&out->sum_ns, s >= p ? s - p : s,
			      memory_order_relaxed);
	atomic_store_explicit(&prev->sum_ns, s, memory_order_relaxed);
}

static uint64_t delta(uint64_t now, uint64_t *prev)
{
	uint64_t d = now >= *prev ? now - *prev : now;
	*prev = now;
	return d;
}

static void others(const struct stats *s, uint64_t *ops, uint64_t *errs)
{
	*ops = *errs = 0;
	for (int op = 0; op < STATS_OP_COUNT; op++) {
		*errs += load(&s->op[op].errors);
		if (op != STATS_OP_READ && op != STATS_OP_WRITE)
			*ops += load(&s->op[op].count);
	}
}

/* The sampled dedupe counters (common/counters.h), as interval deltas. */
static void sampled_counters(FILE *out, const struct dedupe_stats *d,
			     struct sample_prev *prev)
{
	for (unsigned i = 0; i < DEDUPE_COUNTER_COUNT; i++)
		if (dedupe_counter_defs[i].sampled)
			fprintf(out, ",\"%s\":%llu",
				dedupe_counter_defs[i].name,
				(unsigned long long)delta(
				    dedupe_stats_get(d, i), &prev->dedupe[i]));
}

static void write_time(FILE *out)
{
	char ts[40];
	log_utc_now(ts, sizeof(ts));
	fprintf(out, "{\"ts\":\"%s\"", ts);
}

void sample_write(FILE *out, const struct stats *s,
		  const struct sample_state *st, struct sample_prev *prev,
		  uint64_t start_ns, uint64_t now_ns)
{
	double iv = (double)(now_ns - prev->t_ns) / 1e9;
	if (iv <= 0)
		iv = 1e-9;
	prev->t_ns = now_ns;
	write_time(out);
	fprintf(out, ",\"t\":%.3f,\"interval_s\":%.3f",
		(double)(now_ns - start_ns) / 1e9, iv);
	static const char *const name[2] = {"read", "write"};
	for (int k = 0; k < 2; k++) {
		const struct op_stats *o = &s->op[rw[k]];
		uint64_t n = delta(load(&o->count), &prev->count[k]);
		uint64_t b = delta(load(&o->bytes), &prev->bytes[k]);
		fprintf(out, ",\"%s_iops\":%.1f,\"%s_mbps\":%.3f", name[k],
			(double)n / iv, name[k], (double)b / iv / 1e6);
	}
	static struct latency_hist h; /* one sampler thread writes it */
	for (int k = 0; k < 2; k++) {
		sample_interval_hist(&s->op[rw[k]].latency, &prev->hist[k], &h);
		fprintf(out, ",\"%s_p50_us\":%.1f,\"%s_p99_us\":%.1f", name[k],
			(double)latency_hist_percentile(&h, 50) / 1e3, name[k],
			(double)latency_hist_percentile(&h, 99) / 1e3);
	}
	uint64_t ops, errs;
	others(s, &ops, &errs);
	const struct stats_gauges *g = &st->g;
	double ratio = g->unique_blocks
			   ? (double)g->live_blocks / (double)g->unique_blocks
			   : 1.0;
	fprintf(out, ",\"other_ops\":%llu,\"errors\":%llu",
		(unsigned long long)delta(ops, &prev->other),
		(unsigned long long)delta(errs, &prev->errors));
	sampled_counters(out, &s->dedupe, prev);
	fprintf(out,
		",\"dedupe_ratio\":%.4f,\"unique_blocks\":%llu,"
		"\"logical_bytes_held\":%llu,\"faults_active\":%u,"
		"\"power\":\"%s\"",
		ratio, (unsigned long long)g->unique_blocks,
		(unsigned long long)g->logical_bytes_held, st->faults_active,
		st->power_lost ? "lost" : "on");
	if (st->extra)
		st->extra(st->extra_ctx, out, iv);
	fputs("}\n", out);
}

static void take(struct sampler *sp)
{
	struct sample_state st = {0};
	sp->fn(sp->ctx, &st);
	sample_write(sp->f, sp->s, &st, &sp->prev, sp->start_ns,
		     stats_now_ns());
	fflush(sp->f);
}

static void *run(void *arg)
{
	struct sampler *sp = arg;
	uint64_t next = sp->start_ns;
	pthread_mutex_lock(&sp->lock);
	while (!sp->stopping) {
		next += sp->period_ns; /* on a fixed grid: no drift */
		struct timespec ts = {(time_t)(next / 1000000000u),
				      (long)(next % 1000000000u)};
		while (!sp->stopping &&
		       pthread_cond_timedwait(&sp->wake, &sp->lock, &ts) == 0)
			;
		pthread_mutex_unlock(&sp->lock);
		take(sp);
		pthread_mutex_lock(&sp->lock);
	}
	pthread_mutex_unlock(&sp->lock);
	return NULL;
}

int sampler_start(const char *path, uint64_t period_ns, const struct stats *s,
		  sample_state_fn fn, void *ctx, struct sampler **out)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	struct sampler *sp = calloc(1, sizeof(*sp));
	FILE *f = sp ? fdopen(fd, "a") : NULL;
	if (!f) {
		close(fd);
		free(sp);
		return -ENOMEM;
	}
	*sp = (struct sampler){
	    .f = f, .period_ns = period_ns, .s = s, .fn = fn, .ctx = ctx};
	sp->start_ns = sp->prev.t_ns = stats_now_ns();
	pthread_mutex_init(&sp->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sp->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&sp->thread, NULL, run, sp)) {
		fclose(f);
		free(sp);
		return -EAGAIN;
	}
	*out = sp;
	return 0;
}

void sampler_stop(struct sampler *sp)
{
	if (!sp)
		return;
	pthread_mutex_lock(&sp->lock);
	sp->stopping = true;
	pthread_cond_signal(&sp->wake);
	pthread_mutex_unlock(&sp->lock);
	pthread_join(sp->thread, NULL);
	fclose(sp->f);
	pthread_cond_destroy(&sp->wake);
	pthread_mutex_destroy(&sp->lock);
	free(sp);
}
