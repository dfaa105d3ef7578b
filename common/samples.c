/* Per-second samples; see common/samples.h. */
#include "common/samples.h"

#include "common/clock.h"
#include "common/jsonl.h"
#include "common/log.h"
#include "common/periodic.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sampler {
	FILE *f;
	uint64_t period_ns, start_ns;
	const struct stats *s;
	sample_state_fn fn;
	void *ctx;
	struct sample_prev prev;
	struct periodic *thread;
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
static void sampled_counters(struct jsonl *j, const struct dedupe_stats *d,
			     struct sample_prev *prev)
{
	for (unsigned i = 0; i < DEDUPE_COUNTER_COUNT; i++)
		if (dedupe_counter_defs[i].sampled)
			jsonl_u64(
			    j, dedupe_counter_defs[i].name,
			    delta(dedupe_stats_get(d, i), &prev->dedupe[i]));
}

/* "@op_@what" into @key. */
static const char *op_key(char key[32], const char *op, const char *what)
{
	snprintf(key, 32, "%s_%s", op, what);
	return key;
}

/* Reads' and writes' rates and the interval's percentiles. */
static void rw_members(struct jsonl *j, const struct stats *s,
		       struct sample_prev *prev, double iv)
{
	static const char *const name[2] = {"read", "write"};
	static struct latency_hist h; /* one sampler thread writes it */
	char key[32];

	for (int k = 0; k < 2; k++) {
		const struct op_stats *o = &s->op[rw[k]];
		uint64_t n = delta(load(&o->count), &prev->count[k]);
		uint64_t b = delta(load(&o->bytes), &prev->bytes[k]);
		jsonl_double(j, op_key(key, name[k], "iops"), 1,
			     (double)n / iv);
		jsonl_double(j, op_key(key, name[k], "mbps"), 3,
			     (double)b / iv / 1e6);
	}
	for (int k = 0; k < 2; k++) {
		sample_interval_hist(&s->op[rw[k]].latency, &prev->hist[k], &h);
		jsonl_double(j, op_key(key, name[k], "p50_us"), 1,
			     (double)latency_hist_percentile(&h, 50) / 1e3);
		jsonl_double(j, op_key(key, name[k], "p99_us"), 1,
			     (double)latency_hist_percentile(&h, 99) / 1e3);
	}
}

void sample_write(FILE *out, const struct stats *s,
		  const struct sample_state *st, struct sample_prev *prev,
		  uint64_t start_ns, uint64_t now_ns)
{
	const struct stats_gauges *g = &st->g;
	double iv = (double)(now_ns - prev->t_ns) / 1e9;
	struct jsonl j;
	uint64_t ops, errs;
	char ts[40];

	if (iv <= 0)
		iv = 1e-9;
	prev->t_ns = now_ns;
	log_utc_now(ts, sizeof(ts));
	jsonl_begin(&j, out);
	jsonl_str(&j, "ts", ts);
	jsonl_double(&j, "t", 3, (double)(now_ns - start_ns) / 1e9);
	jsonl_double(&j, "interval_s", 3, iv);
	rw_members(&j, s, prev, iv);
	others(s, &ops, &errs);
	jsonl_u64(&j, "other_ops", delta(ops, &prev->other));
	jsonl_u64(&j, "errors", delta(errs, &prev->errors));
	sampled_counters(&j, &s->dedupe, prev);
	jsonl_double(&j, "dedupe_ratio", 4,
		     g->unique_blocks
			 ? (double)g->live_blocks / (double)g->unique_blocks
			 : 1.0);
	jsonl_u64(&j, "unique_blocks", g->unique_blocks);
	jsonl_u64(&j, "logical_bytes_held", g->logical_bytes_held);
	jsonl_u64(&j, "faults_active", st->faults_active);
	jsonl_str(&j, "power", st->power_lost ? "lost" : "on");
	if (st->extra)
		st->extra(st->extra_ctx, out, iv);
	jsonl_end(&j);
}

static void take(void *arg)
{
	struct sampler *sp = arg;
	struct sample_state st = {0};

	sp->fn(sp->ctx, &st);
	/* Stamped once @fn has read its state, which may wait for a lock:
	 * the line's time is when its figures were true. */
	uint64_t now_ns = clock_mono_ns();
	sample_write(sp->f, sp->s, &st, &sp->prev, sp->start_ns, now_ns);
	fflush(sp->f);
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
	sp->start_ns = sp->prev.t_ns = clock_mono_ns();
	/* On a fixed grid: no drift; and a last sample when stopped. */
	int r = periodic_start(period_ns,
			       PERIODIC_FIXED_GRID | PERIODIC_RUN_AT_STOP, take,
			       sp, &sp->thread);
	if (r) {
		fclose(f);
		free(sp);
		return r;
	}
	*out = sp;
	return 0;
}

void sampler_stop(struct sampler *sp)
{
	if (!sp)
		return;
	periodic_stop(sp->thread);
	fclose(sp->f);
	free(sp);
}
