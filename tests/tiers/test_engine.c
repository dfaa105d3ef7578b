/* tiers/engine: the queueing model, all in emulated time (no sleeping).
 *
 * Closed-loop drivers: q clients, each resubmitting at its previous
 * completion, always the earliest client first so that submissions come
 * in non-decreasing time, as from the data path.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/stats.h"
#include "tiers/drive_hdd.h"
#include "tiers/engine.h"

#define US 1000ull
#define MS 1000000ull
#define S 1000000000ull
#define MIB (1024ull * 1024)

/* ---- helpers ----------------------------------------------------------- */

static struct engine *t_engine(uint64_t seed)
{
	struct engine *e;

	assert_int_equal(engine_new(seed, &e), 0);
	return e;
}

static struct engine_resource_conf t_fixed(unsigned slots, uint64_t ns)
{
	struct engine_resource_conf c = {.name = "dev", .slots = slots};

	c.service[ENGINE_OP_READ].fixed_ns = ns;
	c.service[ENGINE_OP_WRITE].fixed_ns = ns;
	return c;
}

static int t_add(struct engine *e, const struct engine_resource_conf *c)
{
	int id = engine_add_resource(e, c);

	assert_true(id >= 0);
	return id;
}

/* Run @n requests of @stages with @q clients closed-loop; returns the
 * time the last one completes (the run starts at 0). */
static uint64_t t_closed_loop(struct engine *e, const struct engine_stage *st,
			      unsigned n_st, unsigned q, unsigned n)
{
	uint64_t next_ns[64] = {0}, end_ns = 0;

	assert_true(q <= 64);
	for (unsigned i = 0; i < n; i++) {
		unsigned c = 0;

		for (unsigned j = 1; j < q; j++)
			if (next_ns[j] < next_ns[c])
				c = j;
		next_ns[c] = engine_submit(e, next_ns[c], st, n_st);
		if (next_ns[c] > end_ns)
			end_ns = next_ns[c];
	}
	return end_ns;
}

static double t_per_s(uint64_t count, uint64_t ns)
{
	return (double)count * (double)S / (double)ns;
}

static void t_assert_within(double got, double want, double rel)
{
	if (got < want * (1 - rel) || got > want * (1 + rel))
		fail_msg("%.2f is not within %.0f%% of %.2f", got, rel * 100,
			 want);
}

/* ---- slots, latency, queue depth ---------------------------------------- */

static void test_fixed_latency_iops(void **state)
{
	static const unsigned qs[] = {1, 4, 32}, ps[] = {1, 4, 32};
	static const uint64_t ls[] = {100 * US, 1 * MS, 10 * MS};

	for (unsigned li = 0; li < 3; li++)
		for (unsigned pi = 0; pi < 3; pi++)
			for (unsigned qi = 0; qi < 3; qi++) {
				struct engine *e = t_engine(1);
				struct engine_resource_conf c =
				    t_fixed(ps[pi], ls[li]);
				struct engine_stage st = {.res = t_add(e, &c),
							  .op = ENGINE_OP_READ,
							  .bytes = 4096};
				unsigned n = 20000, par = qs[qi] < ps[pi]
							      ? qs[qi]
							      : ps[pi];
				double iops = t_per_s(
				    n, t_closed_loop(e, &st, 1, qs[qi], n));

				print_message("# L=%llu us P=%u q=%u: %.1f "
					      "IOPS (model %.1f)\n",
					      (unsigned long long)(ls[li] / US),
					      ps[pi], qs[qi], iops,
					      par * (double)S / ls[li]);
				t_assert_within(iops, par * (double)S / ls[li],
						0.05);
				engine_free(e);
			}
}

/* A stage's work_ns adds to its service and holds the slot: a
 * controller of 2 cores at 30 us of CPU per request serves 2 / 30 us. */
static void test_stage_work(void **state)
{
	struct engine *e = t_engine(1);
	struct engine_resource_conf c = t_fixed(2, 10 * US);
	struct engine_stage st = {
	    .res = t_add(e, &c), .op = ENGINE_OP_READ, .work_ns = 20 * US};

	assert_int_equal(engine_submit(e, 0, &st, 1), 30 * US);
	assert_int_equal(engine_submit(e, 0, &st, 1), 30 * US);
	assert_int_equal(engine_submit(e, 0, &st, 1), 60 * US);
	t_assert_within(t_per_s(3000, t_closed_loop(e, &st, 1, 8, 3000)),
			2.0 * S / (30 * US), 0.01);
	engine_free(e);
}

/* Bookings made ahead of time (a RAID write's second phase) leave the
 * time before them to stages that arrive earlier but are submitted
 * later: on the wire, at the ops/s gate and among the slots. */
static void test_booked_ahead(void **state)
{
	struct engine *e = t_engine(1);
	struct engine_resource_conf c = t_fixed(2, 0);
	struct engine_stage st = {.op = ENGINE_OP_READ, .bytes = 100};

	c.bandwidth_bytes_per_s[ENGINE_OP_READ] = 1000000000; /* 1 B/ns */
	st.res = t_add(e, &c);
	assert_int_equal(engine_submit(e, 1000, &st, 1), 1100);
	assert_int_equal(engine_submit(e, 0, &st, 1), 100);
	/* The gap [100, 1000) holds 100-byte transfers, not 1000. */
	st.bytes = 1000;
	assert_int_equal(engine_submit(e, 0, &st, 1), 2100);
	engine_free(e);

	e = t_engine(1);
	c = t_fixed(4, 10);
	c.max_ops_per_s[ENGINE_OP_READ] = 10000000; /* a start per 100 ns */
	st.res = t_add(e, &c);
	st.bytes = 0;
	assert_int_equal(engine_submit(e, 1000, &st, 1), 1010);
	assert_int_equal(engine_submit(e, 0, &st, 1), 10);
	assert_int_equal(engine_submit(e, 0, &st, 1), 110);
	engine_free(e);

	/* Slots: the stage at 1000 takes the slot freed last (at 100),
	 * so the one free since 0 still serves a later stage at 0. */
	e = t_engine(1);
	c = t_fixed(2, 100);
	st.res = t_add(e, &c);
	assert_int_equal(engine_submit(e, 0, &st, 1), 100);
	assert_int_equal(engine_submit(e, 1000, &st, 1), 1100);
	assert_int_equal(engine_submit(e, 0, &st, 1), 100);
	engine_free(e);

	/* One slot: a stage booked ahead leaves the gap before it to those
	 * that fit (a drive is not idle in front of a RAID write's second
	 * phase); one that does not fit goes after it. */
	e = t_engine(1);
	c = t_fixed(1, 100);
	st.res = t_add(e, &c);
	assert_int_equal(engine_submit(e, 1000, &st, 1), 1100);
	assert_int_equal(engine_submit(e, 0, &st, 1), 100);
	assert_int_equal(engine_submit(e, 950, &st, 1), 1200);
	assert_int_equal(engine_submit(e, 0, &st, 1), 200);
	assert_int_equal(engine_resource_busy_slots(e, st.res, 1150), 1);
	assert_int_equal(engine_resource_busy_slots(e, st.res, 1200), 0);
	engine_free(e);
}

/* A stage the wire holds up past its slot's gap runs into the booking
 * after it; the slot is taken until both are done. */
static void test_slot_overrun(void **state)
{
	struct engine *e = t_engine(1);
	struct engine_resource_conf c = t_fixed(2, 100);
	struct engine_stage st = {.op = ENGINE_OP_READ};

	c.bandwidth_bytes_per_s[ENGINE_OP_READ] = 1000000000; /* 1 B/ns */
	st.res = t_add(e, &c);
	/* Both slots booked ahead at [1000, 1100). */
	assert_int_equal(engine_submit(e, 1000, &st, 1), 1100);
	assert_int_equal(engine_submit(e, 1000, &st, 1), 1100);
	/* Slot A [0, 900), the wire [100, 900). */
	st.bytes = 800;
	assert_int_equal(engine_submit(e, 0, &st, 1), 900);
	/* Slot B's gap holds 250 ns, but the wire is free only from 900:
	 * the transfer ends at 1050, inside B's booking at 1000. */
	st.bytes = 150;
	assert_int_equal(engine_submit(e, 0, &st, 1), 1050);
	/* What is left before 1100 is A's [900, 1000); then both are taken
	 * until 1100. */
	st.bytes = 0;
	assert_int_equal(engine_submit(e, 0, &st, 1), 1000);
	assert_int_equal(engine_submit(e, 0, &st, 1), 1200);
	assert_int_equal(engine_resource_busy_slots(e, st.res, 1099), 2);
	engine_free(e);
}

static void test_queueing_wait(void **state)
{
	struct engine *e = t_engine(1);
	struct engine_resource_conf c = t_fixed(2, 100 * US);
	struct engine_stage st = {.res = t_add(e, &c), .op = ENGINE_OP_WRITE};
	struct engine_resource_stats rs;

	/* Three at once on two slots: the third waits for the first slot. */
	assert_int_equal(engine_submit(e, 0, &st, 1), 100 * US);
	assert_int_equal(engine_submit(e, 0, &st, 1), 100 * US);
	assert_int_equal(engine_submit(e, 0, &st, 1), 200 * US);
	/* An idle gap: served on arrival. */
	assert_int_equal(engine_submit(e, 1 * MS, &st, 1), 1 * MS + 100 * US);
	assert_int_equal(engine_resource_stats(e, st.res, &rs), 0);
	assert_int_equal(rs.ops[ENGINE_OP_WRITE], 4);
	assert_int_equal(rs.ops[ENGINE_OP_READ], 0);
	assert_int_equal(rs.wait_ns, 100 * US);
	assert_int_equal(rs.busy_ns, 400 * US);
	assert_int_equal(rs.last_end_ns, 1 * MS + 100 * US);
	assert_string_equal(engine_resource_name(e, st.res), "dev");
	assert_null(engine_resource_name(e, 7));
	assert_int_equal(engine_resource_stats(e, -1, &rs), -EINVAL);
	engine_free(e);
}

/* ---- caps ---------------------------------------------------------------- */

static void test_bandwidth_cap(void **state)
{
	struct engine *e = t_engine(1);
	struct engine_resource_conf c = t_fixed(8, 100 * US);
	struct engine_stage st = {.op = ENGINE_OP_READ, .bytes = MIB};
	unsigned n = 2000;
	double mb_s;

	c.bandwidth_bytes_per_s[ENGINE_OP_READ] = 100000000; /* 100 MB/s */
	st.res = t_add(e, &c);
	/* One alone: service then transfer, ceil(2^20 B / 100 MB/s). */
	assert_int_equal(engine_submit(e, 0, &st, 1), 100 * US + 10485760);
	engine_free(e);

	e = t_engine(1);
	st.res = t_add(e, &c);
	uint64_t took = t_closed_loop(e, &st, 1, 8, n);
	mb_s = t_per_s(n * MIB, took) / 1e6;
	print_message("# 1 MiB QD8 capped at 100 MB/s: %.2f MB/s\n", mb_s);
	t_assert_within(mb_s, 100.0, 0.05);
	/* The wire is what saturates: booked the whole run, while the 8
	 * slots' 100 us of service each are a small share of theirs. */
	struct engine_resource_stats rs;
	assert_int_equal(engine_resource_stats(e, st.res, &rs), 0);
	assert_int_equal(rs.wire_ns, (uint64_t)n * 10485760);
	t_assert_within((double)rs.wire_ns / (double)took, 1.0, 0.01);
	assert_int_equal(rs.gate_ns, 0);
	engine_free(e);

	/* Writes are not capped here: 8 slots / 100 us of 1 MiB. */
	e = t_engine(1);
	st.res = t_add(e, &c);
	st.op = ENGINE_OP_WRITE;
	mb_s = t_per_s(n * MIB, t_closed_loop(e, &st, 1, 8, n)) / 1e6;
	t_assert_within(mb_s, 8 * MIB * 1e4 / 1e6, 0.05);
	engine_free(e);
}

static void test_ops_cap(void **state)
{
	struct engine *e = t_engine(1);
	struct engine_resource_conf c = t_fixed(32, 100 * US);
	struct engine_stage st = {.op = ENGINE_OP_READ, .bytes = 4096};
	double iops;

	c.max_ops_per_s[ENGINE_OP_READ] = 3000; /* 1e9/3000: not integral */
	st.res = t_add(e, &c);
	uint64_t took = t_closed_loop(e, &st, 1, 32, 30000);
	iops = t_per_s(30000, took);
	print_message("# 32 slots of 100 us capped at 3000 IOPS: %.1f\n", iops);
	t_assert_within(iops, 3000, 0.05);
	/* The gate is booked 1/3000 s per start, the whole run: full. */
	struct engine_resource_stats rs;
	assert_int_equal(engine_resource_stats(e, st.res, &rs), 0);
	t_assert_within((double)rs.gate_ns, 30000 * 1e9 / 3000, 0.001);
	t_assert_within((double)rs.gate_ns / (double)took, 1.0, 0.01);
	assert_int_equal(rs.wire_ns, 0);
	engine_free(e);
}

/* The gate's cost per byte adds to its cost per command: 1000 starts a
 * second and 4,096,000 bytes a second make a 4 KiB operation cost 1 ms
 * + 1 ms of the gate (500 IOPS), a 64 KiB one 1 + 16 ms (58.8 IOPS),
 * whatever the slots. */
static void test_gate_bytes(void **state)
{
	static const uint64_t sizes[] = {4096, 65536};
	static const double want[] = {500, 1000.0 / 17};

	for (unsigned i = 0; i < 2; i++) {
		struct engine *e = t_engine(1);
		struct engine_resource_conf c = t_fixed(32, 100 * US);
		struct engine_stage st = {.op = ENGINE_OP_WRITE,
					  .bytes = sizes[i]};
		double iops;

		c.max_ops_per_s[ENGINE_OP_WRITE] = 1000;
		c.gate_bytes_per_s[ENGINE_OP_WRITE] = 4096000;
		st.res = t_add(e, &c);
		iops = t_per_s(2000, t_closed_loop(e, &st, 1, 32, 2000));
		print_message(
		    "# gate 1000/s + 4096000 B/s, %llu B: %.1f IOPS\n",
		    (unsigned long long)sizes[i], iops);
		t_assert_within(iops, want[i], 0.02);
		engine_free(e);
	}
	(void)state;
}

/* ---- stages -------------------------------------------------------------- */

static void t_two_stage(uint64_t link_ns, unsigned link_slots,
			uint64_t drive_ns, unsigned drive_slots)
{
	struct engine *e = t_engine(1);
	struct engine_resource_conf lc = t_fixed(link_slots, link_ns);
	struct engine_resource_conf dc = t_fixed(drive_slots, drive_ns);
	struct engine_stage st[2] = {
	    {.res = t_add(e, &lc), .op = ENGINE_OP_READ, .bytes = 4096},
	    {.res = t_add(e, &dc), .op = ENGINE_OP_READ, .bytes = 4096},
	};
	double bound, iops;

	/* QD1: latencies add. */
	assert_int_equal(engine_submit(e, 0, st, 2), link_ns + drive_ns);
	iops = t_per_s(10000, t_closed_loop(e, st, 2, 1, 10000));
	t_assert_within(iops, (double)S / (link_ns + drive_ns), 0.05);
	engine_free(e);

	/* QD32: the slower stage bounds IOPS. */
	e = t_engine(1);
	st[0].res = t_add(e, &lc);
	st[1].res = t_add(e, &dc);
	bound = (double)S * link_slots / link_ns;
	if ((double)S * drive_slots / drive_ns < bound)
		bound = (double)S * drive_slots / drive_ns;
	iops = t_per_s(50000, t_closed_loop(e, st, 2, 32, 50000));
	print_message("# link %llu us x%u, drive %llu us x%u, QD32: %.1f IOPS"
		      " (bound %.1f)\n",
		      (unsigned long long)(link_ns / US), link_slots,
		      (unsigned long long)(drive_ns / US), drive_slots, iops,
		      bound);
	t_assert_within(iops, bound, 0.05);
	engine_free(e);
}

static void test_two_stages(void **state)
{
	t_two_stage(50 * US, 4, 200 * US, 1);  /* drive-bound: 5000 */
	t_two_stage(300 * US, 1, 200 * US, 8); /* link-bound: 3333 */
}

/* ---- distributions and seeds -----------------------------------------------
 */

/* A sampled percentile scatters by sqrt(p(1-p)/N) in p (0.03 points at
 * p99 for N = 100k) times the local slope of the curve. The points keep
 * that slope moderate around p50 and p99 so that 2% is a > 4 sigma check
 * for any seed; the rare outliers sit in the last 0.1%. */
static const struct engine_dist t_dist = {
    .n_points = 6,
    .points =
	{
	    {0.0, 50 * US},
	    {50.0, 100 * US},
	    {90.0, 200 * US},
	    {99.0, 300 * US},
	    {99.9, 330 * US},
	    {100.0, 2 * MS},
	},
};

static int t_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_percentiles(void **state)
{
	enum { N = 100000 };
	uint64_t *v = malloc(N * sizeof(*v));
	uint64_t r;

	assert_non_null(v);
	assert_int_equal(engine_dist_check(&t_dist), 0);
	for (uint64_t seed = 1; seed <= 10; seed++) {
		r = seed;
		for (unsigned i = 0; i < N; i++) {
			v[i] = engine_dist_sample(&t_dist, &r);
			assert_true(v[i] >= 50 * US && v[i] <= 2 * MS);
		}
		qsort(v, N, sizeof(*v), t_cmp_u64);
		print_message("# seed %llu: p50 %.1f us, p90 %.1f us,"
			      " p99 %.1f us, p99.9 %.1f us, max %.1f us\n",
			      (unsigned long long)seed, v[N / 2] / 1e3,
			      v[N * 9 / 10] / 1e3, v[N * 99 / 100] / 1e3,
			      v[N * 999 / 1000] / 1e3, v[N - 1] / 1e3);
		t_assert_within((double)v[N / 2], 100 * US, 0.02);
		t_assert_within((double)v[N * 99 / 100], 300 * US, 0.02);
	}
	free(v);
}

static void test_dist_edges(void **state)
{
	struct engine_dist d = {.n_points = 2,
				.points = {{50.0, 100 * US}, {90.0, 200 * US}}};
	struct engine_resource_conf c = t_fixed(0, 1);
	uint64_t r;
	unsigned low = 0, high = 0;
	struct engine *e = t_engine(1);

	/* Below the first point: its value; above the last: the last. */
	r = 9;
	for (unsigned i = 0; i < 10000; i++) {
		uint64_t ns = engine_dist_sample(&d, &r);

		assert_true(ns >= 100 * US && ns <= 200 * US);
		low += ns == 100 * US;
		high += ns == 200 * US;
	}
	t_assert_within(low, 5000, 0.05);
	t_assert_within(high, 1000, 0.1);

	/* Bad configurations. */
	d.points[1].pct = 50.0;
	assert_int_equal(engine_dist_check(&d), -EINVAL);
	d.points[1].pct = 101.0;
	assert_int_equal(engine_dist_check(&d), -EINVAL);
	d.points[1] = (struct engine_dist_point){90.0, 10 * US};
	assert_int_equal(engine_dist_check(&d), -EINVAL);
	d.n_points = ENGINE_DIST_MAX_POINTS + 1;
	assert_int_equal(engine_dist_check(&d), -EINVAL);
	assert_int_equal(engine_add_resource(e, &c), -EINVAL); /* 0 slots */
	c = t_fixed(1, 1);
	c.service[ENGINE_OP_WRITE] = d;
	assert_int_equal(engine_add_resource(e, &c), -EINVAL);
	c = t_fixed(1, 1);
	c.position_ns = drive_hdd_position_ns;
	c.hdd.rpm = 7200; /* no span */
	assert_int_equal(engine_add_resource(e, &c), -EINVAL);
	engine_free(e);
	engine_free(NULL);
}

/* Latencies of 2000 QD1 requests on a drive sampling t_dist, plus a link
 * with its own distribution, under @seed. */
static void t_latencies(uint64_t seed, uint64_t *lat)
{
	struct engine *e = t_engine(seed);
	struct engine_resource_conf c = t_fixed(4, 0);
	struct engine_stage st[2] = {{.op = ENGINE_OP_READ},
				     {.op = ENGINE_OP_READ}};
	uint64_t now_ns = 0;

	c.service[ENGINE_OP_READ] = t_dist;
	st[0].res = t_add(e, &c);
	st[1].res = t_add(e, &c);
	for (unsigned i = 0; i < 2000; i++) {
		uint64_t end_ns = engine_submit(e, now_ns, st, 2);

		lat[i] = end_ns - now_ns;
		now_ns = end_ns;
	}
	engine_free(e);
}

static void test_seed(void **state)
{
	static uint64_t a[2000], b[2000], c[2000];
	uint64_t r1, r2;

	t_latencies(42, a);
	t_latencies(42, b);
	t_latencies(43, c);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));

	r1 = 7;
	r2 = 7;
	for (unsigned i = 0; i < 1000; i++)
		assert_int_equal(prng_next(&r1), prng_next(&r2));
	r2 = 8;
	assert_int_not_equal(prng_next(&r1), prng_next(&r2));
	/* splitmix64's published first output for seed 0. */
	r1 = 0;
	assert_int_equal(prng_next(&r1), 0xe220a8397b1dcdafull);
}

/* ---- HDD ------------------------------------------------------------------
 */

#define T_SPAN (1ull << 42) /* 4 TiB */
#define T_XFER_NS 20480ull  /* 4096 B at 200 MB/s */
#define T_OVERHEAD_NS (100 * US)
#define T_ROT_NS 4166667ull /* 30e9 / 7200 rpm, rounded */

/* What observability reads: slots taken at an instant (serving or booked
 * behind), and the histogram percentiles come from. */
static void test_busy_slots_and_hist(void **state)
{
	struct engine *e = t_engine(1);
	struct engine_resource_conf c = t_fixed(2, 100 * US);
	int r = t_add(e, &c);
	struct engine_stage st = {.res = r, .op = ENGINE_OP_READ};
	(void)state;

	assert_int_equal(engine_resource_slots(e, r), 2);
	for (int i = 0; i < 3; i++) /* two served now, one queued behind */
		engine_submit(e, 0, &st, 1);
	assert_int_equal(engine_resource_busy_slots(e, r, 0), 2);
	assert_int_equal(engine_resource_busy_slots(e, r, 150 * US), 1);
	assert_int_equal(engine_resource_busy_slots(e, r, 200 * US), 0);
	assert_int_equal(latency_hist_count(engine_resource_hist(e, r)), 3);
	assert_null(engine_resource_hist(e, r + 1));
	assert_int_equal(engine_resource_busy_slots(e, r + 1, 0), 0);
	engine_free(e);
}

/* A part (a further piece of an operation already counted, as a large
 * write's dedupe chunks on a controller's other cores) holds a slot as
 * any stage does and is busy time, but adds no operation and no
 * latency sample. */
static void test_part_stage(void **state)
{
	struct engine *e = t_engine(1);
	struct engine_resource_conf c = t_fixed(2, 0);
	int r = t_add(e, &c);
	struct engine_stage st = {
	    .res = r, .op = ENGINE_OP_WRITE, .work_ns = 100 * US};
	struct engine_resource_stats rs;
	(void)state;

	assert_int_equal(engine_submit(e, 0, &st, 1), 100 * US);
	st.part = true;
	assert_int_equal(engine_submit(e, 0, &st, 1), 100 * US);
	assert_int_equal(engine_submit(e, 0, &st, 1), 200 * US);
	assert_int_equal(engine_resource_stats(e, r, &rs), 0);
	assert_int_equal(rs.ops[ENGINE_OP_WRITE], 1);
	assert_int_equal(rs.busy_ns, 300 * US);
	assert_int_equal(latency_hist_count(engine_resource_hist(e, r)), 1);
	engine_free(e);
}

static struct engine_resource_conf t_hdd(void)
{
	struct engine_resource_conf c = t_fixed(1, 0);

	c.position_ns = drive_hdd_position_ns;
	c.hdd = (struct engine_hdd){
	    .rpm = 7200,
	    .overhead_ns = T_OVERHEAD_NS,
	    .track_seek_ns = 500 * US,
	    .full_seek_ns = 16500 * US,
	    .span_bytes = T_SPAN,
	};
	c.bandwidth_bytes_per_s[ENGINE_OP_READ] = 200000000;
	c.bandwidth_bytes_per_s[ENGINE_OP_WRITE] = 200000000;
	return c;
}

/* One QD1 read at @off after the previous; checks it took @want_ns. */
static uint64_t t_hdd_read(struct engine *e, int res, uint64_t now_ns,
			   uint64_t off, uint64_t want_ns)
{
	struct engine_stage st = {.res = res,
				  .op = ENGINE_OP_READ,
				  .bytes = 4096,
				  .offset_bytes = off};
	uint64_t end_ns = engine_submit(e, now_ns, &st, 1);

	assert_int_equal(end_ns - now_ns, want_ns);
	return end_ns;
}

static void test_hdd_seek_model(void **state)
{
	struct engine *e = t_engine(1);
	struct engine_resource_conf c = t_hdd();
	int res = t_add(e, &c);
	uint64_t t = 0, head = 0, seq_ns = T_OVERHEAD_NS + T_XFER_NS;
	/* seek(d) = 500 us + 16 ms * sqrt(d / span) */
	uint64_t quarter_ns = seq_ns + 500 * US + 8 * MS + T_ROT_NS;
	uint64_t sixteenth_ns = seq_ns + 500 * US + 4 * MS + T_ROT_NS;
	uint64_t full_ns = seq_ns + 16500 * US + T_ROT_NS;

	/* The head starts at 0: sequential from there, no seek. */
	for (unsigned i = 0; i < 4; i++, head += 4096)
		t = t_hdd_read(e, res, t, head, seq_ns);
	/* Three jumps of span/4 forward, each 12.787 ms. */
	for (unsigned i = 0; i < 3; i++) {
		head += T_SPAN / 4;
		t = t_hdd_read(e, res, t, head, quarter_ns);
		head += 4096;
	}
	/* span/16 backwards. */
	head -= T_SPAN / 16;
	t = t_hdd_read(e, res, t, head, sixteenth_ns);
	/* Back to 0 from ~11/16 of the span, then the full stroke (and
	 * beyond it: clamped). Check the 11/16 case against the formula's
	 * bounds only: sqrt(11/16) is not exact. */
	head += 4096;
	{
		struct engine_stage st = {
		    .res = res, .op = ENGINE_OP_READ, .bytes = 4096};
		uint64_t ns = engine_submit(e, t, &st, 1) - t;

		assert_true(ns > sixteenth_ns && ns < full_ns);
		t += ns;
	}
	t = t_hdd_read(e, res, t, T_SPAN + 4096, full_ns);
	t = t_hdd_read(e, res, t, 0, full_ns);
	t = t_hdd_read(e, res, t, 4096, seq_ns);
	print_message(
	    "# HDD 4 KiB service: sequential %.3f ms, span/16 %.3f ms,"
	    " span/4 %.3f ms, full %.3f ms\n",
	    seq_ns / 1e6, sixteenth_ns / 1e6, quarter_ns / 1e6, full_ns / 1e6);
	engine_free(e);
}

static void test_hdd_random_vs_sequential(void **state)
{
	struct engine *e = t_engine(1);
	struct engine_resource_conf c = t_hdd();
	struct engine_stage st = {
	    .res = t_add(e, &c), .op = ENGINE_OP_READ, .bytes = 4096};
	uint64_t r;
	uint64_t t = 0, n = 2000;
	double seq, rnd;

	for (uint64_t i = 0; i < n; i++) {
		st.offset_bytes = i * 4096;
		t = engine_submit(e, t, &st, 1);
	}
	seq = t_per_s(n, t);
	/* Exactly: no seek, no rotation. */
	assert_int_equal(t, n * (T_OVERHEAD_NS + T_XFER_NS));

	r = 5;
	t = 0;
	for (uint64_t i = 0; i < n; i++) {
		st.offset_bytes = (prng_next(&r) % (T_SPAN / 4096)) * 4096;
		t = engine_submit(e, t, &st, 1);
	}
	rnd = t_per_s(n, t);
	/* Uniform random distance: E[sqrt(|x - y|)] = 8/15 over the unit
	 * span, so a mean of 0.1 + 0.5 + 16 * 8/15 + 4.167 + 0.02 ms. */
	print_message("# HDD 4 KiB QD1: sequential %.0f IOPS, random %.1f IOPS"
		      " (model %.1f)\n",
		      seq, rnd,
		      1e3 / (0.1 + 0.5 + 16.0 * 8 / 15 + 4.166667 + 0.02048));
	t_assert_within(
	    rnd, 1e3 / (0.1 + 0.5 + 16.0 * 8 / 15 + 4.166667 + 0.02048), 0.05);
	assert_true(rnd * 50 < seq);
	engine_free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fixed_latency_iops),
	    cmocka_unit_test(test_gate_bytes),
	    cmocka_unit_test(test_queueing_wait),
	    cmocka_unit_test(test_stage_work),
	    cmocka_unit_test(test_booked_ahead),
	    cmocka_unit_test(test_slot_overrun),
	    cmocka_unit_test(test_bandwidth_cap),
	    cmocka_unit_test(test_ops_cap),
	    cmocka_unit_test(test_two_stages),
	    cmocka_unit_test(test_percentiles),
	    cmocka_unit_test(test_dist_edges),
	    cmocka_unit_test(test_seed),
	    cmocka_unit_test(test_hdd_seek_model),
	    cmocka_unit_test(test_hdd_random_vs_sequential),
	    cmocka_unit_test(test_busy_slots_and_hist),
	    cmocka_unit_test(test_part_stage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
