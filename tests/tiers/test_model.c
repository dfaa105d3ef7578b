/* tiers/model and tiers/raid: a profile's resources and the stages of
 * one I/O, all in emulated time (no FUSE, no sleeping).
 *
 * RAID back-end operation counts are checked exactly; the timing points
 * are the model acceptance: a fixed-latency device of L with P
 * slots at queue depth q serves min(q, P) / L; a bandwidth cap holds; an
 * HDD's random and sequential rates follow its seek model; the same seed
 * gives the same latencies.
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
#include "tiers/profile_calc.h"
#include "tiers/raid.h"

/* ---- RAID expansion: exact counts --------------------------------------- */

static struct profile_tier t_tier(enum profile_raid raid, unsigned drives,
				  unsigned width)
{
	struct profile_tier t = {
	    .present = true,
	    .kind = PROFILE_KIND_SSD,
	    .drives = drives,
	    .capacity_bytes = 1ull << 40,
	    .raid = raid,
	    .stripe_width = width,
	    .stripe_unit_bytes = 64 * KIB,
	    .slots = 1,
	};

	return t;
}

static struct raid_plan *t_plan(const struct profile_tier *t, enum engine_op op,
				uint64_t off, uint64_t len)
{
	static struct raid_plan plan;

	assert_int_equal(raid_plan(t, op, off, len, &plan), 0);
	return &plan;
}

static void t_assert_counts(const struct raid_plan *p, unsigned reads,
			    unsigned writes, unsigned phases)
{
	assert_int_equal(p->reads, reads);
	assert_int_equal(p->writes, writes);
	assert_int_equal(p->n, reads + writes);
	assert_int_equal(p->phases, phases);
}

/* Every write of @p lands on a different drive, and the reads come
 * before the writes. */
static void t_assert_distinct_writes(const struct raid_plan *p)
{
	for (unsigned i = 0; i < p->n; i++) {
		if (p->ops[i].op == ENGINE_OP_READ)
			assert_int_equal(p->ops[i].phase, 0);
		else
			assert_int_equal(p->ops[i].phase, p->phases - 1);
		for (unsigned j = i + 1; j < p->n; j++)
			if (p->ops[i].op == p->ops[j].op)
				assert_int_not_equal(p->ops[i].drive,
						     p->ops[j].drive);
	}
}

static void test_raid5_small_write(void **state)
{
	struct profile_tier t = t_tier(PROFILE_RAID5, 4, 4);
	struct raid_plan *p = t_plan(&t, ENGINE_OP_WRITE, 4096, 4096);

	/* Read old data and parity, write new data and parity. */
	t_assert_counts(p, 2, 2, 2);
	t_assert_distinct_writes(p);
	/* A read touches one member. */
	t_assert_counts(t_plan(&t, ENGINE_OP_READ, 4096, 4096), 1, 0, 1);
}

static void test_raid6_small_write(void **state)
{
	struct profile_tier t = t_tier(PROFILE_RAID6, 6, 6);
	struct raid_plan *p = t_plan(&t, ENGINE_OP_WRITE, 8192, 4096);

	t_assert_counts(p, 3, 3, 2);
	t_assert_distinct_writes(p);
	/* Four members: reading the other data unit is cheaper (md's
	 * reconstruct-write): 2 reads, then data, P and Q. */
	t = t_tier(PROFILE_RAID6, 4, 4);
	t_assert_counts(t_plan(&t, ENGINE_OP_WRITE, 8192, 4096), 2, 3, 2);
}

static void test_raid10_and_raid1(void **state)
{
	struct profile_tier t = t_tier(PROFILE_RAID10, 8, 2);

	t_assert_counts(t_plan(&t, ENGINE_OP_WRITE, 0, 4096), 0, 2, 1);
	t_assert_distinct_writes(t_plan(&t, ENGINE_OP_WRITE, 0, 4096));
	t_assert_counts(t_plan(&t, ENGINE_OP_READ, 0, 4096), 1, 0, 1);
	/* 256K over 4 pairs of 64K units: each pair written twice. */
	t_assert_counts(t_plan(&t, ENGINE_OP_WRITE, 0, 256 * KIB), 0, 8, 1);
	t_assert_distinct_writes(t_plan(&t, ENGINE_OP_WRITE, 0, 256 * KIB));

	t = t_tier(PROFILE_RAID1, 3, 3);
	t_assert_counts(t_plan(&t, ENGINE_OP_WRITE, 0, 128 * KIB), 0, 3, 1);
	t_assert_counts(t_plan(&t, ENGINE_OP_READ, 0, 128 * KIB), 1, 0, 1);
}

static void test_raid_full_stripe(void **state)
{
	struct profile_tier t = t_tier(PROFILE_RAID5, 4, 4);
	struct raid_plan *p = t_plan(&t, ENGINE_OP_WRITE, 0, 192 * KIB);

	/* Three data units and parity, computed from the new data. */
	t_assert_counts(p, 0, 4, 1);
	t_assert_distinct_writes(p);
	t = t_tier(PROFILE_RAID6, 6, 6);
	t_assert_counts(t_plan(&t, ENGINE_OP_WRITE, 256 * KIB, 256 * KIB), 0, 6,
			1);
	/* Reading a whole stripe reads only its data units. */
	t_assert_counts(t_plan(&t, ENGINE_OP_READ, 0, 256 * KIB), 4, 0, 1);
}

static void test_raid5_two_stripes(void **state)
{
	struct profile_tier t = t_tier(PROFILE_RAID5, 4, 4);
	/* The last unit of stripe 0 and the first of stripe 1: two
	 * read-modify-writes. */
	struct raid_plan *p = t_plan(&t, ENGINE_OP_WRITE, 128 * KIB, 128 * KIB);

	t_assert_counts(p, 4, 4, 2);
}

static void test_raid5_parity_rotates(void **state)
{
	struct profile_tier t = t_tier(PROFILE_RAID5, 4, 4);
	unsigned parity_drive[4];

	/* Full stripes on rows 0..3: the member left out of the data
	 * writes is the parity, and it is a different one each row. */
	for (unsigned row = 0; row < 4; row++) {
		struct raid_plan *p =
		    t_plan(&t, ENGINE_OP_WRITE, row * 192 * KIB, 192 * KIB);

		assert_int_equal(p->n, 4);
		parity_drive[row] = p->ops[3].drive;
		for (unsigned k = 0; k < 4; k++)
			assert_int_equal(p->ops[k].offset, row * 64 * KIB);
		for (unsigned prev = 0; prev < row; prev++)
			assert_int_not_equal(parity_drive[prev],
					     parity_drive[row]);
	}
}

static void test_raid0_spread(void **state)
{
	struct profile_tier t = t_tier(PROFILE_RAID0, 4, 4);
	struct raid_plan *p = t_plan(&t, ENGINE_OP_WRITE, 0, 256 * KIB);

	t_assert_counts(p, 0, 4, 1);
	t_assert_distinct_writes(p);
	assert_int_equal(raid_plan(&t, ENGINE_OP_WRITE, 0, 0, p), -EINVAL);
	assert_int_equal(raid_plan(&t, ENGINE_OP_WRITE, 0, RAID_IO_MAX + 1, p),
			 -EINVAL);
}

/* A write-anywhere layout (scatter): each 4K piece of an I/O lies at
 * its own place, with the whole cost of a small write; a piece is found
 * where it was put before. */
static void test_raid_scatter(void **state)
{
	struct profile_tier t = t_tier(PROFILE_RAID5, 20, 5);
	struct raid_op before[8];
	struct raid_plan *p;
	bool used[20] = {false};
	unsigned drives = 0;

	/* Straight: 8K inside one 64K unit is one read-modify-write. */
	t_assert_counts(t_plan(&t, ENGINE_OP_WRITE, 64 * KIB, 8192), 2, 2, 2);
	t.scatter_bytes = 4096;
	p = t_plan(&t, ENGINE_OP_WRITE, 64 * KIB, 8192);
	t_assert_counts(p, 4, 4, 2);
	memcpy(before, p->ops, sizeof(before));
	p = t_plan(&t, ENGINE_OP_WRITE, 64 * KIB, 8192);
	for (unsigned k = 0; k < 8; k++) {
		assert_int_equal(p->ops[k].drive, before[k].drive);
		assert_int_equal(p->ops[k].offset, before[k].offset);
	}
	t_assert_counts(t_plan(&t, ENGINE_OP_READ, 64 * KIB, 8192), 2, 0, 1);
	/* A 1 MiB read is 256 reads, spread over the drives rather than
	 * down one stripe's members. */
	p = t_plan(&t, ENGINE_OP_READ, 0, MIB);
	t_assert_counts(p, 256, 0, 1);
	for (unsigned k = 0; k < p->n; k++) {
		drives += !used[p->ops[k].drive];
		used[p->ops[k].drive] = true;
	}
	assert_int_equal(drives, 20);
	/* Pieces are cut at multiples of their size: 6K at 2K is two. */
	t_assert_counts(t_plan(&t, ENGINE_OP_READ, 2048, 6144), 2, 0, 1);
}

/* ---- the model: profiles for the acceptance points ---------------------- */

/* One SSD of latency @lat_us with @slots slots behind a 100GbE link and
 * a free controller: the device is the only limit. */
static struct profile *t_one_drive(unsigned lat_us, unsigned slots,
				   const char *extra)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "[controllers]\ncores = 1024\n"
		 "[frontend]\nspeed = 100GbE\n"
		 "[tier flash]\nkind = ssd\ndrives = 1\ncapacity = 100G\n"
		 "raid = raid0\nread_latency = %uus\nwrite_latency = %uus\n"
		 "slots = %u\n%s",
		 lat_us, lat_us, slots, extra);
	return t_profile(text);
}

static void test_fixed_latency_qd(void **state)
{
	static const unsigned lats_us[] = {100, 1000, 10000};
	static const unsigned slots[] = {1, 8};
	static const unsigned qs[] = {1, 4, 32};

	for (unsigned li = 0; li < 3; li++)
		for (unsigned si = 0; si < 2; si++)
			for (unsigned qi = 0; qi < 3; qi++) {
				struct profile *p =
				    t_one_drive(lats_us[li], slots[si], "");
				struct model *m = t_model(p, 1.0, 1);
				struct t_workload w = {.block = 4096,
						       .read_frac = 1.0,
						       .random_frac = 1.0,
						       .span_bytes = 1ull
								     << 30};
				unsigned par =
				    qs[qi] < slots[si] ? qs[qi] : slots[si];
				struct t_result r = t_run(m, &w, qs[qi], 4000);

				t_assert_within(r.iops, par * 1e6 / lats_us[li],
						0.05);
				model_free(m);
				free(p);
			}
}

static void test_bandwidth_cap(void **state)
{
	struct profile *p = t_one_drive(50, 32, "read_bandwidth = 100MiB/s\n");
	struct model *m = t_model(p, 1.0, 1);
	struct t_workload w = {
	    .block = MIB, .read_frac = 1.0, .span_bytes = 1ull << 30};
	struct t_result r = t_run(m, &w, 8, 2000);

	t_assert_within(r.mb_s, 100 * MIB / 1e6, 0.05);
	model_free(m);
	free(p);
}

/* Sequential transfers saturate a 1 GbE link (the Synology report). */
static void test_link_cap(void **state)
{
	struct profile *p = t_profile(
	    "[frontend]\nspeed = 1GbE\nread_overhead = 6%\nwrite_overhead = "
	    "6%\n"
	    "[tier flash]\nkind = ssd\ndrives = 1\ncapacity = 100G\n"
	    "raid = raid0\nread_latency = 100us\nwrite_latency = 100us\n"
	    "slots = 32\n");
	struct model *m = t_model(p, 1.0, 1);
	struct t_workload w = {.block = 128 * KIB, .span_bytes = 1ull << 30};
	struct t_result r;

	w.read_frac = 1.0;
	r = t_run(m, &w, 8, 2000);
	t_assert_within(r.mb_s, 125 * 0.94, 0.05);
	model_free(m);
	/* Full duplex: writes have their own direction. */
	m = t_model(p, 1.0, 1);
	w.read_frac = 0.0;
	r = t_run(m, &w, 8, 2000);
	t_assert_within(r.mb_s, 125 * 0.94, 0.05);
	model_free(m);
	free(p);
}

/* Random 4K reads on one HDD at QD1: overhead + mean seek + half a turn,
 * where the mean of sqrt(|x - y|) over uniform x, y in [0, 1] is 8/15.
 * Sequential: the overhead alone. */
static void test_hdd_random_vs_sequential(void **state)
{
	struct profile *p = t_profile(
	    "[frontend]\nspeed = 100GbE\n"
	    "[tier flash]\nkind = hdd\ndrives = 1\ncapacity = 4T\n"
	    "raid = raid0\nread_latency = 100us\nwrite_latency = 100us\n"
	    "rpm = 7200\ntrack_seek = 1ms\nfull_seek = 16ms\n");
	struct t_workload w = {.block = 4096, .read_frac = 1.0};
	double random_us = 100 + 1000 + 15000.0 * 8 / 15 + 30e6 / 7200;
	struct model *m = t_model(p, 1.0, 1);
	struct t_result r;

	w.span_bytes = 4ull << 40;
	w.random_frac = 1.0;
	r = t_run(m, &w, 1, 4000);
	t_assert_within(r.iops, 1e6 / random_us, 0.05);
	model_free(m);

	m = t_model(p, 1.0, 1);
	w.random_frac = 0.0;
	r = t_run(m, &w, 1, 4000);
	t_assert_within(r.iops, 1e6 / 100, 0.05);
	model_free(m);
	free(p);
}

static void t_latencies(const struct profile *p, uint64_t seed, uint64_t *out,
			unsigned n)
{
	struct model *m = t_model(p, 1.0, seed);
	struct model_io io = {.op = ENGINE_OP_READ, .length = 4096};

	for (unsigned i = 0; i < n; i++) {
		io.offset = (uint64_t)i * 7919 * 4096;
		out[i] = model_submit(m, (uint64_t)i * MS, &io) - i * MS;
	}
	model_free(m);
}

static void test_same_seed(void **state)
{
	struct profile *p =
	    t_profile("[frontend]\nspeed = 10GbE\n"
		      "[tier flash]\nkind = ssd\ndrives = 4\ncapacity = 1T\n"
		      "raid = raid5\nread_latency = p0:50us p50:90us p99:400us "
		      "p100:2ms\nwrite_latency = 30us\nslots = 8\n");
	uint64_t a[200], b[200], c[200];

	t_latencies(p, 42, a, 200);
	t_latencies(p, 42, b, 200);
	t_latencies(p, 43, c, 200);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	free(p);
}

/* RAID 5 against RAID 10 through the model: per random 4K write, 2 reads
 * and 2 writes against 2 writes; per read, one read either way. */
static void test_model_raid_counts(void **state)
{
	static const char fmt[] =
	    "[frontend]\nspeed = 10GbE\n"
	    "[tier flash]\nkind = ssd\ndrives = 8\ncapacity = 1T\n"
	    "raid = %s\nread_latency = 100us\nwrite_latency = 50us\n";
	static const char *const raids[] = {"raid5", "raid10"};
	static const unsigned reads_per_write[] = {2, 0};

	for (unsigned i = 0; i < 2; i++) {
		char text[512];
		struct profile *p;
		struct model *m;
		struct model_counts c;
		struct t_workload w = {.block = 4096,
				       .read_frac = 0.5,
				       .random_frac = 1.0,
				       .span_bytes = 1ull << 30};
		struct t_result r;

		snprintf(text, sizeof(text), fmt, raids[i]);
		p = t_profile(text);
		m = t_model(p, 1.0, 1);
		w.rng = 5;
		r = t_run(m, &w, 4, 1000);
		model_counts(m, &c);
		assert_true(r.writes > 400 && r.reads > 400);
		assert_int_equal(c.drive_ops[ENGINE_OP_WRITE], 2 * r.writes);
		assert_int_equal(c.drive_ops[ENGINE_OP_READ],
				 r.reads + reads_per_write[i] * r.writes);
		assert_int_equal(c.background_ops[ENGINE_OP_WRITE], 0);
		model_free(m);
		free(p);
	}
}

/* --scale 2 runs the array twice as fast. */
static void test_scale(void **state)
{
	struct profile *p = t_one_drive(200, 4, "read_iops = 10000\n");
	struct t_workload w = {.block = 4096,
			       .read_frac = 1.0,
			       .random_frac = 1.0,
			       .span_bytes = 1ull << 30};
	struct model *m = t_model(p, 1.0, 1);
	double base = t_run(m, &w, 2, 4000).iops;

	model_free(m);
	m = t_model(p, 2.0, 1);
	t_assert_within(t_run(m, &w, 2, 4000).iops, 2 * base, 0.02);
	model_free(m);
	m = t_model(p, 0.5, 1);
	t_assert_within(t_run(m, &w, 2, 4000).iops, 0.5 * base, 0.02);
	model_free(m);
	free(p);
}

/* ---- controllers, write cache, hybrid ----------------------------------- */

static const char t_hybrid[] =
    "[controllers]\ncount = 2\nmode = active-standby\ncores = 4\n"
    "frontend_op_cost = 10us\nbackend_op_cost = 5us\n"
    "write_cache = mirrored\nmirror_latency = 50us\n"
    "[frontend]\nspeed = 10GbE\nrequest_latency = 100us\n"
    "[tier cache]\nkind = ssd\ndrives = 4\ncapacity = 400G\n"
    "raid = raid10\nread_latency = 100us\nwrite_latency = 50us\n"
    "slots = 32\n"
    "[tier backing]\nkind = hdd\ndrives = 6\ncapacity = 4T\nraid = raid6\n"
    "read_latency = 200us\nwrite_latency = 200us\nrpm = 7200\n"
    "track_seek = 1ms\nfull_seek = 15ms\n"
    "[cache]\nsize = 500G\ndestage_rate = 100MiB/s\n";

static void test_hybrid_paths(void **state)
{
	struct profile *p = t_profile(t_hybrid);
	struct model *m = t_model(p, 1.0, 1);
	struct model_io io = {.op = ENGINE_OP_READ, .length = 4096};
	struct model_counts c;
	uint64_t hit, miss, wr, t = 0;

	/* An idle array: latency = request + CPU + drive (+ wire). */
	io.cache_hit = true;
	hit = model_submit(m, t, &io) - t;
	t_assert_within((double)hit, 100e3 + 15e3 + 100e3, 0.02);
	t += S;
	io.cache_hit = false;
	io.offset = 1ull << 40; /* far from the heads: seek and turn */
	miss = model_submit(m, t, &io) - t;
	assert_true(miss > 20 * hit);
	t += S;
	/* A write is acknowledged once mirrored: the owner's CPU (front
	 * end + 2 cache-tier writes: 20 us) and the partner's 50 us copy
	 * run side by side; the drive writes follow in the background. */
	io.op = ENGINE_OP_WRITE;
	wr = model_submit(m, t, &io) - t;
	t_assert_within((double)wr, 100e3 + 50e3, 0.02);
	model_counts(m, &c);
	assert_int_equal(c.drive_ops[ENGINE_OP_READ], 2);
	/* The miss was promoted; the write went to the cache tier. */
	assert_int_equal(c.background_ops[ENGINE_OP_WRITE], 2 + 2);
	model_free(m);
	free(p);
}

/* A write cache absorbs bursts, but writes slow to what the drives
 * sustain once the backlog passes write_backlog. */
static void test_write_backlog(void **state)
{
	struct profile *p = t_profile(
	    "[controllers]\ncount = 2\nmode = active-active\ncores = 64\n"
	    "write_cache = mirrored\nwrite_backlog = 10ms\n"
	    "[frontend]\nspeed = 100GbE\n"
	    "[tier flash]\nkind = ssd\ndrives = 1\ncapacity = 100G\n"
	    "raid = raid0\nread_latency = 100us\nwrite_latency = 1ms\n");
	struct model *m = t_model(p, 1.0, 1);
	struct t_workload w = {
	    .block = 4096, .random_frac = 1.0, .span_bytes = 1ull << 30};

	/* One slot of 1 ms: 1000 writes/s sustained, whatever the QD. */
	t_assert_within(t_run(m, &w, 16, 5000).iops, 1000, 0.05);
	model_free(m);
	free(p);
}

/* A staged write (NFS on a NAS): the protocol work runs as the data
 * arrives, the RAID and drive work once it is all in. 4K: the front end
 * (100 us) outlasts the wire (32.8 us at 1GbE); 1 MiB: the wire (8.39 ms)
 * comes first, then the back end and the drives, in sum. */
static void test_write_staging(void **state)
{
	struct profile *p = t_profile(
	    "[controllers]\ncores = 1\nfrontend_op_cost = 100us\n"
	    "backend_op_cost = 10us\n"
	    "[frontend]\nspeed = 1GbE\nwrite_staging = yes\n"
	    "[tier flash]\nkind = ssd\ndrives = 1\ncapacity = 100G\n"
	    "raid = raid0\nread_latency = 50us\nwrite_latency = 50us\n");
	struct model *m = t_model(p, 1.0, 1);
	struct model_io io = {.op = ENGINE_OP_WRITE, .length = 4096};
	struct model_counts c;
	double wire_ns = MIB * 8.0; /* 1 GbE: 8 ns a byte */
	uint64_t end;

	t_assert_within((double)model_submit(m, 0, &io), 160e3, 0.001);
	model_free(m);
	m = t_model(p, 1.0, 1);
	io.length = MIB;
	end = model_submit(m, 0, &io);
	model_counts(m, &c);
	/* One drive with one slot: its operations one after another. */
	t_assert_within((double)end,
			wire_ns + (double)c.drive_ops[ENGINE_OP_WRITE] *
				      (10e3 + 50e3),
			0.001);
	model_free(m);
	free(p);
}

/* One I/O's end on a fresh model of the staged 1 GbE NAS below. */
static double t_proto_end(const char *proto, enum engine_op op, uint64_t len)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "[controllers]\ncores = 1\nfrontend_op_cost = 100us\n"
		 "[frontend]\nspeed = 1GbE\nprotocol = %s\n"
		 "write_staging = yes\nrequest_latency = 100us\n"
		 "[tier flash]\nkind = ssd\ndrives = 1\ncapacity = 100G\n"
		 "raid = raid0\nread_latency = 50us\nwrite_latency = 50us\n",
		 proto);
	struct profile *p = t_profile(text);
	struct model *m = t_model(p, 1.0, 1);
	struct model_io io = {.op = op, .length = len};
	double end = (double)model_submit(m, 0, &io);

	model_free(m);
	free(p);
	return end;
}

/* iSCSI against NFS on the same link (tiers/profile_calc.c): the
 * initiator's 20 us on every I/O; a further 48-byte header per 8 KiB PDU
 * (8 ns a byte at 1 GbE); and a write past its first 8 KiB waits one
 * round trip (100 us) per R2T burst of 256 KiB: 1 MiB, 4 of them. */
static void test_protocol_iscsi(void **state)
{
	static const struct {
		enum engine_op op;
		uint64_t len;
		double extra_ns;
	} cases[] = {
	    {ENGINE_OP_READ, 4096, 20e3},
	    {ENGINE_OP_WRITE, 8192, 20e3},
	    {ENGINE_OP_WRITE, 64 * KIB, 20e3 + 100e3 + 7 * 48 * 8},
	    {ENGINE_OP_WRITE, MIB, 20e3 + 4 * 100e3 + 127 * 48 * 8},
	    {ENGINE_OP_READ, MIB, 20e3 + 127 * 48 * 8},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		double nfs = t_proto_end("nfs", cases[i].op, cases[i].len);
		double iscsi = t_proto_end("iscsi", cases[i].op, cases[i].len);

		t_assert_within(iscsi - nfs, cases[i].extra_ns, 0.001);
	}
	(void)state;
}

/* nfs, fc and local add nothing to what the [frontend] keys say; the
 * check keeps each on its own kind of link (test_profile.c). */
static void test_protocol_baselines(void **state)
{
	struct profile_frontend fe = {.request_ns = 100000};
	static const enum profile_protocol none[] = {
	    PROFILE_PROTO_NFS, PROFILE_PROTO_FC, PROFILE_PROTO_LOCAL};

	for (size_t i = 0; i < sizeof(none) / sizeof(*none); i++) {
		fe.protocol = none[i];
		assert_int_equal(profile_wire_bytes(&fe, MIB), MIB);
		assert_int_equal(profile_protocol_ns(&fe, ENGINE_OP_WRITE, MIB),
				 0);
		assert_int_equal(profile_r2t_rounds(&fe, ENGINE_OP_WRITE, MIB),
				 0);
	}
	fe.protocol = PROFILE_PROTO_ISCSI;
	assert_int_equal(profile_r2t_rounds(&fe, ENGINE_OP_WRITE, 8192), 0);
	assert_int_equal(profile_r2t_rounds(&fe, ENGINE_OP_WRITE, 8192 + 1), 1);
	assert_int_equal(
	    profile_r2t_rounds(&fe, ENGINE_OP_WRITE, 8192 + 256 * KIB), 1);
	assert_int_equal(profile_r2t_rounds(&fe, ENGINE_OP_READ, MIB), 0);
	assert_int_equal(profile_wire_bytes(&fe, 8192), 8192);
	(void)state;
}

/* A write whose every block dedupe found costs no drive operation. */
static void test_dedupe_skips_drives(void **state)
{
	struct profile *p = t_one_drive(100, 1,
					"[dedupe]\nenabled = yes\n"
					"cpu_cost = 20us\n");
	struct model *m = t_model(p, 1.0, 1);
	struct model_io io = {
	    .op = ENGINE_OP_WRITE, .length = 8192, .blocks_deduped = 2};
	struct model_counts c;

	/* Two blocks of fingerprinting, each on a core of its own (the
	 * controller has 1024), no drive. */
	t_assert_within((double)model_submit(m, 0, &io), 20e3, 0.02);
	io.blocks_deduped = 1;
	model_submit(m, S, &io);
	model_counts(m, &c);
	assert_int_equal(c.drive_ops[ENGINE_OP_WRITE], 1);
	model_free(m);
	free(p);
}

/* Dedupe's per-byte work: a 1 MiB write costs 1 MiB at hash_rate and,
 * with compression on, the bytes of its blocks dedupe did not find at
 * compress_rate, spread over the controller's 4 cores, before the ack;
 * with after_ack and a write cache, after it, so the write is
 * acknowledged once mirrored (the partner's 10 us). */
static void test_dedupe_per_byte(void **state)
{
	static const char fmt[] =
	    "[controllers]\ncount = 2\nmode = active-active\ncores = 4\n"
	    "write_cache = mirrored\nmirror_latency = 10us\n"
	    "[frontend]\nspeed = 100GbE\n"
	    "[tier flash]\nkind = ssd\ndrives = 1\ncapacity = 100G\n"
	    "raid = raid0\nread_latency = 50us\nwrite_latency = 50us\n"
	    "[dedupe]\nenabled = yes\nhash_rate = 1048576000/s\n"
	    "compress_rate = 104857600/s\nafter_ack = %s\n"
	    "compression = %s\n";
	/* deduped blocks of 256, compression, ack after, expected ns:
	 * hashing 1 ms, compressing 10 ms a MiB of one core, on 4 cores a
	 * quarter (the 50 us drive write of a half-deduped MiB runs
	 * alongside the CPU, after it) */
	static const struct {
		uint32_t deduped;
		const char *comp;
		unsigned after;
		double ns;
	} cases[] = {
	    {256, "lz4", 0, 0.25e6},  /* nothing unique: none compressed */
	    {128, "lz4", 0, 1.5e6},   /* half unique: half a MiB compressed */
	    {128, "none", 0, 0.25e6}, /* compression off: no compress_rate */
	    {128, "zstd", 1, 0},      /* after the ack */
	};
	char text[sizeof(fmt) + 16];

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct model_io io = {.op = ENGINE_OP_WRITE,
				      .length = MIB,
				      .blocks_deduped = cases[i].deduped};
		snprintf(text, sizeof(text), fmt, cases[i].after ? "yes" : "no",
			 cases[i].comp);
		struct profile *p = t_profile(text);
		struct model *m = t_model(p, 1.0, 1);
		uint64_t wire = model_submit(m, 0, &io);

		if (cases[i].after)
			assert_true(wire < 200 * US);
		else
			t_assert_within((double)wire, cases[i].ns, 0.03);
		model_free(m);
		free(p);
	}
	(void)state;
}

/* Resource @name of @m's engine: its counters. */
static struct engine_resource_stats t_res_stats(const struct model *m,
						const char *name)
{
	const struct engine *e = model_engine(m);
	struct engine_resource_stats st = {0};

	for (unsigned r = 0; r < engine_resources(e); r++)
		if (!strcmp(engine_resource_name(e, r), name))
			assert_int_equal(engine_resource_stats(e, (int)r, &st),
					 0);
	return st;
}

/* A write's dedupe work is per 4 KiB chunk, spread over the controller's
 * idle cores (tiers/README.md, "Dedupe's CPU"): on 4 cores, an idle
 * 1 MiB write's 256 chunks of 100 us take 64 rounds, 6.4 ms, where one
 * stage on one core took 25.6 ms; a 4 KiB write is the one stage it
 * always was. Either way one operation of the controller and all of
 * its CPU time busy. */
static void test_dedupe_chunks_spread(void **state)
{
	struct profile *p = t_profile(
	    "[controllers]\ncores = 4\n"
	    "[frontend]\nspeed = 100GbE\n"
	    "[tier flash]\nkind = ssd\ndrives = 1\ncapacity = 100G\n"
	    "raid = raid0\nread_latency = 50us\nwrite_latency = 50us\n"
	    "slots = 64\n"
	    "[dedupe]\nenabled = yes\ncpu_cost = 100us\n");
	struct model_io io = {.op = ENGINE_OP_WRITE, .length = 4096};
	struct model *m = t_model(p, 1.0, 1);
	struct engine_resource_stats st;

	/* Idle: 100 us of CPU, then the drive's 50 (its slots take a
	 * MiB's operations at once). */
	assert_int_equal(model_submit(m, 0, &io), 150 * US);
	st = t_res_stats(m, "ctl0");
	assert_int_equal(st.ops[ENGINE_OP_WRITE], 1);
	assert_int_equal(st.busy_ns, 100 * US);
	model_free(m);

	m = t_model(p, 1.0, 1);
	io.length = MIB;
	assert_int_equal(model_submit(m, 0, &io), 64 * 100 * US + 50 * US);
	st = t_res_stats(m, "ctl0");
	assert_int_equal(st.ops[ENGINE_OP_WRITE], 1);
	assert_int_equal(st.busy_ns, 256 * 100 * US);
	assert_int_equal(st.last_end_ns, 64 * 100 * US);
	model_free(m);
	free(p);
	(void)state;
}

/* The same on xtremio-xbrick, idle, QD1: a 1 MiB write's 25.6 ms of
 * fingerprinting on a controller's 16 cores, 1.6 ms and the request's
 * own work, not 25.6 ms on one core. */
static void test_dedupe_chunks_xbrick(void **state)
{
	char *text = t_builtin_with("xtremio-xbrick", NULL, NULL);
	struct profile *p = t_profile(text);
	struct model *m = t_model(p, 1.0, 1);
	struct model_io io = {.op = ENGINE_OP_WRITE, .length = MIB};
	uint64_t end = model_submit(m, 0, &io);

	print_message("# xtremio-xbrick 1 MiB write, idle, QD1: %.3f ms\n",
		      (double)end / 1e6);
	assert_true(end > 1600 * US);
	assert_true(end < 2500 * US);
	model_free(m);
	free(p);
	free(text);
	(void)state;
}

static void test_model_rejects(void **state)
{
	struct profile *p = t_profile("[array]\nmodel = null\n");
	struct profile *q = t_one_drive(100, 1, "");
	struct model *m;

	assert_int_equal(model_new(p, 1.0, 0, &m), -EINVAL);
	assert_null(m);
	assert_int_equal(model_new(q, 0.0, 0, &m), -EINVAL);
	assert_int_equal(model_new(q, -1.0, 0, &m), -EINVAL);
	model_free(NULL);
	free(p);
	free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_raid5_small_write),
	    cmocka_unit_test(test_raid6_small_write),
	    cmocka_unit_test(test_raid10_and_raid1),
	    cmocka_unit_test(test_raid_full_stripe),
	    cmocka_unit_test(test_raid5_two_stripes),
	    cmocka_unit_test(test_raid5_parity_rotates),
	    cmocka_unit_test(test_raid0_spread),
	    cmocka_unit_test(test_raid_scatter),
	    cmocka_unit_test(test_fixed_latency_qd),
	    cmocka_unit_test(test_bandwidth_cap),
	    cmocka_unit_test(test_link_cap),
	    cmocka_unit_test(test_hdd_random_vs_sequential),
	    cmocka_unit_test(test_same_seed),
	    cmocka_unit_test(test_model_raid_counts),
	    cmocka_unit_test(test_scale),
	    cmocka_unit_test(test_hybrid_paths),
	    cmocka_unit_test(test_write_backlog),
	    cmocka_unit_test(test_write_staging),
	    cmocka_unit_test(test_protocol_iscsi),
	    cmocka_unit_test(test_protocol_baselines),
	    cmocka_unit_test(test_dedupe_skips_drives),
	    cmocka_unit_test(test_dedupe_per_byte),
	    cmocka_unit_test(test_dedupe_chunks_spread),
	    cmocka_unit_test(test_dedupe_chunks_xbrick),
	    cmocka_unit_test(test_model_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
