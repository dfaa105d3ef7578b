/* The replication link: the [replication] profile keys (defaults, the
 * round trip computed from the way, the errors with file:line, show
 * printing it back) and the link in the model, in emulated time: what a
 * sync write adds, the link queueing concurrent traffic, a batch's
 * transfer and the cost of reading its blocks (tiers/model_repl.c).
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

#include "tests/tiers/t_model.h"
#include "tiers/model_repl.h"
#include "tiers/profile_calc.h"

/* One controller with a write cache, 50 us of CPU per write and none per
 * drive operation, so the replica acknowledges in exactly 50 us; a
 * 1 GbE replication link without overhead, 100 km away, no hops nor
 * stack time: a round trip of exactly 1 ms. Lines:
 *   1 [controllers] ... 5 [frontend] ... 7 [tier flash] ...
 *   15 [replication] 16 speed 17 overhead 18 distance_km 19 hops
 *   20 hop_latency 21 stack_latency */
static const char base[] = "[controllers]\n"
			   "cores = 4\n"
			   "frontend_op_cost = 50us\n"
			   "write_cache = unmirrored\n"
			   "[frontend]\n"
			   "speed = 10GbE\n"
			   "[tier flash]\n"
			   "kind = ssd\n"
			   "drives = 4\n"
			   "capacity = 1T\n"
			   "raid = raid10\n"
			   "read_latency = 100us\n"
			   "write_latency = 50us\n"
			   "slots = 4\n"
			   "[replication]\n"
			   "speed = 1GbE\n"
			   "overhead = 0%\n"
			   "distance_km = 100\n"
			   "hops = 0\n"
			   "hop_latency = 0\n"
			   "stack_latency = 0\n";

/* @text with the first @find replaced by @repl (malloc'd). */
static char *with(const char *text, const char *find, const char *repl)
{
	const char *at = strstr(text, find);
	size_t n = strlen(text) + strlen(repl) + 1;
	char *out = malloc(n);

	assert_non_null(at);
	assert_non_null(out);
	snprintf(out, n, "%.*s%s%s", (int)(at - text), text, repl,
		 at + strlen(find));
	return out;
}

/* The base profile without its [replication] section. */
static char *no_section(void)
{
	char *t = strdup(base);

	assert_non_null(t);
	*strstr(t, "[replication]") = '\0';
	return t;
}

static void test_defaults(void **state)
{
	char err[PROFILE_ERR_LEN], *text = no_section();
	struct profile p;

	assert_int_equal(
	    profile_parse_string(text, "d.ini", &p, err, sizeof(err)), 0);
	free(text);
	assert_string_equal(p.repl.link.speed, "10GbE");
	assert_int_equal(p.repl.link.line_bytes_per_s, 1250000000);
	/* TCP/IPv4 on Ethernet: (1538 - 1448) / 1538, in basis points. */
	assert_true(p.repl.link.overhead_pct[ENGINE_OP_WRITE] == 5.85);
	assert_true(p.repl.link.overhead_pct[ENGINE_OP_READ] == 5.85);
	assert_int_equal(p.repl.distance_km, 0);
	assert_int_equal(p.repl.hops, 2);
	assert_int_equal(p.repl.hop_ns, 5000);
	assert_int_equal(p.repl.stack_ns, 15000);
	/* 2 x (2 hops x 5 us + 15 us). */
	assert_int_equal(profile_repl_rtt_ns(&p.repl), 50000);
	(void)state;
}

static void test_round_trip(void **state)
{
	static const struct {
		const char *find, *repl;
		uint64_t rtt_ns;
		double overhead;
	} cases[] = {
	    {"distance_km = 100", "distance_km = 100", 1000000, 0},
	    /* 100 km, a switch each end, default stacks. */
	    {"hops = 0\nhop_latency = 0\nstack_latency = 0\n",
	     "hops = 2\nhop_latency = 5us\nstack_latency = 15us\n",
	     2 * (100 * 5000 + 2 * 5000 + 15000), 0},
	    /* FC without an overhead given: FCP's. */
	    {"speed = 1GbE\noverhead = 0%", "speed = 16GFC", 1000000, 2.9},
	    {"overhead = 0%", "overhead = 10%", 1000000, 10},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char err[PROFILE_ERR_LEN];
		char *text = with(base, cases[i].find, cases[i].repl);
		struct profile p;

		assert_int_equal(
		    profile_parse_string(text, "r.ini", &p, err, sizeof(err)),
		    0);
		free(text);
		assert_int_equal(profile_repl_rtt_ns(&p.repl), cases[i].rtt_ns);
		assert_true(p.repl.link.overhead_pct[ENGINE_OP_WRITE] ==
			    cases[i].overhead);
	}
	(void)state;
}

static void test_errors(void **state)
{
	static const struct {
		const char *find, *repl, *want;
	} cases[] = {
	    {"speed = 1GbE", "speed = SATA-6G",
	     "e.ini:16: [replication] speed: a replication link is Ethernet "
	     "or FC (SATA-6G is a drive's port)"},
	    {"speed = 1GbE", "speed = 2GbE",
	     "e.ini:16: [replication] speed: unknown link speed '2GbE' "
	     "(known: 1GbE, 10GbE, 25GbE, 40GbE, 100GbE, 4GFC, 8GFC, 16GFC, "
	     "32GFC, SATA-3G, SATA-6G, SAS-6G, SAS-12G, IB-QDR, IB-FDR, "
	     "IB-EDR)"},
	    {"speed = 1GbE", "speed = IB-QDR",
	     "e.ini:16: [replication] speed: a replication link is Ethernet "
	     "or FC (IB-QDR is an interconnect between nodes)"},
	    {"overhead = 0%", "overhead = 100%",
	     "e.ini:17: [replication] overhead: must be below 100%"},
	    {"distance_km = 100", "distance_km = 20001",
	     "e.ini:18: [replication] distance_km: '20001' is not a whole "
	     "number from 0 to 20000"},
	    {"distance_km = 100", "distance_km = 100km",
	     "e.ini:18: [replication] distance_km: '100km' is not a whole "
	     "number from 0 to 20000"},
	    {"hops = 0", "hops = 65",
	     "e.ini:19: [replication] hops: '65' is not a whole number from 0 "
	     "to 64"},
	    {"hop_latency = 0", "hop_latency = fast",
	     "e.ini:20: [replication] hop_latency: 'fast' is not a duration "
	     "(100us, 5ms)"},
	    {"stack_latency = 0", "rtt = 1ms",
	     "e.ini:21: [replication] rtt: unknown key"},
	    {"[replication]", "[replication]\n[replication]",
	     "e.ini:16: [replication]: section given twice (first on line "
	     "15)"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char err[PROFILE_ERR_LEN] = "";
		char *text = with(base, cases[i].find, cases[i].repl);
		struct profile p;
		int rc =
		    profile_parse_string(text, "e.ini", &p, err, sizeof(err));

		if (rc != -EINVAL || strcmp(err, cases[i].want)) {
			print_message("# case %zu: rc %d\n#  got  '%s'\n#  "
				      "want '%s'\n",
				      i, rc, err, cases[i].want);
			fail();
		}
		free(text);
	}
	char err[PROFILE_ERR_LEN];
	struct profile p;
	assert_int_equal(profile_parse_string("[array]\nmodel = null\n"
					      "[replication]\ndistance_km = "
					      "5\n",
					      "n.ini", &p, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "n.ini:3: [replication]: model = null takes "
				 "no other section");
	(void)state;
}

/* profile show prints the section, every key, the round trip; what it
 * prints parses to a profile that prints the same. */
static void test_show(void **state)
{
	char err[PROFILE_ERR_LEN], *text = no_section(), *once, *twice;
	struct profile p;

	assert_int_equal(
	    profile_parse_string(text, "s.ini", &p, err, sizeof(err)), 0);
	free(text);
	once = t_print(&p);
	assert_non_null(strstr(once, "\n[replication]\nspeed = 10GbE\n"
				     "overhead = 5.85%\ndistance_km = 0\n"
				     "hops = 2\nhop_latency = 5us\n"
				     "stack_latency = 15us\n"
				     "; replication round trip 50.0 us, "
				     "1176.9 MB/s each way after overhead\n"));
	assert_int_equal(
	    profile_parse_string(once, "s.ini", &p, err, sizeof(err)), 0);
	twice = t_print(&p);
	assert_string_equal(once, twice);
	free(once);
	free(twice);
	(void)state;
}

/* The base's model and its replication link. */
static void build(bool sync, struct profile **p, struct model **m,
		  struct model_repl **r)
{
	*p = t_profile(base);
	*m = t_model(*p, 1.0, 7);
	assert_int_equal(model_repl_new(*m, sync, r), 0);
}

static void teardown(struct profile *p, struct model *m, struct model_repl *r)
{
	model_repl_free(r);
	model_free(m);
	free(p);
}

/* 4 KiB at 125 MB/s, in ns. */
#define XFER_4K 32768ull

/* On idle arrays a sync write gains exactly the round trip (1 ms), its
 * 4 KiB over the 1 GbE link and the replica's ack (its 50 us of CPU); an
 * async mount's writes gain nothing; a read nothing. */
static void test_sync_write(void **state)
{
	struct model_io io = {
	    .op = ENGINE_OP_WRITE, .offset = 0, .length = 4096};
	struct model_repl_figures f;
	struct profile *p;
	struct model *m;
	struct model_repl *r;

	build(true, &p, &m, &r);
	assert_true(model_repl_sync(r));
	assert_int_equal(model_repl_figures(r, &f), 0);
	assert_int_equal(f.rtt_ns, 1000000);
	assert_int_equal(f.transfer_ns, XFER_4K);
	assert_int_equal(f.ack_ns, 50000);
	assert_true(f.bytes_per_s == 125000000.0);
	uint64_t local = model_submit(m, 0, &io);
	uint64_t done = model_repl_write(r, local, &io);
	print_message("# local ack %llu ns, sync %llu ns (+%llu)\n",
		      (unsigned long long)local, (unsigned long long)done,
		      (unsigned long long)(done - local));
	assert_int_equal(done - local, 1000000 + XFER_4K + 50000);
	io.op = ENGINE_OP_READ;
	assert_int_equal(model_repl_write(r, 5000000, &io), 5000000);
	teardown(p, m, r);

	io.op = ENGINE_OP_WRITE;
	build(false, &p, &m, &r);
	assert_false(model_repl_sync(r));
	local = model_submit(m, 0, &io);
	assert_int_equal(model_repl_write(r, local, &io), local);
	teardown(p, m, r);
	(void)state;
}

/* Concurrent traffic queues on the link: two 1 MiB sync writes
 * acknowledged locally at once leave one after the other, the second a
 * whole transfer (8.39 ms at 125 MB/s) later. */
static void test_link_queues(void **state)
{
	struct model_io io = {.op = ENGINE_OP_WRITE, .length = MIB};
	struct profile *p;
	struct model *m;
	struct model_repl *r;
	const uint64_t xfer = MIB * 1000000000ull / 125000000ull;

	build(true, &p, &m, &r);
	uint64_t a = model_repl_write(r, 10 * MS, &io);
	io.offset = 64 * MIB;
	uint64_t b = model_repl_write(r, 10 * MS, &io);
	print_message("# first %llu ns, second %llu ns\n",
		      (unsigned long long)a, (unsigned long long)b);
	assert_true(a >= 10 * MS + xfer + 1000000);
	assert_int_equal(b - a, xfer);
	teardown(p, m, r);
	(void)state;
}

/* An async batch: its bytes cross the link at its rate behind what the
 * link carries, then the ack a round trip later; reading its blocks
 * books the source's drives, so a host read behind them waits. */
static void test_batch_cost(void **state)
{
	struct profile *p;
	struct model *m;
	struct model_repl *r;
	struct model_io rd = {
	    .op = ENGINE_OP_READ, .offset = 0, .length = 4096};

	build(false, &p, &m, &r);
	/* 10 MB at 125 MB/s: 80 ms, and the 1 ms round trip. */
	assert_int_equal(model_repl_ship(r, 0, 10000000), 81 * MS);
	/* A second batch handed over at once waits for the first. */
	assert_int_equal(model_repl_ship(r, 0, 10000000), 161 * MS);
	teardown(p, m, r);

	/* Idle, a host read of 4 KiB takes this long. */
	build(false, &p, &m, &r);
	uint64_t alone = model_submit(m, 0, &rd) - 0;
	teardown(p, m, r);
	/* Behind a batch's 256 reads of 1 MiB on the same drives. */
	build(false, &p, &m, &r);
	uint64_t read_end = 0;
	for (unsigned i = 0; i < 256; i++) {
		uint64_t t = model_repl_read(r, 0, i * MIB, MIB);
		read_end = t > read_end ? t : read_end;
	}
	uint64_t behind = model_submit(m, 0, &rd);
	print_message("# a host read alone %llu ns, behind a batch's reads "
		      "%llu ns (the reads end at %llu ns)\n",
		      (unsigned long long)alone, (unsigned long long)behind,
		      (unsigned long long)read_end);
	assert_true(read_end > 0);
	assert_true(behind > 2 * alone);
	teardown(p, m, r);
	(void)state;
}

/* Mean latency of @n QD1 4 KiB random writes on allflash 100 km from its
 * replica at --scale 0.1 (the integration test's setting), sync or not;
 * *@add: what replication status prints a sync 4 KiB write adds. */
static double qd1_mean_us(bool sync, unsigned n, double *add_us)
{
	char *text = t_builtin_with("allflash", NULL, NULL);
	size_t len = strlen(text) + 64;
	char *full = malloc(len);
	struct model_repl_figures f;
	struct model_repl *r;
	uint64_t now = 0, sum = 0, rng = 42;

	assert_non_null(full);
	snprintf(full, len, "%s\n[replication]\ndistance_km = 100\n", text);
	struct profile *p = t_profile(full);
	struct model *m = t_model(p, 0.1, 3);
	assert_int_equal(model_repl_new(m, sync, &r), 0);
	assert_int_equal(model_repl_figures(r, &f), 0);
	*add_us = (double)(f.rtt_ns + f.transfer_ns + f.ack_ns) / 1e3;
	for (unsigned i = 0; i < n; i++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		struct model_io io = {.op = ENGINE_OP_WRITE,
				      .offset =
					  (rng >> 20) % (1ull << 34) & ~4095ull,
				      .length = 4096};
		uint64_t done =
		    model_repl_write(r, model_submit(m, now, &io), &io);

		sum += done - now;
		now = done;
	}
	model_repl_free(r);
	model_free(m);
	free(p);
	free(full);
	free(text);
	return (double)sum / n / 1e3;
}

/* Under the engine, QD1: the sync run's mean exceeds the async run's by
 * the printed figure (the integration test's 10% is the host's). */
static void test_qd1_sync_adds_figure(void **state)
{
	double add, a = qd1_mean_us(false, 3000, &add);
	double s = qd1_mean_us(true, 3000, &add);

	print_message("# QD1 4K writes: async %.1f us, sync %.1f us, +%.1f; "
		      "figure +%.1f\n",
		      a, s, s - a, add);
	t_assert_within(s - a, add, 0.01);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_show),
	    cmocka_unit_test(test_sync_write),
	    cmocka_unit_test(test_link_queues),
	    cmocka_unit_test(test_batch_cost),
	    cmocka_unit_test(test_qd1_sync_adds_figure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
