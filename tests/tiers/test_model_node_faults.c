/* tiers/model_faults.c on several nodes, in emulated time: drive faults
 * by array-wide id (node = id / drives per node). On xtremio-xbrick4 a
 * pulled drive's reads are reconstructed and its rebuild runs on its own
 * brick's drives only (raid6 inside the brick); on vsan-dell-r740xd
 * (raid0 in each host, raid6 across hosts) a lost capacity device's
 * reads come from 4 other hosts' members over the interconnect and its
 * rebuild reads them there; data loss only beyond the protection; an id
 * past the array's drives is refused. Controllers by array-wide id (node
 * = id / controllers per node): a brick's other controller takes over,
 * both of a brick lost is the array down (no redundancy across bricks);
 * a vSAN host down (its one "controller") has its components read from 4
 * other hosts, and a third host down is the array down.
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
#include "tiers/profile_calc.h"
#include "tiers/model_state.h"

/* The built-ins with small drives, so a rebuild is a few
 * hundred chunks (717 MiB at 70% fill). */
static struct profile *xbrick4(void)
{
	char *text = t_builtin_with("xtremio-xbrick4", "capacity = 400G",
				    "capacity = 1G");
	struct profile *p = t_profile(text);

	free(text);
	return p;
}

static struct profile *vsan(void)
{
	char *text = t_builtin_with("vsan-dell-r740xd", "capacity = 3584G",
				    "capacity = 1G");
	struct profile *p = t_profile(text);

	free(text);
	return p;
}

static uint64_t res_bytes(const struct model *m, int res, enum engine_op op)
{
	struct engine_resource_stats st;

	assert_int_equal(engine_resource_stats(model_engine(m), res, &st), 0);
	return st.bytes[op];
}

static uint64_t drive_bytes(const struct model *m, unsigned tier, unsigned id,
			    enum engine_op op)
{
	return res_bytes(m, model_drive_res(m, tier, id), op);
}

/* Bytes into every node's interconnect ports. */
static uint64_t ic_bytes(const struct model *m)
{
	const struct engine *e = model_engine(m);
	uint64_t sum = 0;

	for (unsigned id = 0; id < engine_resources(e); id++) {
		const char *name = engine_resource_name(e, (int)id);

		if (!strncmp(name, "ic", 2) && strstr(name, ".in"))
			sum += res_bytes(m, (int)id, ENGINE_OP_WRITE);
	}
	return sum;
}

static uint64_t t_read4k(struct model *m, uint64_t now, uint64_t off)
{
	struct model_io io = {.op = ENGINE_OP_READ,
			      .offset = off,
			      .length = 4096,
			      .cache_hit = false};

	return model_submit(m, now, &io) - now;
}

/* A 4 KiB-aligned offset whose read, on an idle healthy model of @p,
 * reads drive @id of @tier alone (the placement alone says which: the
 * node that takes the request does not matter). One model, each read a
 * second after the last, idle again. */
static uint64_t offset_on(const struct profile *p, unsigned tier, unsigned id)
{
	struct model *m = t_model(p, 1.0, 1);
	uint64_t t = 0;

	for (uint64_t off = 0; off < (1ull << 34); off += 62 * 4096) {
		uint64_t before = drive_bytes(m, tier, id, ENGINE_OP_READ);

		t_read4k(m, t, off);
		t += S;
		if (drive_bytes(m, tier, id, ENGINE_OP_READ) - before == 4096) {
			model_free(m);
			return off;
		}
	}
	fail_msg("no read reaches drive %u", id);
	return 0;
}

static void pull(struct model *m, uint64_t now, unsigned tier, unsigned id,
		 struct model_fault_effect *eff)
{
	struct model_fault f = {
	    .kind = MODEL_FAULT_DRIVE, .tier = tier, .id = id};

	assert_int_equal(model_fault(m, now, &f, true, eff), 0);
}

/* Drive 30 is brick 1's drive 5: a read of it after detection reads the
 * 23 other members it needs on brick 1; the rebuild reads and writes
 * brick 1's drives only and ends; nothing is lost. */
static void xbrick_drive_pull(void **state)
{
	struct profile *p = xbrick4();
	struct model *m = t_model(p, 1.0, 1);
	uint64_t off = offset_on(p, PROFILE_TIER_FLASH, 30), end;
	struct model_fault_effect eff;
	struct model_drive_view v;
	struct model_counts c;

	pull(m, 0, PROFILE_TIER_FLASH, 30, &eff);
	assert_int_equal(eff.loss, 0);
	assert_int_equal(eff.fail_ns, 30 * S); /* detection_window */
	t_read4k(m, eff.fail_ns, off);
	model_counts(m, &c);
	assert_int_equal(c.drive_ops[ENGINE_OP_READ], 23);
	assert_int_equal(drive_bytes(m, PROFILE_TIER_FLASH, 30, ENGINE_OP_READ),
			 0);
	end = eff.rebuild_end_ns + 600 * S;
	model_advance(m, end);
	assert_int_equal(model_drive_view(m, PROFILE_TIER_FLASH, 30, end, &v),
			 0);
	assert_int_equal(v.state, MODEL_DRIVE_FAILED); /* rebuilt, still out */
	model_counts(m, &c);
	assert_int_equal(c.rebuild_ops[ENGINE_OP_WRITE],
			 eff.rebuild_bytes / MIB +
			     (eff.rebuild_bytes % MIB != 0));
	assert_int_equal(c.rebuild_ops[ENGINE_OP_READ],
			 23 * c.rebuild_ops[ENGINE_OP_WRITE]);
	for (unsigned i = 0; i < 100; i++) {
		uint64_t b =
		    drive_bytes(m, PROFILE_TIER_FLASH, i, ENGINE_OP_WRITE) +
		    drive_bytes(m, PROFILE_TIER_FLASH, i, ENGINE_OP_READ);

		if (i / 25 == 1 && i != 30)
			assert_true(b > 0);
		else if (i / 25 != 1)
			assert_int_equal(b, 0);
	}
	model_free(m);
	free(p);
	(void)state;
}

/* Raid6 inside each brick: a drive out on each of three bricks loses
 * nothing; a third on one brick does. Ids past 99 are refused. */
static void xbrick_loss_and_ids(void **state)
{
	struct profile *p = xbrick4();
	struct model *m = t_model(p, 1.0, 1);
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE, .id = 100};
	struct model_fault_effect eff;
	struct model_drive_view v;

	assert_int_equal(model_fault(m, 0, &f, true, &eff), -EINVAL);
	f.kind = MODEL_FAULT_DRIVE_SLOW;
	f.factor = 3.0;
	assert_int_equal(model_fault(m, 0, &f, true, &eff), -EINVAL);
	f.id = 99;
	assert_int_equal(model_fault(m, 0, &f, true, &eff), 0);
	assert_int_equal(model_drive_view(m, PROFILE_TIER_FLASH, 99, 0, &v), 0);
	assert_int_equal(v.state, MODEL_DRIVE_SLOW);
	pull(m, 0, PROFILE_TIER_FLASH, 0, &eff);
	assert_int_equal(eff.loss, 0);
	pull(m, 0, PROFILE_TIER_FLASH, 25, &eff);
	assert_int_equal(eff.loss, 0);
	pull(m, 0, PROFILE_TIER_FLASH, 50, &eff);
	assert_int_equal(eff.loss, 0);
	pull(m, 0, PROFILE_TIER_FLASH, 26, &eff);
	assert_int_equal(eff.loss, 0); /* brick 1: two of raid6's two */
	pull(m, 0, PROFILE_TIER_FLASH, 27, &eff);
	assert_int_not_equal(eff.loss, 0);
	model_free(m);
	free(p);
	(void)state;
}

/* Capacity device 46 is host 3's device 4 (14 a host). A read of it after
 * detection reads 4 other hosts' members (raid6's data members), whose
 * 4 KiB each cross the interconnect, and costs more than the healthy
 * read; the rebuild reads on other hosts and writes on host 3 only. */
static void vsan_remote_reconstruction(void **state)
{
	struct profile *p = vsan();
	struct model *m = t_model(p, 1.0, 1), *ok = t_model(p, 1.0, 1);
	uint64_t off = offset_on(p, PROFILE_TIER_BACKING, 46), lat, healthy;
	uint64_t ic, before[8];
	struct model_fault_effect eff;
	struct model_counts c;

	pull(m, 0, PROFILE_TIER_BACKING, 46, &eff);
	assert_int_equal(eff.loss, 0);
	assert_true(eff.rebuild_bytes > 0);
	healthy = t_read4k(ok, eff.fail_ns, off);
	/* The rebuild's first chunk starts at fail_ns: book it, then
	 * measure the read alone. */
	model_advance(m, eff.fail_ns);
	ic = ic_bytes(m);
	for (unsigned n = 0; n < 8; n++)
		before[n] = drive_bytes(m, PROFILE_TIER_BACKING, n * 14 + 4,
					ENGINE_OP_READ);
	lat = t_read4k(m, eff.fail_ns, off);
	model_counts(m, &c);
	assert_int_equal(c.drive_ops[ENGINE_OP_READ], 4);
	assert_int_equal(ic_bytes(m) - ic, ic_bytes(ok) + 4 * 4096);
	printf("# remote reconstruction (behind the rebuild's first chunk): "
	       "%.1f us, healthy %.1f us\n",
	       (double)lat / 1e3, (double)healthy / 1e3);
	assert_true(lat > healthy + 2 * 10 * US);
	for (unsigned n = 0; n < 8; n++)
		assert_int_equal(drive_bytes(m, PROFILE_TIER_BACKING,
					     n * 14 + 4, ENGINE_OP_READ) -
				     before[n],
				 n >= 4 ? 4096 : 0);
	model_advance(m, eff.rebuild_end_ns + 600 * S);
	model_counts(m, &c);
	assert_int_equal(c.rebuild_ops[ENGINE_OP_READ],
			 4 * c.rebuild_ops[ENGINE_OP_WRITE]);
	for (unsigned i = 0; i < 8 * 14; i++)
		if (i / 14 != 3)
			assert_int_equal(drive_bytes(m, PROFILE_TIER_BACKING, i,
						     ENGINE_OP_WRITE),
					 0);
	model_free(m);
	model_free(ok);
	free(p);
	(void)state;
}

/* Raid6 across hosts: devices out on two hosts lose nothing, on a third
 * host they do; two devices of one host count as one member. */
static void vsan_loss_across_hosts(void **state)
{
	struct profile *p = vsan();
	struct model *m = t_model(p, 1.0, 1);
	struct model_fault_effect eff;
	unsigned lost = 0;

	pull(m, 0, PROFILE_TIER_BACKING, 0, &eff);
	assert_int_equal(eff.loss, 0);
	pull(m, 0, PROFILE_TIER_BACKING, 1, &eff);
	assert_int_equal(eff.loss, 0);
	pull(m, 0, PROFILE_TIER_BACKING, 14, &eff);
	assert_int_equal(eff.loss, 0);
	pull(m, 0, PROFILE_TIER_BACKING, 28, &eff);
	assert_int_not_equal(eff.loss, 0);
	/* Lost: blocks on device 0 of hosts 0, 1 and 2 whose stripe spans
	 * all three, and whose own member is one of them; some, not all. */
	for (uint64_t pblk = 0; pblk < (1u << 20); pblk += 7)
		lost += model_block_lost(m, eff.loss, pblk);
	printf("# lost %u of %u blocks sampled\n", lost, (1u << 20) / 7 + 1);
	assert_true(lost > 0 && lost < (1u << 20) / 14 / 7);
	model_free(m);
	free(p);
	(void)state;
}

static struct engine_resource_stats res_named(const struct model *m,
					      const char *name)
{
	const struct engine *e = model_engine(m);
	struct engine_resource_stats st;

	for (unsigned id = 0; id < engine_resources(e); id++)
		if (!strcmp(engine_resource_name(e, (int)id), name)) {
			assert_int_equal(engine_resource_stats(e, (int)id, &st),
					 0);
			return st;
		}
	fail_msg("no resource %s", name);
	return st;
}

static void ctl_fault(struct model *m, uint64_t now, unsigned id, bool on,
		      struct model_fault_effect *eff)
{
	struct model_fault f = {.kind = MODEL_FAULT_CONTROLLER, .id = id};

	assert_int_equal(model_fault(m, now, &f, on, eff), 0);
}

/* Controller 2 is brick 1's first: after the failover stall its brick's
 * work all goes to controller 3, the array stays up; controller 3 too is
 * brick 1 down, and with protection only inside the bricks the array is
 * down until one returns. Id 8 of 8 is refused. */
static void xbrick_controller_takeover(void **state)
{
	struct profile *p = xbrick4();
	struct model *m = t_model(p, 1.0, 1);
	struct model_fault f = {.kind = MODEL_FAULT_CONTROLLER, .id = 8};
	struct model_fault_effect eff;
	struct t_workload w = {.block = 4096,
			       .read_frac = 0.7,
			       .random_frac = 1.0,
			       .span_bytes = 1ull << 30,
			       .rng = 7};
	struct t_result r;

	assert_int_equal(model_fault(m, 0, &f, true, &eff), -EINVAL);
	ctl_fault(m, 0, 2, true, &eff);
	assert_false(eff.down);
	assert_int_equal(eff.serving, 7);
	assert_true(eff.stall_until > 0);
	r = t_run(m, &w, 32, 4000);
	assert_true(r.iops > 0);
	assert_int_equal(res_named(m, "ctl2").ops[ENGINE_OP_READ] +
			     res_named(m, "ctl2").ops[ENGINE_OP_WRITE],
			 0);
	assert_true(res_named(m, "ctl3").ops[ENGINE_OP_READ] >
		    res_named(m, "ctl1").ops[ENGINE_OP_READ]);
	ctl_fault(m, 10 * S, 3, true, &eff);
	assert_true(eff.down);
	assert_true(model_down(m));
	ctl_fault(m, 11 * S, 2, false, &eff);
	assert_false(eff.down);
	assert_true(eff.down_changed);
	model_free(m);
	free(p);
	(void)state;
}

/* Host 3 down (controller 3, its one): a read of its capacity device 46
 * is read from 4 other hosts, none of host 3's drives; writes to it are
 * left to the others. Hosts 3 and 4 down: still up (raid6 across hosts);
 * a third: down. */
static void vsan_host_down(void **state)
{
	struct profile *p = vsan();
	struct model *m = t_model(p, 1.0, 1);
	uint64_t off = offset_on(p, PROFILE_TIER_BACKING, 46), t;
	struct model_fault_effect eff;
	struct model_counts c;
	uint64_t host3 = 0;

	ctl_fault(m, 0, 3, true, &eff);
	assert_false(eff.down);
	assert_int_equal(eff.serving, 7);
	t = eff.stall_until + 1 * S;
	t_read4k(m, t, off);
	model_counts(m, &c);
	assert_int_equal(c.drive_ops[ENGINE_OP_READ], 4);
	for (unsigned i = 3 * 14; i < 4 * 14; i++)
		host3 +=
		    drive_bytes(m, PROFILE_TIER_BACKING, i, ENGINE_OP_READ);
	assert_int_equal(host3, 0);
	ctl_fault(m, t, 4, true, &eff);
	assert_false(eff.down);
	ctl_fault(m, t, 5, true, &eff);
	assert_true(eff.down);
	model_free(m);
	free(p);
	(void)state;
}

static void path_fault(struct model *m, uint64_t now, unsigned id, bool on,
		       struct model_fault_effect *eff)
{
	struct model_fault f = {.kind = MODEL_FAULT_PATH, .id = id};

	assert_int_equal(model_fault(m, now, &f, on, eff), 0);
}

/* Closed loop from @t0: @q clients each reading @len sequentially in its
 * own region, @n reads in all; MB/s (decimal) over [t0, last done). */
static double read_mb_s(struct model *m, uint64_t t0, unsigned q, unsigned n,
			uint64_t len)
{
	uint64_t next[64], pos[64], last = t0;

	assert_true(q <= 64);
	for (unsigned c = 0; c < q; c++) {
		next[c] = t0;
		pos[c] = (uint64_t)c << 32;
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned c = 0;
		struct model_io io = {.op = ENGINE_OP_READ, .length = len};

		for (unsigned k = 1; k < q; k++)
			if (next[k] < next[c])
				c = k;
		io.offset = pos[c];
		pos[c] += len;
		next[c] = model_submit(m, next[c], &io);
		last = next[c] > last ? next[c] : last;
	}
	return (double)n * (double)len / 1e6 / ((double)(last - t0) / 1e9);
}

static uint64_t links_bytes(const struct model *m, unsigned from, unsigned to)
{
	uint64_t sum = 0;

	for (unsigned i = from; i < to; i++) {
		char name[32];

		snprintf(name, sizeof(name), "link%u.out", i);
		sum += res_named(m, name).bytes[ENGINE_OP_READ];
	}
	return sum;
}

/* Path 5 is brick 1's front-end port 1 (4 a brick): arrivals stall
 * multipath_timeout (5 s, the default), then the other 15 ports carry
 * everything: link-bound 256 KiB reads get 15/16 of the healthy rate, the
 * port nothing. Path 16 of 16 is refused. */
static void xbrick_path_loss(void **state)
{
	struct profile *p = xbrick4();
	struct model *m = t_model(p, 1.0, 1), *ok = t_model(p, 1.0, 1);
	struct model_fault f = {.kind = MODEL_FAULT_PATH, .id = 16};
	struct model_fault_effect eff;
	uint64_t t0 = 10 * S, before;
	double healthy, lost;

	assert_int_equal(model_fault(m, 0, &f, true, &eff), -EINVAL);
	path_fault(m, t0, 5, true, &eff);
	assert_false(eff.down);
	assert_int_equal(eff.serving, 15);
	assert_int_equal(eff.stall_from, t0);
	assert_int_equal(eff.stall_until, t0 + 5 * S);
	assert_true(t0 + S + t_read4k(m, t0 + S, 0) > t0 + 5 * S);
	before = links_bytes(m, 5, 6);
	healthy = read_mb_s(ok, t0 + 5 * S, 64, 800, 256 * KIB);
	lost = read_mb_s(m, t0 + 5 * S, 64, 800, 256 * KIB);
	printf("# 256 KiB reads: healthy %.0f MB/s, port 5 lost %.0f MB/s\n",
	       healthy, lost);
	t_assert_within(lost / healthy, 15.0 / 16.0, 0.03);
	assert_int_equal(links_bytes(m, 5, 6), before);
	model_free(m);
	model_free(ok);
	free(p);
	(void)state;
}

/* Brick 1's 4 ports all lost: still up, the hosts use the other bricks'
 * 12 ports (link-bound 256 KiB reads at their rate), and brick 1 still serves
 * its blocks (over InfiniBand); all 16 lost is the array down, one back is up
 * again. */
static void xbrick_brick_ports_lost(void **state)
{
	struct profile *p = xbrick4();
	struct model *m = t_model(p, 1.0, 1);
	struct model_fault_effect eff;
	uint64_t drives = 0;
	double mb;

	for (unsigned id = 4; id < 8; id++)
		path_fault(m, 0, id, true, &eff);
	assert_false(eff.down);
	assert_int_equal(eff.serving, 12);
	mb = read_mb_s(m, 10 * S, 64, 800, 256 * KIB);
	printf("# 256 KiB reads on 12 ports: %.0f MB/s\n", mb);
	/* Link-bound: 12 ports' payload rate. */
	t_assert_within(mb, 12 * profile_link_bytes_per_s(&p->fe, 0) / 1e6,
			0.03);
	assert_int_equal(links_bytes(m, 4, 8), 0);
	assert_true(links_bytes(m, 0, 4) > 0 && links_bytes(m, 8, 16) > 0);
	for (unsigned i = 25; i < 50; i++)
		drives += drive_bytes(m, PROFILE_TIER_FLASH, i, ENGINE_OP_READ);
	assert_true(drives > 0);
	for (unsigned id = 0; id < 16; id++)
		if (id < 4 || id >= 8)
			path_fault(m, 20 * S, id, true, &eff);
	assert_true(eff.down && eff.down_changed);
	assert_int_equal(eff.serving, 0);
	path_fault(m, 21 * S, 9, false, &eff);
	assert_false(eff.down);
	assert_true(eff.down_changed);
	model_free(m);
	free(p);
	(void)state;
}

/* 1 MiB-aligned offsets whose 1 MiB read reads host @host's capacity
 * devices alone (object placement: one member), @n of them. */
static void units_on(const struct profile *p, unsigned host, uint64_t *off,
		     unsigned n)
{
	struct model *m = t_model(p, 1.0, 1);
	uint64_t t = 0;
	unsigned got = 0;

	for (uint64_t u = 0; got < n && u < 4096; u++) {
		struct model_io io = {
		    .op = ENGINE_OP_READ, .offset = u * MIB, .length = MIB};
		uint64_t b = 0, a = 0;

		for (unsigned i = host * 14; i < host * 14 + 14; i++)
			b += drive_bytes(m, PROFILE_TIER_BACKING, i,
					 ENGINE_OP_READ);
		model_submit(m, t, &io);
		t += S;
		for (unsigned i = host * 14; i < host * 14 + 14; i++)
			a += drive_bytes(m, PROFILE_TIER_BACKING, i,
					 ENGINE_OP_READ);
		if (a - b == MIB)
			off[got++] = u * MIB;
	}
	assert_int_equal(got, n);
	model_free(m);
}

/* @n reads of 1 MiB at @off, all at @t0: how long until the last ends. */
static uint64_t burst(struct model *m, uint64_t t0, const uint64_t *off,
		      unsigned n)
{
	uint64_t last = t0;

	for (unsigned i = 0; i < n; i++) {
		struct model_io io = {
		    .op = ENGINE_OP_READ, .offset = off[i], .length = MIB};
		uint64_t e = model_submit(m, t0, &io);

		last = e > last ? e : last;
	}
	return last - t0;
}

/* Path 6 is host 3's first vSAN port (2 a host: a local front end, so
 * the paths are the network's): arrivals stall multipath_timeout, then
 * its other port carries all its traffic. A burst of 64 reads of host
 * 3's components, taken on every host, leaves host 3 through one port
 * instead of two: it takes twice as long, each 1 MiB at the port's
 * payload rate. Path 16 of 16 is refused. */
static void vsan_nic_loss(void **state)
{
	struct profile *p = vsan();
	struct model *m = t_model(p, 1.0, 1), *ok = t_model(p, 1.0, 1);
	struct model_fault f = {.kind = MODEL_FAULT_PATH, .id = 16};
	struct model_fault_effect eff;
	uint64_t off[64], t0 = 10 * S, healthy, lost;
	double port = profile_link_bytes_per_s(&p->nodes.net, 0);
	double remote = 56.0 * MIB; /* 8 of 64 are taken on host 3 */

	units_on(p, 3, off, 64);
	assert_int_equal(model_fault(m, 0, &f, true, &eff), -EINVAL);
	path_fault(m, t0, 6, true, &eff);
	assert_false(eff.down);
	assert_int_equal(eff.serving, 15);
	assert_int_equal(eff.stall_until, t0 + 5 * S);
	healthy = burst(ok, t0 + 5 * S, off, 64);
	lost = burst(m, t0 + 5 * S, off, 64);
	printf("# 64 x 1 MiB from host 3: 2 ports %.2f ms, 1 port %.2f ms "
	       "(%.2f ms at one port's rate)\n",
	       (double)healthy / 1e6, (double)lost / 1e6, remote / port * 1e3);
	t_assert_within((double)lost, remote / port * 1e9, 0.1);
	t_assert_within((double)lost / (double)healthy, 2.0, 0.1);
	assert_int_equal(res_named(m, "ic3.0.out").bytes[ENGINE_OP_WRITE], 0);
	model_free(m);
	model_free(ok);
	free(p);
	(void)state;
}

/* Bytes @m wrote on host @host's drives of @tier. */
static uint64_t host_bytes(const struct model *m, unsigned tier, unsigned host,
			   enum engine_op op)
{
	unsigned per = tier == PROFILE_TIER_CACHE ? 2 : 14;
	uint64_t sum = 0;

	for (unsigned i = host * per; i < (host + 1) * per; i++)
		sum += drive_bytes(m, tier, i, op);
	return sum;
}

/* 64 writes of 1 MiB, one every 10 ms from @t0. */
static void writes(struct model *m, uint64_t t0)
{
	for (unsigned i = 0; i < 64; i++) {
		struct model_io io = {.op = ENGINE_OP_WRITE,
				      .offset = (uint64_t)i * 5 * MIB,
				      .length = MIB};

		model_submit(m, t0 + i * 10 * MS, &io);
	}
}

/* Both of host 3's ports lost: it is partitioned, a host down: a read of
 * its device 46 is read from 4 other hosts, none of its drives. Hosts 4
 * and 5 partitioned too: a third host down, the array down. A port of
 * host 3 back: up again, and host 3 resyncs the writes it missed. */
static void vsan_host_partitioned(void **state)
{
	struct profile *p = vsan();
	struct model *m = t_model(p, 1.0, 1);
	uint64_t off = offset_on(p, PROFILE_TIER_BACKING, 46), host3 = 0;
	struct model_fault_effect eff;
	struct model_counts c;

	path_fault(m, 0, 6, true, &eff);
	path_fault(m, 0, 7, true, &eff);
	assert_false(eff.down);
	assert_int_equal(eff.serving, 14);
	t_read4k(m, eff.stall_until + S, off);
	model_counts(m, &c);
	assert_int_equal(c.drive_ops[ENGINE_OP_READ], 4);
	for (unsigned i = 3 * 14; i < 4 * 14; i++)
		host3 +=
		    drive_bytes(m, PROFILE_TIER_BACKING, i, ENGINE_OP_READ);
	assert_int_equal(host3, 0);
	writes(m, eff.stall_until + 2 * S);
	for (unsigned id = 8; id < 11; id++)
		path_fault(m, 10 * S, id, true, &eff);
	assert_false(eff.down); /* host 5 keeps a port */
	path_fault(m, 10 * S, 11, true, &eff);
	assert_true(eff.down && eff.down_changed);
	/* Host 3 reconnected: up again, resyncing what it missed. */
	path_fault(m, 20 * S, 7, false, &eff);
	assert_false(eff.down);
	assert_true(eff.resync);
	assert_int_equal(eff.fail_ns, 20 * S);
	assert_true(eff.rebuild_bytes > 0);
	model_free(m);
	free(p);
	(void)state;
}

/* Host 3 down (its controller) while 64 writes of 1 MiB arrive: what
 * they would have written there (a healthy model's bytes on its write
 * buffers) is what it missed. Back, it resyncs exactly that, spread over
 * its 14 capacity devices (a share each, rounded up), from when it
 * serves, at the rebuild rate: each 1 MiB chunk read from 4 other hosts'
 * members, across the interconnect, written on host 3's drives; the
 * drives show rebuilding with the share left, then ok. */
static void vsan_resync(void **state)
{
	struct profile *p = vsan();
	struct model *m = t_model(p, 1.0, 1), *ok = t_model(p, 1.0, 1);
	const struct profile_tier *pt = &p->tier[PROFILE_TIER_BACKING];
	struct model_fault f = {.kind = MODEL_FAULT_CONTROLLER, .id = 3};
	struct model_fault_effect eff;
	struct model_drive_view v;
	struct model_counts c;
	uint64_t missed, share, chunks, ic, other = 0, end;
	double rate = (double)pt->capacity_bytes * pt->fill_pct / 100.0 / 3600;

	ctl_fault(m, 0, 3, true, &eff);
	writes(m, eff.stall_until);
	writes(ok, eff.stall_until);
	missed = host_bytes(ok, PROFILE_TIER_CACHE, 3, ENGINE_OP_WRITE);
	assert_true(missed > 0);
	assert_int_equal(host_bytes(m, PROFILE_TIER_CACHE, 3, ENGINE_OP_WRITE),
			 0);
	ic = ic_bytes(m);
	for (unsigned h = 0; h < 8; h++)
		other += h == 3 ? 0
				: host_bytes(m, PROFILE_TIER_BACKING, h,
					     ENGINE_OP_READ);
	ctl_fault(m, 10 * S, 3, false, &eff);
	share = (missed + 13) / 14;
	chunks = (share + MIB - 1) / MIB;
	printf("# host 3 missed %.1f MiB: %.2f MiB a device, %.1f s at "
	       "%.0f B/s\n",
	       (double)missed / MIB, (double)share / MIB, (double)share / rate,
	       rate);
	assert_true(eff.resync);
	assert_int_equal(eff.rebuild_bytes, missed);
	assert_int_equal(eff.fail_ns, eff.serves_ns);
	t_assert_within((double)(eff.rebuild_end_ns - eff.fail_ns),
			(double)share / rate * 1e9, 0.001);
	assert_int_equal(model_resync_end(m, &f, eff.fail_ns, &end), -EAGAIN);
	model_advance(m, eff.fail_ns);
	assert_int_equal(model_drive_view(m, PROFILE_TIER_BACKING, 3 * 14 + 5,
					  eff.fail_ns, &v),
			 0);
	assert_int_equal(v.state, MODEL_DRIVE_REBUILDING);
	assert_int_equal(v.rebuild_bytes, share);
	end = eff.rebuild_end_ns + 60 * S;
	model_advance(m, end);
	model_counts(m, &c);
	assert_int_equal(c.rebuild_ops[ENGINE_OP_WRITE], 14 * chunks);
	assert_int_equal(c.rebuild_ops[ENGINE_OP_READ], 4 * 14 * chunks);
	assert_int_equal(
	    host_bytes(m, PROFILE_TIER_BACKING, 3, ENGINE_OP_WRITE),
	    14 * chunks * MIB);
	for (unsigned h = 0; h < 8; h++)
		other -= h == 3 ? 0
				: host_bytes(m, PROFILE_TIER_BACKING, h,
					     ENGINE_OP_READ);
	assert_int_equal(0 - other, 4 * 14 * chunks * MIB);
	assert_int_equal(ic_bytes(m) - ic, 4 * 14 * chunks * MIB);
	assert_int_equal(
	    model_drive_view(m, PROFILE_TIER_BACKING, 3 * 14 + 5, end, &v), 0);
	assert_int_equal(v.state, MODEL_DRIVE_OK);
	/* Over when the drives finish the last chunk, which starts at its
	 * share of the plan (as a drive's rebuild). */
	assert_int_equal(model_resync_end(m, &f, eff.fail_ns, &end), 0);
	assert_true(end > eff.fail_ns + (eff.rebuild_end_ns - eff.fail_ns) /
					    chunks * (chunks - 1));
	assert_true(end < eff.rebuild_end_ns);
	model_free(m);
	model_free(ok);
	free(p);
	(void)state;
}

/* Down again before its resync copied anything: it stops, and what it
 * had to copy is missed again, resynced in full when it is back; a
 * device pulled meanwhile rebuilds whole instead. */
static void vsan_resync_interrupted(void **state)
{
	struct profile *p = vsan();
	struct model *m = t_model(p, 1.0, 1);
	struct model_fault_effect eff;
	struct model_drive_view v;
	uint64_t bytes;

	ctl_fault(m, 0, 3, true, &eff);
	writes(m, eff.stall_until);
	ctl_fault(m, 10 * S, 3, false, &eff);
	bytes = (eff.rebuild_bytes + 13) / 14 * 14;
	ctl_fault(m, 10 * S, 3, true, &eff);
	assert_int_equal(
	    model_drive_view(m, PROFILE_TIER_BACKING, 3 * 14, 10 * S, &v), 0);
	assert_int_equal(v.state, MODEL_DRIVE_OK);
	ctl_fault(m, 20 * S, 3, false, &eff);
	assert_true(eff.resync);
	assert_int_equal(eff.rebuild_bytes, bytes);
	pull(m, 20 * S, PROFILE_TIER_BACKING, 3 * 14, &eff);
	assert_int_equal(
	    eff.rebuild_bytes,
	    (uint64_t)((double)p->tier[PROFILE_TIER_BACKING].capacity_bytes *
		       0.7));
	model_free(m);
	free(p);
	(void)state;
}

/* vsan() with 128M capacity devices (a repair of 90 chunks each) and
 * [nodes] repair_delay 30 s (after the 10 s
 * failover stall and the writes) (the last section). */
static struct profile *vsan_repair30(void)
{
	char *text = t_builtin_with("vsan-dell-r740xd", "capacity = 3584G",
				    "capacity = 128M");
	size_t n = strlen(text);
	char *more = malloc(n + 32);
	struct profile *p;

	assert_non_null(more);
	snprintf(more, n + 32, "%s\nrepair_delay = 30s\n", text);
	p = t_profile(more);
	free(text);
	free(more);
	return p;
}

/* Host 3 down for repair_delay: its capacity devices' used space is
 * rebuilt on the other 7 hosts (chunks read from 4 members, written on
 * the others' drives, none on host 3's), shown as its drives rebuilding.
 * Done: a read of its data reads one copy, not 4; hosts 4 and 5 down too
 * leave the array up (raid6 whole again on 7 hosts); back, host 3 has
 * nothing to resync. */
static void vsan_repair_elsewhere(void **state)
{
	struct profile *p = vsan_repair30();
	const struct profile_tier *pt = &p->tier[PROFILE_TIER_BACKING];
	struct model *m = t_model(p, 1.0, 1);
	uint64_t off = offset_on(p, PROFILE_TIER_BACKING, 46), end;
	uint64_t used = (uint64_t)((double)pt->capacity_bytes * 0.7);
	uint64_t chunks = (used + MIB - 1) / MIB, reads;
	struct model_fault_effect eff;
	struct model_drive_view v;
	struct model_counts c;

	ctl_fault(m, 0, 3, true, &eff);
	writes(m, eff.stall_until);
	model_advance(m, 30 * S - 1);
	assert_int_equal(
	    model_drive_view(m, PROFILE_TIER_BACKING, 46, 30 * S - 1, &v), 0);
	assert_int_equal(v.state, MODEL_DRIVE_OK);
	model_advance(m, 30 * S);
	assert_int_equal(
	    model_drive_view(m, PROFILE_TIER_BACKING, 46, 30 * S, &v), 0);
	assert_int_equal(v.state, MODEL_DRIVE_REBUILDING);
	assert_int_equal(v.rebuild_bytes, used);
	/* used / rate: an hour, at the default rate */
	end = 30 * S + 3700 * S;
	model_advance(m, end);
	assert_int_equal(model_drive_view(m, PROFILE_TIER_BACKING, 46, end, &v),
			 0);
	assert_int_equal(v.state, MODEL_DRIVE_OK);
	model_counts(m, &c);
	assert_int_equal(c.rebuild_ops[ENGINE_OP_WRITE], 14 * chunks);
	assert_int_equal(c.rebuild_ops[ENGINE_OP_READ], 4 * 14 * chunks);
	assert_int_equal(
	    host_bytes(m, PROFILE_TIER_BACKING, 3, ENGINE_OP_WRITE), 0);
	for (unsigned h = 0; h < 8; h++)
		if (h != 3)
			assert_true(host_bytes(m, PROFILE_TIER_BACKING, h,
					       ENGINE_OP_WRITE) > 0);
	t_read4k(m, end, off);
	reads = c.drive_ops[ENGINE_OP_READ];
	model_counts(m, &c);
	assert_int_equal(c.drive_ops[ENGINE_OP_READ] - reads, 1);
	ctl_fault(m, end, 4, true, &eff);
	ctl_fault(m, end, 5, true, &eff);
	assert_false(eff.down);
	ctl_fault(m, end + S, 3, false, &eff);
	assert_false(eff.resync);
	model_free(m);
	free(p);
	(void)state;
}

/* Back while the repair runs: it stops, host 3's drives are its own
 * again, and it resyncs what it missed as without a repair. */
static void vsan_back_during_repair(void **state)
{
	struct profile *p = vsan_repair30();
	struct model *m = t_model(p, 1.0, 1);
	struct model_fault_effect eff;
	struct model_drive_view v;
	uint64_t share;

	ctl_fault(m, 0, 3, true, &eff);
	writes(m, eff.stall_until);
	model_advance(m, 40 * S);
	ctl_fault(m, 40 * S, 3, false, &eff);
	assert_true(eff.resync);
	share = (eff.rebuild_bytes + 13) / 14;
	assert_int_equal(
	    model_drive_view(m, PROFILE_TIER_BACKING, 46, 40 * S, &v), 0);
	assert_int_equal(v.state, MODEL_DRIVE_REBUILDING);
	assert_int_equal(v.rebuild_bytes, share);
	model_free(m);
	free(p);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(xbrick_drive_pull),
	    cmocka_unit_test(xbrick_loss_and_ids),
	    cmocka_unit_test(vsan_remote_reconstruction),
	    cmocka_unit_test(vsan_loss_across_hosts),
	    cmocka_unit_test(xbrick_controller_takeover),
	    cmocka_unit_test(vsan_host_down),
	    cmocka_unit_test(xbrick_path_loss),
	    cmocka_unit_test(xbrick_brick_ports_lost),
	    cmocka_unit_test(vsan_nic_loss),
	    cmocka_unit_test(vsan_host_partitioned),
	    cmocka_unit_test(vsan_resync),
	    cmocka_unit_test(vsan_resync_interrupted),
	    cmocka_unit_test(vsan_repair_elsewhere),
	    cmocka_unit_test(vsan_back_during_repair),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
