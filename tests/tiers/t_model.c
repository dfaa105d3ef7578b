/* Test helpers: profiles from text, closed-loop runs in emulated time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

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
	struct model_io io = {.length = w->block};
	uint64_t blocks = w->span_bytes / w->block;

	io.op = engine_rng_unit(&w->rng) < w->read_frac ? ENGINE_OP_READ
							: ENGINE_OP_WRITE;
	if (engine_rng_unit(&w->rng) < w->random_frac || !blocks) {
		io.offset =
		    engine_rng_next(&w->rng) % (blocks ? blocks : 1) * w->block;
	} else {
		/* Each client streams through its own region. */
		io.offset = w->seq_next[client] % w->span_bytes;
	}
	w->seq_next[client] = io.offset + w->block;
	io.cache_hit = engine_rng_unit(&w->rng) < w->hit_frac;
	return io;
}

struct t_result t_run(struct model *m, struct t_workload *w, unsigned q,
		      unsigned n)
{
	uint64_t next_ns[64] = {0}, end_ns = 0, lat_sum = 0;
	uint64_t reads = 0, bytes = 0;
	struct t_result r = {0};

	assert_true(q >= 1 && q <= 64);
	for (unsigned c = 0; c < q; c++)
		w->seq_next[c] = w->span_bytes / q * c;
	for (unsigned i = 0; i < n; i++) {
		unsigned c = 0;
		struct model_io io;
		uint64_t done;

		for (unsigned k = 1; k < q; k++)
			if (next_ns[k] < next_ns[c])
				c = k;
		io = t_next_io(w, c);
		done = model_submit(m, next_ns[c], &io);
		assert_true(done >= next_ns[c]);
		lat_sum += done - next_ns[c];
		reads += io.op == ENGINE_OP_READ;
		bytes += io.length;
		next_ns[c] = done;
		end_ns = done > end_ns ? done : end_ns;
	}
	r.iops = (double)n * S / (double)end_ns;
	r.read_iops = (double)reads * S / (double)end_ns;
	r.write_iops = r.iops - r.read_iops;
	r.mb_s = (double)bytes / 1e6 * S / (double)end_ns;
	r.mean_lat_us = (double)lat_sum / n / US;
	r.reads = (unsigned)reads;
	r.writes = n - (unsigned)reads;
	return r;
}
