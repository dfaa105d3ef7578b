/* tiers/model_faults.c: array-level faults in emulated time (no FUSE, no
 * sleeping). Fixed latencies and no load, so times and counts are exact:
 * a stall moves an arrival to its end; a degraded raid5/6 read reads
 * width - parity members; a rebuild lasts used / rate; a slow drive's
 * service is multiplied; the array shuts down beyond the controllers'
 * tolerance; the same seed gives the same times.
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
#include "tiers/engine.h"
#include "tiers/model_state.h"
#include "tiers/placement.h"
#include "tiers/raid.h"

/* 3 active-active controllers, 2 links, raid5 of 4 SSDs; fixed 100 us
 * reads, no CPU cost: an idle read takes exactly the same every time. */
static const char t_flash[] =
    "[controllers]\ncount = 3\nmode = active-active\ncores = 8\n"
    "failover_time = 10s\nrecovery_time = 2s\n"
    "[frontend]\nlinks = 2\nspeed = 100GbE\nmultipath_timeout = 5s\n"
    "[tier flash]\nkind = ssd\ndrives = %u\ncapacity = 1G\nraid = %s\n"
    "stripe_width = %u\nread_latency = 100us\nwrite_latency = 50us\n"
    "slots = 4\nfill = 50%%\nrebuild_rate = 100M/s\n"
    "detection_window = %s\n";

static struct profile *t_flash_profile(unsigned drives, const char *raid,
				       unsigned width, const char *detect)
{
	char text[1024];

	snprintf(text, sizeof(text), t_flash, drives, raid, width, detect);
	return t_profile(text);
}

static uint64_t t_read(struct model *m, uint64_t now, uint64_t off)
{
	struct model_io io = {.op = ENGINE_OP_READ,
			      .offset = off,
			      .length = 4096,
			      .cache_hit = true};

	return model_submit(m, now, &io);
}

static void t_fault(struct model *m, uint64_t now, enum model_fault_kind kind,
		    unsigned id, bool on, struct model_fault_effect *eff)
{
	struct model_fault f = {.kind = kind, .id = id, .factor = 4.0};

	assert_int_equal(model_fault(m, now, &f, on, eff), 0);
}

/* Foreground drive reads one 4 KiB host read costs at @now. */
static uint64_t t_reads_of(struct model *m, uint64_t now, uint64_t off)
{
	struct model_counts before, after;

	model_counts(m, &before);
	t_read(m, now, off);
	model_counts(m, &after);
	return after.drive_ops[ENGINE_OP_READ] -
	       before.drive_ops[ENGINE_OP_READ];
}

/* Which drive serves a 4 KiB read at @off. */
static unsigned t_drive_of(const struct profile *p, uint64_t off)
{
	static struct raid_plan plan;

	assert_int_equal(raid_plan(&p->tier[PROFILE_TIER_FLASH], ENGINE_OP_READ,
				   off, 4096, &plan),
			 0);
	assert_int_equal(plan.n, 1);
	return plan.ops[0].drive;
}

static void controller_stall_exact(void **state)
{
	struct profile *p = t_flash_profile(4, "raid5", 4, "30s");
	struct model *m = t_model(p, 1.0, 7);
	struct model_fault_effect eff;
	uint64_t base = t_read(m, 0, 0);

	t_fault(m, 1 * S, MODEL_FAULT_CONTROLLER, 0, true, &eff);
	assert_int_equal(eff.stall_from, 1 * S);
	assert_int_equal(eff.stall_until, 11 * S);
	assert_int_equal(eff.serving, 2);
	assert_false(eff.down);
	/* Arriving in the stall: done exactly its latency after its end. */
	assert_int_equal(t_read(m, 3 * S, 0), 11 * S + base);
	assert_int_equal(t_read(m, 11 * S - 1, 0), 11 * S + base);
	/* After it: as before. */
	assert_int_equal(t_read(m, 12 * S, 0), 12 * S + base);
	/* At 10x scale the stall is a tenth. */
	model_free(m);
	m = t_model(p, 10.0, 7);
	t_fault(m, 1 * S, MODEL_FAULT_CONTROLLER, 1, true, &eff);
	assert_int_equal(eff.stall_until, 2 * S);
	model_free(m);
	free(p);
	(void)state;
}

/* Issue 13, point 4: --time-scale divides fault durations apart from
 * --scale: at scale 1, time scale 10, a 10 s failover stalls 1 s, the
 * 30 s detection window is 3 s and the rebuild a tenth as long, while a
 * read takes what it takes at scale 1. */
static void time_scale_apart_from_scale(void **state)
{
	struct profile *p = t_flash_profile(4, "raid5", 4, "30s");
	struct model *m1 = t_model(p, 1.0, 7), *m, *bad;
	struct model_fault_effect eff, eff1;
	uint64_t base = t_read(m1, 0, 0);

	assert_int_equal(model_new_timed(p, 1.0, 10.0, 7, &m), 0);
	assert_int_equal(t_read(m, 0, 0), base);
	t_fault(m, 1 * S, MODEL_FAULT_CONTROLLER, 0, true, &eff);
	assert_int_equal(eff.stall_until, 2 * S);
	assert_int_equal(t_read(m, 3 * S, 0), 3 * S + base);
	t_fault(m, 4 * S, MODEL_FAULT_DRIVE, 1, true, &eff);
	assert_int_equal(eff.fail_ns, 7 * S);
	t_fault(m1, 4 * S, MODEL_FAULT_DRIVE, 1, true, &eff1);
	t_assert_within((double)(eff.rebuild_end_ns - eff.fail_ns),
			(double)(eff1.rebuild_end_ns - eff1.fail_ns) / 10,
			1e-6);
	assert_int_equal(model_new_timed(p, 1.0, 0.0, 7, &bad), -EINVAL);
	model_free(m);
	model_free(m1);
	free(p);
	(void)state;
}

static void controller_shutdown_and_recovery(void **state)
{
	struct profile *p = t_flash_profile(4, "raid5", 4, "30s");
	struct model *m = t_model(p, 1.0, 7);
	struct model_fault_effect eff;
	struct model_fault bad = {.kind = MODEL_FAULT_CONTROLLER, .id = 3};
	uint64_t base = t_read(m, 0, 0);

	assert_int_equal(model_fault(m, 0, &bad, true, &eff), -EINVAL);
	t_fault(m, 1 * S, MODEL_FAULT_CONTROLLER, 0, true, &eff);
	assert_false(model_down(m));
	bad.id = 0;
	assert_int_equal(model_fault(m, 1 * S, &bad, true, &eff), -EALREADY);
	/* Two of three: a majority down, the array shuts itself down. */
	t_fault(m, 20 * S, MODEL_FAULT_CONTROLLER, 1, true, &eff);
	assert_true(eff.down);
	assert_true(eff.down_changed);
	assert_int_equal(eff.stall_until, 0);
	assert_true(model_down(m));
	t_fault(m, 30 * S, MODEL_FAULT_CONTROLLER, 1, false, &eff);
	assert_false(eff.down);
	assert_true(eff.down_changed);
	assert_int_equal(eff.serves_ns, 32 * S);
	t_fault(m, 40 * S, MODEL_FAULT_CONTROLLER, 0, false, &eff);
	assert_int_equal(t_read(m, 50 * S, 0), 50 * S + base);
	model_free(m);
	free(p);
	(void)state;
}

/* Active-standby: the standby failing stalls nothing; the active one
 * failing stalls, and the last one failing shuts the array down. */
static void standby_failover(void **state)
{
	struct profile *p = t_profile(
	    "[controllers]\ncount = 2\nmode = active-standby\n"
	    "failover_time = 3s\nshutdown = block\n"
	    "[frontend]\nspeed = 10GbE\n"
	    "[tier flash]\nkind = ssd\ndrives = 2\ncapacity = 1G\n"
	    "raid = raid1\nread_latency = 100us\nwrite_latency = 50us\n");
	struct model *m = t_model(p, 1.0, 1);
	struct model_fault_effect eff;

	assert_int_equal(p->ctl.shutdown, PROFILE_SHUTDOWN_BLOCK);
	t_fault(m, 1 * S, MODEL_FAULT_CONTROLLER, 1, true, &eff);
	assert_int_equal(eff.stall_until, 0);
	t_fault(m, 2 * S, MODEL_FAULT_CONTROLLER, 1, false, &eff);
	t_fault(m, 3 * S, MODEL_FAULT_CONTROLLER, 0, true, &eff);
	assert_int_equal(eff.stall_until, 6 * S);
	assert_false(eff.down);
	t_fault(m, 7 * S, MODEL_FAULT_CONTROLLER, 1, true, &eff);
	assert_true(eff.down);
	model_free(m);
	free(p);
	(void)state;
}

static void path_loss(void **state)
{
	struct profile *p = t_flash_profile(4, "raid5", 4, "30s");
	struct model *m = t_model(p, 1.0, 7);
	struct model_fault_effect eff;
	struct engine_resource_stats before, after;
	uint64_t base = t_read(m, 0, 0);

	t_fault(m, 1 * S, MODEL_FAULT_PATH, 0, true, &eff);
	assert_int_equal(eff.stall_until, 6 * S);
	assert_int_equal(eff.serving, 1);
	assert_int_equal(t_read(m, 2 * S, 0), 6 * S + base);
	/* Afterwards everything takes link 1: link0.out (resource 0)
	 * sees nothing. */
	engine_resource_stats(model_engine(m), 0, &before);
	for (unsigned i = 0; i < 10; i++)
		t_read(m, 7 * S + i * MS, 0);
	engine_resource_stats(model_engine(m), 0, &after);
	assert_string_equal(engine_resource_name(model_engine(m), 0),
			    "link0.out");
	assert_int_equal(after.ops[ENGINE_OP_READ], before.ops[ENGINE_OP_READ]);
	/* The last path too: shut down, no stall. */
	t_fault(m, 8 * S, MODEL_FAULT_PATH, 1, true, &eff);
	assert_true(eff.down);
	assert_int_equal(eff.stall_until, 0);
	model_free(m);
	free(p);
	(void)state;
}

/* Link @l's reads so far (its outbound resource, "link<l>.out"). */
static uint64_t link_reads(const struct model *m, unsigned l)
{
	const struct engine *e = model_engine(m);
	char name[32];

	snprintf(name, sizeof(name), "link%u.out", l);
	for (unsigned r = 0; r < engine_resources(e); r++) {
		struct engine_resource_stats st;

		if (strcmp(engine_resource_name(e, (int)r), name))
			continue;
		engine_resource_stats(e, (int)r, &st);
		return st.ops[ENGINE_OP_READ];
	}
	fail_msg("no resource %s", name);
	return 0;
}

/* One of 4 links lost: after the stall the hosts' multipathing spreads
 * its share over the 3 left, a third each, not onto the next link alone
 * (which would carry half the load and halve a link-bound rate). */
static void path_loss_spreads(void **state)
{
	struct profile *p = t_profile(
	    "[controllers]\ncount = 2\nmode = active-active\n"
	    "[frontend]\nlinks = 4\nspeed = 10GbE\nmultipath_timeout = 5s\n"
	    "[tier flash]\nkind = ssd\ndrives = 2\ncapacity = 1G\n"
	    "raid = raid1\nread_latency = 100us\nwrite_latency = 50us\n");
	struct model *m = t_model(p, 1.0, 1);
	struct model_fault_effect eff;
	uint64_t before[4];

	t_fault(m, 1 * S, MODEL_FAULT_PATH, 2, true, &eff);
	for (unsigned l = 0; l < 4; l++)
		before[l] = link_reads(m, l);
	for (unsigned i = 0; i < 300; i++)
		t_read(m, 7 * S + i * MS, 0);
	assert_int_equal(link_reads(m, 2), before[2]);
	for (unsigned l = 0; l < 4; l++)
		if (l != 2)
			assert_int_equal(link_reads(m, l) - before[l], 100);
	model_free(m);
	free(p);
	(void)state;
}

/* raid5 of 4: a read of the lost drive reads the 3 others; raid6 of 6:
 * the 4 a stripe needs; raid10: the mirror. */
static void degraded_read_counts(void **state)
{
	static const struct {
		const char *raid;
		unsigned drives, width, reads;
	} cases[] = {{"raid5", 4, 4, 3},
		     {"raid6", 6, 6, 4},
		     {"raid10", 4, 0, 1},
		     {"raid5", 8, 4, 3}};

	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct profile *p = t_flash_profile(
		    cases[c].drives, cases[c].raid, cases[c].width, "0");
		struct model *m = t_model(p, 1.0, 7);
		struct model_fault_effect eff;
		struct model_fault f = {.kind = MODEL_FAULT_DRIVE};
		/* A drive offset beyond what the rebuild reaches by 1 s. */
		uint64_t off = 256 * MIB;

		f.id = t_drive_of(p, off);
		assert_int_equal(t_reads_of(m, 0, off), 1);
		assert_int_equal(model_fault(m, 1 * S, &f, true, &eff), 0);
		assert_int_equal(eff.fail_ns, 1 * S);
		assert_int_equal(t_reads_of(m, 1 * S + MS, off),
				 cases[c].reads);
		/* Another drive's data reads as before. */
		assert_int_equal(
		    t_reads_of(m, 1 * S + 2 * MS, off + 64 * KIB),
		    t_drive_of(p, off + 64 * KIB) == f.id ? cases[c].reads : 1);
		model_free(m);
		free(p);
	}
	(void)state;
}

/* Used 512 MiB at 100 MiB/s: 5.12 s; the rebuilt part reads
 * normally while the rest is reconstructed; after it, all normal. */
static void rebuild_duration(void **state)
{
	struct profile *p = t_flash_profile(4, "raid5", 4, "0");
	struct model *m = t_model(p, 1.0, 7);
	struct model_fault_effect eff;
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE};
	struct model_counts c;
	double want = 512.0 / 100.0;
	uint64_t lo = 0, hi = 3 * 64 * KIB * 3000; /* drive offset 187.5M */

	f.id = t_drive_of(p, lo);
	assert_int_equal(t_drive_of(p, hi), f.id);
	assert_int_equal(model_fault(m, 1 * S, &f, true, &eff), 0);
	assert_int_equal(eff.rebuild_bytes, 512 * MIB);
	t_assert_within((double)(eff.rebuild_end_ns - eff.fail_ns) / 1e9, want,
			0.01);
	/* At 1 s in, 100 MiB are rebuilt: offset 0 yes, 187.5 MiB no. */
	assert_int_equal(t_reads_of(m, 2 * S, lo), 1);
	assert_int_equal(t_reads_of(m, 2 * S, hi), 3);
	assert_int_equal(t_reads_of(m, eff.rebuild_end_ns - 1, hi), 1);
	/* The rebuild ran on the drives, every chunk of it though no
	 * request came between: 3 reads + 1 write per 1 MiB chunk, all 512
	 * but the last one due (at the plan's end less a chunk's share). */
	model_counts(m, &c);
	assert_true(c.rebuild_ops[ENGINE_OP_WRITE] >= 511);
	assert_true(c.rebuild_ops[ENGINE_OP_WRITE] <= 512);
	assert_int_equal(c.rebuild_ops[ENGINE_OP_READ],
			 3 * c.rebuild_ops[ENGINE_OP_WRITE]);
	/* A second failure loses data: taken, as a loss event
	 * (test_placement.c checks what it lost). */
	f.id = (f.id + 1) % 4;
	assert_int_equal(model_fault(m, 3 * S, &f, true, &eff), 0);
	assert_int_equal(eff.loss, 1);
	model_free(m);
	free(p);
	(void)state;
}

/* A block whose copy reads back wrong is rebuilt from the rest of its
 * stripe while the stripe can spare that copy: on raid5 not with another
 * member out, on raid6 yes; on raid0 never. */
static void rotted_block_repairable(void **state)
{
	static const char *const raids[] = {"raid5", "raid6", "raid0"};

	for (unsigned k = 0; k < 3; k++) {
		struct profile *p = t_flash_profile(4, raids[k], 4, "0");
		struct model *m = t_model(p, 1.0, 7);
		struct model_fault f = {.kind = MODEL_FAULT_DRIVE};
		struct model_fault_effect eff;
		struct placement pl;
		uint64_t pblk = 100;

		placement_init(&pl, &p->tier[PROFILE_TIER_FLASH], 7);
		f.id = (placement_drive(&pl, pblk) + 1) % 4;
		assert_int_equal(model_block_repairable(m, 1 * S, pblk), k < 2);
		assert_int_equal(model_fault(m, 1 * S, &f, true, &eff), 0);
		/* Another member out: raid6 still has a parity to spare. */
		assert_int_equal(model_block_repairable(m, 2 * S, pblk),
				 k == 1);
		assert_int_equal(model_fault(m, 2 * S, &f, false, &eff), 0);
		/* Rebuilt: whole again. */
		model_advance(m, eff.rebuild_end_ns);
		assert_int_equal(
		    model_block_repairable(m, eff.rebuild_end_ns, pblk), k < 2);
		/* Its own drive out: the other members rebuild it anyway. */
		f.id = placement_drive(&pl, pblk);
		assert_int_equal(
		    model_fault(m, eff.rebuild_end_ns, &f, true, &eff), 0);
		model_advance(m, eff.fail_ns + 1 * S);
		assert_int_equal(
		    model_block_repairable(m, eff.fail_ns + 1 * S, pblk),
		    k < 2);
		model_free(m);
		free(p);
	}
	(void)state;
}

/* Pulled and back within the detection window: nothing at all. */
static void quick_pull_unnoticed(void **state)
{
	struct profile *p = t_flash_profile(4, "raid5", 4, "30s");
	struct model *m = t_model(p, 1.0, 7);
	struct model_fault_effect eff;
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE};

	f.id = t_drive_of(p, 0);
	assert_int_equal(model_fault(m, 1 * S, &f, true, &eff), 0);
	assert_int_equal(eff.fail_ns, 31 * S);
	assert_int_equal(t_reads_of(m, 2 * S, 0), 1);
	assert_int_equal(model_fault(m, 10 * S, &f, false, &eff), 0);
	assert_true(eff.unnoticed);
	assert_int_equal(t_reads_of(m, 40 * S, 0), 1);
	f.tier = PROFILE_TIER_CACHE;
	assert_int_equal(model_fault(m, 41 * S, &f, true, &eff), -ENOTSUP);
	f.tier = PROFILE_TIER_FLASH;
	f.id = 4;
	assert_int_equal(model_fault(m, 41 * S, &f, true, &eff), -EINVAL);
	model_free(m);
	free(p);
	(void)state;
}

static void fail_slow(void **state)
{
	struct profile *p = t_flash_profile(4, "raid5", 4, "30s");
	struct model *m = t_model(p, 1.0, 7);
	struct model_fault_effect eff;
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE_SLOW, .factor = 4};
	uint64_t base = t_read(m, 0, 0);

	f.id = t_drive_of(p, 0);
	assert_int_equal(model_fault(m, 1 * S, &f, true, &eff), 0);
	/* 100 us of service becomes 400 us. */
	assert_int_equal(t_read(m, 2 * S, 0) - 2 * S, base + 300 * US);
	assert_int_equal(model_fault(m, 3 * S, &f, false, &eff), 0);
	assert_int_equal(t_read(m, 4 * S, 0) - 4 * S, base);
	f.factor = 0.5;
	assert_int_equal(model_fault(m, 5 * S, &f, true, &eff), -EINVAL);
	model_free(m);
	free(p);
	(void)state;
}

/* A run through every fault kind, twice with one seed. */
static void t_faulty_run(uint64_t seed, uint64_t *done, unsigned n)
{
	struct profile *p = t_profile(
	    "[controllers]\ncount = 3\nmode = active-active\ncores = 2\n"
	    "frontend_op_cost = 20us\nfailover_time = 1s\n"
	    "[frontend]\nlinks = 2\nspeed = 10GbE\nmultipath_timeout = 1s\n"
	    "[tier flash]\nkind = ssd\ndrives = 8\ncapacity = 1G\n"
	    "raid = raid6\nread_latency = p0:50us p50:90us p100:2ms\n"
	    "write_latency = 30us\nslots = 2\nrebuild_rate = 200M/s\n"
	    "detection_window = 0\n");
	struct model *m = t_model(p, 1.0, seed);
	struct model_fault_effect eff;
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE};
	uint64_t r;

	r = 99;
	for (unsigned i = 0; i < n; i++) {
		struct model_io io = {.op = i % 3 ? ENGINE_OP_READ
						  : ENGINE_OP_WRITE,
				      .length = 8192,
				      .cache_hit = true};

		io.offset = prng_next(&r) % (512 * MIB) / 4096 * 4096;
		if (i == n / 4)
			t_fault(m, i * 100 * US, MODEL_FAULT_CONTROLLER, 1,
				true, &eff);
		if (i == n / 3)
			t_fault(m, i * 100 * US, MODEL_FAULT_PATH, 0, true,
				&eff);
		if (i == n / 2)
			assert_int_equal(
			    model_fault(m, i * 100 * US, &f, true, &eff), 0);
		done[i] = model_submit(m, i * 100 * US, &io);
	}
	model_free(m);
	free(p);
}

static void same_seed_same_result(void **state)
{
	static uint64_t a[20000], b[20000], c[20000];

	t_faulty_run(5, a, 20000);
	t_faulty_run(5, b, 20000);
	t_faulty_run(6, c, 20000);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	(void)state;
}

/* Under load, a controller lost costs latency: 3 single-core controllers
 * at 100 us a request carry 25K IOPS at 83% busy; the 2 left share the
 * load evenly and carry 20K at most, so the queue grows. */
static void controller_loss_under_load(void **state)
{
	static const char text[] =
	    "[controllers]\ncount = 3\nmode = active-active\ncores = 1\n"
	    "frontend_op_cost = 100us\nfailover_time = 0\n"
	    "[frontend]\nspeed = 100GbE\n"
	    "[tier flash]\nkind = ssd\ndrives = 8\ncapacity = 1G\n"
	    "raid = raid10\nread_latency = 50us\nwrite_latency = 50us\n"
	    "slots = 32\n";
	struct profile *p = t_profile(text);
	struct model *m3 = t_model(p, 1.0, 3), *m2 = t_model(p, 1.0, 3);
	struct t_workload w3 = {.block = 4096,
				.read_frac = 1.0,
				.random_frac = 1.0,
				.span_bytes = 512 * MIB};
	struct t_workload w2 = w3;
	struct model_fault_effect eff;
	struct t_result r3, r2;

	w3.rng = 1;
	w2.rng = 1;
	t_fault(m2, 0, MODEL_FAULT_CONTROLLER, 2, true, &eff);
	r3 = t_run_rate(m3, &w3, 25000, 20000);
	r2 = t_run_rate(m2, &w2, 25000, 20000);
	printf("# 25K IOPS: 3 controllers %.0f us, %.0f IOPS; 2 of 3 %.0f us, "
	       "%.0f IOPS\n",
	       r3.mean_lat_us, r3.iops, r2.mean_lat_us, r2.iops);
	assert_true(r3.mean_lat_us < 500);
	t_assert_within(r3.iops, 25000, 0.02);
	assert_true(r2.mean_lat_us > 10 * r3.mean_lat_us);
	t_assert_within(r2.iops, 20000, 0.03);
	model_free(m3);
	model_free(m2);
	free(p);
	(void)state;
}

/* Mean latency of @n reads at @rate from @start, one 4 KiB read each. */
static double t_mean_from(struct model *m, uint64_t start, double rate,
			  unsigned n, uint64_t *rng)
{
	double sum = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t at = start + (uint64_t)((double)i * S / rate);
		uint64_t off = prng_next(rng) % (256 * MIB) / 4096 * 4096;

		sum += (double)(t_read(m, at, off) - at);
	}
	return sum / n / 1000.0;
}

/* The rebuild loads the drives the host reads: latency rises while it
 * runs and is back to the baseline once it is done. */
static void rebuild_loads_foreground(void **state)
{
	struct profile *p = t_profile(
	    "[frontend]\nspeed = 100GbE\n"
	    "[tier flash]\nkind = ssd\ndrives = 4\ncapacity = 1G\n"
	    "raid = raid5\nread_latency = 100us\nwrite_latency = 100us\n"
	    "read_bandwidth = 500M/s\nwrite_bandwidth = 500M/s\n"
	    "fill = 50%\nrebuild_rate = 200M/s\ndetection_window = 0\n");
	struct model *m = t_model(p, 1.0, 3);
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE, .id = 3};
	struct model_fault_effect eff;
	uint64_t rng;
	double before, during, after;

	rng = 1;
	before = t_mean_from(m, 0, 2000, 2000, &rng);
	assert_int_equal(model_fault(m, 1 * S, &f, true, &eff), 0);
	during = t_mean_from(m, 1 * S, 2000, 2000, &rng);
	after = t_mean_from(m, eff.rebuild_end_ns + S, 2000, 2000, &rng);
	printf("# reads: %.1f us before, %.1f during the rebuild, %.1f after\n",
	       before, during, after);
	assert_true(during > 1.2 * before);
	t_assert_within(after, before, 0.05);
	model_free(m);
	free(p);
	(void)state;
}

/* Issue 13, point 7: a rebuild runs on its own clock. 4 SSDs in raid5,
 * 512 MiB used, 200 MiB/s: 2.56 s on idle drives. */
static const char rebuild_text[] =
    "[frontend]\nspeed = 100GbE\n"
    "[tier flash]\nkind = ssd\ndrives = 4\ncapacity = 1G\n"
    "raid = raid5\nread_latency = 100us\nwrite_latency = 100us\n"
    "read_bandwidth = 500M/s\nwrite_bandwidth = 500M/s\n"
    "fill = 50%\nrebuild_rate = 200M/s\ndetection_window = 0\n";

/* With no request while it runs, the rebuild still does all its work on
 * the drives (not 0 IOPS once the host stops) and is over at used / rate:
 * a request long after finds every chunk booked and nothing degraded. */
static void rebuild_runs_without_host_io(void **state)
{
	struct profile *p = t_profile(rebuild_text);
	struct model *m = t_model(p, 1.0, 3);
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE, .id = 3};
	struct model_fault_effect eff;
	struct engine_resource_stats st;
	struct model_drive_view v;
	struct model_counts c;
	uint64_t written = 0;

	assert_int_equal(model_fault(m, 1 * S, &f, true, &eff), 0);
	t_assert_within((double)(eff.rebuild_end_ns - eff.fail_ns) / 1e9,
			512.0 / 200.0, 0.001);
	/* Half way, idle: the state read then has half of it done. */
	model_advance(m, eff.fail_ns + (eff.rebuild_end_ns - eff.fail_ns) / 2);
	assert_int_equal(
	    model_drive_view(
		m, PROFILE_TIER_FLASH, 3,
		eff.fail_ns + (eff.rebuild_end_ns - eff.fail_ns) / 2, &v),
	    0);
	assert_int_equal(v.state, MODEL_DRIVE_REBUILDING);
	t_assert_within((double)v.rebuild_left, 256.0 * MIB, 0.01);
	/* Long after, the first request: the drives did it all. */
	t_read(m, eff.rebuild_end_ns + 10 * S, 0);
	model_counts(m, &c);
	assert_int_equal(c.rebuild_ops[ENGINE_OP_WRITE], 512);
	assert_int_equal(c.rebuild_ops[ENGINE_OP_READ], 3 * 512);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(engine_resource_stats(
				     model_engine(m),
				     model_drive_res(m, PROFILE_TIER_FLASH, i),
				     &st),
				 0);
		written += st.bytes[ENGINE_OP_WRITE];
	}
	assert_int_equal(written, 512 * MIB);
	model_free(m);
	free(p);
	(void)state;
}

/* With the host keeping the drives busy the rebuild competes: it takes
 * longer than used / rate (still rebuilding at 1.5 x that), the host's
 * latency rises while it runs, and it does end. */
static void rebuild_slower_under_load(void **state)
{
	struct profile *p = t_profile(rebuild_text);
	struct model *m = t_model(p, 1.0, 3), *idle = t_model(p, 1.0, 3);
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE, .id = 3};
	struct model_fault_effect eff;
	struct model_drive_view v;
	struct model_counts c;
	struct t_workload w = {.block = 1 * MIB,
			       .read_frac = 1.0,
			       .random_frac = 1.0,
			       .span_bytes = 512 * MIB,
			       .rng = 5};
	struct t_workload w2 = w;
	struct t_result r, base;
	uint64_t plan, t;

	assert_int_equal(model_fault(m, 0, &f, true, &eff), 0);
	plan = eff.rebuild_end_ns - eff.fail_ns;
	r = t_run(m, &w, 16, 8000);
	base = t_run(idle, &w2, 16, 8000);
	t = (uint64_t)(8000 / r.iops * 1e9);
	printf("# rebuild %.2f s planned; host 1M reads at QD 16: %.0f us, "
	       "%.0f IOPS for %.2f s (%.0f us without the fault)\n",
	       (double)plan / 1e9, r.mean_lat_us, r.iops, (double)t / 1e9,
	       base.mean_lat_us);
	assert_true(t > 2 * plan);
	assert_true(r.mean_lat_us > 1.2 * base.mean_lat_us);
	assert_int_equal(model_drive_view(m, PROFILE_TIER_FLASH, 3,
					  eff.fail_ns + plan * 3 / 2, &v),
			 0);
	assert_int_equal(v.state, MODEL_DRIVE_REBUILDING);
	/* It ends (all its chunks written), with the host gone. */
	t_read(m, t + 60 * S, 0);
	model_counts(m, &c);
	assert_int_equal(c.rebuild_ops[ENGINE_OP_WRITE], 512);
	assert_int_equal(
	    model_drive_view(m, PROFILE_TIER_FLASH, 3, t + 60 * S, &v), 0);
	assert_int_equal(v.state, MODEL_DRIVE_FAILED); /* rebuilt, still out */
	model_free(m);
	model_free(idle);
	free(p);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(controller_stall_exact),
	    cmocka_unit_test(time_scale_apart_from_scale),
	    cmocka_unit_test(rebuild_runs_without_host_io),
	    cmocka_unit_test(rebuild_slower_under_load),
	    cmocka_unit_test(controller_shutdown_and_recovery),
	    cmocka_unit_test(standby_failover),
	    cmocka_unit_test(path_loss),
	    cmocka_unit_test(path_loss_spreads),
	    cmocka_unit_test(degraded_read_counts),
	    cmocka_unit_test(rebuild_duration),
	    cmocka_unit_test(quick_pull_unnoticed),
	    cmocka_unit_test(fail_slow),
	    cmocka_unit_test(same_seed_same_result),
	    cmocka_unit_test(controller_loss_under_load),
	    cmocka_unit_test(rebuild_loads_foreground),
	    cmocka_unit_test(rotted_block_repairable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
