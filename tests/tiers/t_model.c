/* Test helpers: profiles from text, closed-loop runs in emulated time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/tiers/t_model.h"

struct profile *t_profile(const char *text)
{
	struct profile *p = malloc(sizeof(*p));
	char err[PROFILE_ERR_LEN];
	int rc;

	assert_non_null(p);
	rc = profile_parse_string(text, "test.ini", p, err, sizeof(err));
	if (rc)
		print_message("# %s\n", err);
	assert_int_equal(rc, 0);
	return p;
}

char *t_print(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	profile_print(f, p);
	assert_int_equal(fclose(f), 0);
	return buf;
}

struct model *t_model(const struct profile *p, double scale, uint64_t seed)
{
	struct model *m;

	assert_int_equal(model_new(p, scale, seed, &m), 0);
	return m;
}

void t_assert_within(double got, double want, double tol)
{
	double d = got > want ? got - want : want - got;

	if (d > tol * want) {
		print_message("# got %.3f, want %.3f within %.1f%%\n", got,
			      want, tol * 100);
		fail();
	}
}

static struct model_io t_next_io(struct t_workload *w, unsigned client)
{
	unsigned stream = w->one_stream ? 0 : client;
	struct model_io io = {.length = w->block};
	uint64_t blocks = w->span_bytes / w->block;

	io.op = prng_unit(&w->rng) < w->read_frac ? ENGINE_OP_READ
						  : ENGINE_OP_WRITE;
	if (prng_unit(&w->rng) < w->random_frac || !blocks) {
		io.offset =
		    prng_next(&w->rng) % (blocks ? blocks : 1) * w->block;
	} else {
		/* Each client streams through its own region. */
		io.offset = w->seq_next[stream] % w->span_bytes;
	}
	w->seq_next[stream] = io.offset + w->block;
	io.cache_hit = prng_unit(&w->rng) < w->hit_frac;
	return io;
}

/* @io submitted at @at; with @w->destage, a write's bytes also leave the
 * cache tier for the backing tier from then. */
static uint64_t t_submit(struct model *m, const struct t_workload *w,
			 uint64_t at, const struct model_io *io)
{
	uint64_t done = model_submit(m, at, io);

	if (w->destage && io->op == ENGINE_OP_WRITE)
		model_destage(m, at, io->offset, io->length);
	return done;
}

/* Tally one I/O into @r's running sums. */
struct t_tally {
	uint64_t end_ns, lat_sum, reads, bytes, n;
	uint64_t read_lat_sum;
};

static void t_tally_add(struct t_tally *t, const struct model_io *io,
			uint64_t start, uint64_t done)
{
	assert_true(done >= start);
	t->lat_sum += done - start;
	if (io->op == ENGINE_OP_READ)
		t->read_lat_sum += done - start;
	t->reads += io->op == ENGINE_OP_READ;
	t->bytes += io->length;
	t->end_ns = done > t->end_ns ? done : t->end_ns;
	t->n++;
}

static struct t_result t_tally_result(const struct t_tally *t)
{
	struct t_result r = {0};
	double secs = (double)t->end_ns / S;

	r.iops = (double)t->n / secs;
	r.read_iops = (double)t->reads / secs;
	r.write_iops = r.iops - r.read_iops;
	r.mb_s = (double)t->bytes / 1e6 / secs;
	r.mean_lat_us = (double)t->lat_sum / (double)t->n / US;
	if (t->reads)
		r.read_lat_us = (double)t->read_lat_sum / (double)t->reads / US;
	if (t->n > t->reads)
		r.write_lat_us = (double)(t->lat_sum - t->read_lat_sum) /
				 (double)(t->n - t->reads) / US;
	r.reads = (unsigned)t->reads;
	r.writes = (unsigned)(t->n - t->reads);
	return r;
}

struct t_result t_run(struct model *m, struct t_workload *w, unsigned q,
		      unsigned n)
{
	uint64_t next_ns[T_MAX_CLIENTS] = {0};
	struct t_tally t = {0};

	assert_true(q >= 1 && q <= T_MAX_CLIENTS);
	for (unsigned c = 0; c < q; c++)
		w->seq_next[c] = w->one_stream ? 0 : w->span_bytes / q * c;
	for (unsigned i = 0; i < n; i++) {
		unsigned c = 0;
		struct model_io io;
		uint64_t done;

		for (unsigned k = 1; k < q; k++)
			if (next_ns[k] < next_ns[c])
				c = k;
		io = t_next_io(w, c);
		done = t_submit(m, w, next_ns[c], &io);
		t_tally_add(&t, &io, next_ns[c], done);
		next_ns[c] = done;
	}
	return t_tally_result(&t);
}

struct t_result t_run_rate(struct model *m, struct t_workload *w,
			   double rate_per_s, unsigned n)
{
	return t_run_rate_capped(m, w, rate_per_s, n, 0);
}

struct t_result t_run_rate_capped(struct model *m, struct t_workload *w,
				  double rate_per_s, unsigned n, unsigned cap)
{
	struct t_tally t = {0};
	bool capped = cap > 0;
	uint64_t *out = calloc(capped ? cap : 1, sizeof(*out)), last = 0;

	assert_non_null(out);
	w->seq_next[0] = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t at = (uint64_t)((double)i * S / rate_per_s);
		struct model_io io = t_next_io(w, 0);
		unsigned first = 0;

		/* Submissions in time order, as the data path makes them. */
		for (unsigned k = 1; capped && k < cap; k++)
			if (out[k] < out[first])
				first = k;
		if (capped && out[first] > at)
			at = out[first];
		at = at > last ? at : last;
		last = at;
		out[first] = t_submit(m, w, at, &io);
		t_tally_add(&t, &io, at, out[first]);
	}
	free(out);
	return t_tally_result(&t);
}

struct t_result t_run_workers(struct model *m, struct t_workload *const *w,
			      const unsigned *qd, unsigned workers, unsigned n,
			      struct t_result *each)
{
	uint64_t next_ns[T_MAX_CLIENTS] = {0};
	unsigned owner[T_MAX_CLIENTS], q = 0, slot[T_MAX_CLIENTS];
	struct t_tally all = {0}, *t = calloc(workers, sizeof(*t));

	assert_non_null(t);
	for (unsigned k = 0; k < workers; k++) {
		for (unsigned c = 0; c < qd[k]; c++, q++) {
			assert_true(q < T_MAX_CLIENTS);
			owner[q] = k;
			slot[q] = c;
			w[k]->seq_next[c] = w[k]->span_bytes / qd[k] * c;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned c = 0;

		for (unsigned k = 1; k < q; k++)
			if (next_ns[k] < next_ns[c])
				c = k;
		struct model_io io = t_next_io(w[owner[c]], slot[c]);
		uint64_t done = t_submit(m, w[owner[c]], next_ns[c], &io);

		t_tally_add(&all, &io, next_ns[c], done);
		t_tally_add(&t[owner[c]], &io, next_ns[c], done);
		next_ns[c] = done;
	}
	/* Each worker's rate over the whole run, so that they add up. */
	for (unsigned k = 0; k < workers; k++) {
		t[k].end_ns = all.end_ns;
		each[k] = t_tally_result(&t[k]);
	}
	free(t);
	return t_tally_result(&all);
}

char *t_builtin_with(const char *name, const char *from, const char *to)
{
	const struct profile_builtin *b = profile_builtins();

	while (b->name && strcmp(b->name, name))
		b++;
	assert_non_null(b->name);
	if (!from)
		from = to = "";
	const char *at = strstr(b->text, from);
	assert_non_null(at);
	size_t head = (size_t)(at - b->text);
	char *text = malloc(strlen(b->text) + strlen(to) + 1);
	assert_non_null(text);
	memcpy(text, b->text, head);
	strcpy(text + head, to);
	strcat(text, at + strlen(from));
	return text;
}
