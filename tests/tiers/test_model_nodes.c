/* tiers/model_nodes: several nodes in the model, in emulated time.
 *
 * Each node a copy of the controllers, links and drives (resources named
 * and counted exactly); fingerprint placement puts each 4 KiB block on
 * one node, uniformly, its RAID work all there, its data across the
 * interconnect when that node did not take the request; an idle remote
 * read costs exactly the two hops more than a local one, and a local one
 * exactly what one node takes; object placement lays members on distinct
 * nodes (raid1 two copies, raid6 4+2 read-modify-write and full
 * stripes); destaging runs on the nodes that hold the data; path ids
 * are array-wide, past the last refused (what the faults do:
 * test_model_node_faults.c).
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

/* 4 nodes of 2 controllers, 2 links and 6 SSDs in RAID 6 (a 4K write:
 * 3 reads, then 3 writes), QDR InfiniBand, one port each, 2 us a hop. */
static const char fingerprint[] =
    "[controllers]\ncount = 2\nmode = active-active\ncores = 4\n"
    "frontend_op_cost = 20us\nbackend_op_cost = 5us\n"
    "[frontend]\nlinks = 2\nspeed = 10GbE\n"
    "[tier flash]\nkind = ssd\ndrives = 6\ncapacity = 100G\nraid = raid6\n"
    "read_latency = 100us\nwrite_latency = 50us\n"
    "[nodes]\ncount = 4\nplacement = fingerprint\ninterconnect = IB-QDR\n"
    "interconnect_latency = 2us\n";

/* 8 nodes of one controller and 2 SSDs (raid0), object placement with
 * [nodes] raid = @raid (printf argument), 64K stripe units. */
static const char object_fmt[] =
    "[controllers]\nfrontend_op_cost = 20us\nbackend_op_cost = 5us\n"
    "[frontend]\nspeed = 25GbE\n"
    "[tier flash]\nkind = nvme\ndrives = 2\ncapacity = 100G\nraid = raid0\n"
    "read_latency = 80us\nwrite_latency = 20us\n"
    "[nodes]\ncount = 8\nplacement = object\nraid = %s\nstripe_unit = 64K\n"
    "interconnect = 25GbE\ninterconnect_links = 2\n"
    "interconnect_latency = 10us\n";

static int t_res(const struct model *m, const char *name)
{
	const struct engine *e = model_engine(m);

	for (unsigned id = 0; id < engine_resources(e); id++)
		if (!strcmp(engine_resource_name(e, (int)id), name))
			return (int)id;
	return -1;
}

static struct engine_resource_stats t_stats(const struct model *m,
					    const char *name)
{
	struct engine_resource_stats st;

	assert_int_equal(
	    engine_resource_stats(model_engine(m), t_res(m, name), &st), 0);
	return st;
}

/* Operations on node @node's @drives flash drives, by kind. */
static void t_node_ops(const struct model *m, unsigned node, unsigned drives,
		       uint64_t ops[ENGINE_OP_COUNT])
{
	ops[0] = ops[1] = 0;
	for (unsigned i = 0; i < drives; i++) {
		char name[32];
		struct engine_resource_stats st;

		snprintf(name, sizeof(name), "flash%u", node * drives + i);
		st = t_stats(m, name);
		ops[0] += st.ops[0];
		ops[1] += st.ops[1];
	}
}

static struct model_io t_io(enum engine_op op, uint64_t off, uint64_t len)
{
	struct model_io io = {.op = op, .offset = off, .length = len};

	return io;
}

static void test_resources(void **state)
{
	struct profile *p = t_profile(fingerprint);
	struct model *m = t_model(p, 1.0, 1);
	static const char *const names[] = {"link0.in", "link7.out", "ctl0",
					    "ctl7",	"flash0",    "flash23",
					    "ic0.0.in", "ic3.0.out"};

	/* 4 x (2 links x 2 directions + 2 controllers + 6 drives + 1
	 * interconnect port x 2 directions). */
	assert_int_equal(engine_resources(model_engine(m)),
			 4 * (4 + 2 + 6 + 2));
	for (unsigned i = 0; i < sizeof(names) / sizeof(*names); i++)
		assert_true(t_res(m, names[i]) >= 0);
	assert_int_equal(t_res(m, "ctl8"), -1);
	assert_int_equal(t_res(m, "flash24"), -1);
	model_free(m);
	free(p);
	(void)state;
}

/* One 4K write on an idle array: all its RAID work on one node; across
 * the interconnect (node 0 took it: the first request comes on link 0)
 * when that node is another. Both happen among the first blocks. */
static void test_fingerprint_one_block(void **state)
{
	struct profile *p = t_profile(fingerprint);
	bool seen[2] = {false, false};

	for (uint64_t b = 0; b < 16; b++) {
		struct model *m = t_model(p, 1.0, 1);
		struct model_io io = t_io(ENGINE_OP_WRITE, b * 4096, 4096);
		unsigned owner = 4, holders = 0;

		model_submit(m, 0, &io);
		for (unsigned n = 0; n < 4; n++) {
			uint64_t ops[2];

			t_node_ops(m, n, 6, ops);
			if (ops[0] + ops[1] == 0)
				continue;
			assert_int_equal(ops[ENGINE_OP_READ], 3);
			assert_int_equal(ops[ENGINE_OP_WRITE], 3);
			owner = n;
			holders++;
		}
		assert_int_equal(holders, 1);
		seen[owner != 0] = true;
		for (unsigned n = 0; n < 4; n++) {
			char in[16], out[16];

			snprintf(in, sizeof(in), "ic%u.0.in", n);
			snprintf(out, sizeof(out), "ic%u.0.out", n);
			assert_int_equal(t_stats(m, in).bytes[1],
					 owner != 0 && n == owner ? 4096 : 0);
			assert_int_equal(t_stats(m, out).bytes[1],
					 owner != 0 && n == 0 ? 4096 : 0);
		}
		model_free(m);
	}
	assert_true(seen[0] && seen[1]);
	free(p);
	(void)state;
}

/* 4000 blocks: each node holds a quarter (1000, binomial sd 27: within
 * 10%), and a 64K write is cut into runs on their nodes (16 blocks). */
static void test_fingerprint_spread(void **state)
{
	struct profile *p = t_profile(fingerprint);
	struct model *m = t_model(p, 1.0, 1);
	struct model_counts c;
	uint64_t total = 0;

	for (uint64_t b = 0; b < 4000; b++) {
		struct model_io io = t_io(ENGINE_OP_WRITE, b * 4096, 4096);

		model_submit(m, b * MS, &io);
	}
	for (unsigned n = 0; n < 4; n++) {
		uint64_t ops[2];

		t_node_ops(m, n, 6, ops);
		assert_int_equal(ops[0] * 1, ops[1]);
		t_assert_within((double)ops[1] / 3, 1000, 0.10);
		total += ops[1] / 3;
	}
	assert_int_equal(total, 4000);
	model_free(m);
	m = t_model(p, 1.0, 1);
	{
		struct model_io io = t_io(ENGINE_OP_WRITE, 0, 64 * KIB);

		model_submit(m, 0, &io);
	}
	model_counts(m, &c);
	/* Each block alone or in runs: never fewer writes than RAID 6 of
	 * one run per node touched, never more than a block each. */
	assert_true(c.drive_ops[ENGINE_OP_WRITE] >= 3 * 1);
	assert_true(c.drive_ops[ENGINE_OP_WRITE] <= 3 * 16);
	model_free(m);
	free(p);
	(void)state;
}

/* An idle 4K read: one node takes request + 20 us front end + 5 us back
 * end + 100 us drive = 125 us; on 4 nodes a local block the same, a
 * remote one two hops (2 us each) and 4096 bytes at 4 GB/s (1024 ns)
 * more. */
static void test_fingerprint_latency(void **state)
{
	char *one_text = strdup(fingerprint);
	struct profile *four = t_profile(fingerprint), *one;
	uint64_t lat[2] = {0, 0};
	bool seen[2] = {false, false};

	*strstr(one_text, "[nodes]") = '\0';
	one = t_profile(one_text);
	{
		struct model *m = t_model(one, 1.0, 1);
		struct model_io io = t_io(ENGINE_OP_READ, 0, 4096);

		assert_int_equal(model_submit(m, 0, &io), 125 * US);
		model_free(m);
	}
	for (uint64_t b = 0; b < 16; b++) {
		struct model *m = t_model(four, 1.0, 1);
		struct model_io io = t_io(ENGINE_OP_READ, b * 4096, 4096);
		uint64_t end = model_submit(m, 0, &io);
		bool remote = t_stats(m, "ic0.0.in").ops[1] > 0;

		assert_int_equal(end,
				 remote ? 125 * US + 4 * US + 1024 : 125 * US);
		seen[remote] = true;
		lat[remote] = end;
		model_free(m);
	}
	assert_true(seen[0] && seen[1]);
	assert_int_equal(lat[1] - lat[0], 5024);
	free(one);
	free(four);
	free(one_text);
	(void)state;
}

/* interconnect_cpu = 3 us: a remote read's two messages cost 6 us on
 * the taking node and 6 on the holding one, in its path (142.024 us);
 * a local read none (125 us). */
static void test_interconnect_cpu(void **state)
{
	char *text = malloc(sizeof(fingerprint) + 32);
	struct profile *p;
	bool seen[2] = {false, false};

	assert_non_null(text);
	snprintf(text, sizeof(fingerprint) + 32, "%sinterconnect_cpu = 3us\n",
		 fingerprint);
	p = t_profile(text);
	for (uint64_t b = 0; b < 16; b++) {
		struct model *m = t_model(p, 1.0, 1);
		struct model_io io = t_io(ENGINE_OP_READ, b * 4096, 4096);
		uint64_t end = model_submit(m, 0, &io);
		bool remote = t_stats(m, "ic0.0.in").ops[1] > 0;

		assert_int_equal(end, remote ? 142 * US + 24 : 125 * US);
		seen[remote] = true;
		model_free(m);
	}
	assert_true(seen[0] && seen[1]);
	free(p);
	free(text);
	(void)state;
}

/* The nodes @m's drives worked on (8 nodes of 2 drives), as a bit set,
 * and the operations by kind. */
static unsigned t_nodes_used(const struct model *m, uint64_t ops[2])
{
	unsigned set = 0;

	ops[0] = ops[1] = 0;
	for (unsigned n = 0; n < 8; n++) {
		uint64_t o[2];

		t_node_ops(m, n, 2, o);
		if (o[0] + o[1])
			set |= 1u << n;
		ops[0] += o[0];
		ops[1] += o[1];
	}
	return set;
}

static struct model *t_object(const char *raid, struct profile **p)
{
	char text[sizeof(object_fmt) + 16];

	snprintf(text, sizeof(text), object_fmt, raid);
	*p = t_profile(text);
	return t_model(*p, 1.0, 1);
}

/* raid1 (FTT=1): a write on two nodes, a read on one; raid6 (4+2): a 4K
 * write reads and writes data, P and Q on three nodes; a full stripe
 * (4 x 64K) writes six nodes and reads none; stripe 1 starts one node
 * on. */
static void test_object_members(void **state)
{
	static const struct {
		const char *raid;
		enum engine_op op;
		uint64_t off, len;
		unsigned nodes, reads, writes, set;
	} cases[] = {
	    {"raid1", ENGINE_OP_WRITE, 0, 4096, 2, 0, 2, 0x03},
	    {"raid1", ENGINE_OP_READ, 0, 4096, 1, 1, 0, 0},
	    {"raid6", ENGINE_OP_WRITE, 0, 4096, 3, 3, 3, 0},
	    {"raid6", ENGINE_OP_WRITE, 0, 256 * KIB, 6, 0, 6, 0x3f},
	    {"raid6", ENGINE_OP_WRITE, 256 * KIB, 256 * KIB, 6, 0, 6, 0x7e},
	    {"raid5", ENGINE_OP_WRITE, 0, 192 * KIB, 4, 0, 4, 0x0f},
	    {"none", ENGINE_OP_WRITE, 3 * 64 * KIB, 4096, 1, 0, 1, 0x08},
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct profile *p;
		struct model *m = t_object(cases[i].raid, &p);
		struct model_io io =
		    t_io(cases[i].op, cases[i].off, cases[i].len);
		uint64_t ops[2];
		unsigned set;

		model_submit(m, 0, &io);
		set = t_nodes_used(m, ops);
		assert_int_equal(__builtin_popcount(set), cases[i].nodes);
		assert_int_equal(ops[0], cases[i].reads);
		assert_int_equal(ops[1], cases[i].writes);
		if (cases[i].set)
			assert_int_equal(set, cases[i].set);
		model_free(m);
		free(p);
	}
	(void)state;
}

/* A hybrid on nodes destages on the nodes that hold the data: raid1,
 * both copies' nodes read their cache and write their backing tier. */
static void test_destage_on_nodes(void **state)
{
	static const char text[] =
	    "[frontend]\nspeed = 25GbE\n"
	    "[tier cache]\nkind = nvme\ndrives = 1\ncapacity = 100G\n"
	    "raid = raid0\nread_latency = 80us\nwrite_latency = 20us\n"
	    "[tier backing]\nkind = nvme\ndrives = 2\ncapacity = 1T\n"
	    "raid = raid0\nread_latency = 80us\nwrite_latency = 20us\n"
	    "[cache]\nsize = 50G\ndestage_rate = 100M/s\n"
	    "[nodes]\ncount = 4\nplacement = object\nraid = raid1\n"
	    "interconnect = 25GbE\n";
	struct profile *p = t_profile(text);
	struct model *m = t_model(p, 1.0, 1);
	struct model_counts c;
	unsigned cache_nodes = 0;

	model_destage(m, 0, 0, 4096);
	model_counts(m, &c);
	assert_int_equal(c.background_ops[ENGINE_OP_READ], 2);
	assert_int_equal(c.background_ops[ENGINE_OP_WRITE], 2);
	for (unsigned n = 0; n < 4; n++) {
		char name[16];

		snprintf(name, sizeof(name), "cache%u", n);
		cache_nodes += t_stats(m, name).ops[ENGINE_OP_READ] == 1;
	}
	assert_int_equal(cache_nodes, 2);
	model_free(m);
	free(p);
	(void)state;
}

/* Paths by array-wide id: 4 nodes of 2 front-end links, 0 to 7. */
static void test_path_ids(void **state)
{
	struct profile *p = t_profile(fingerprint);
	struct model *m = t_model(p, 1.0, 1);
	struct model_fault f = {.kind = MODEL_FAULT_PATH, .id = 8};
	struct model_fault_effect eff;

	assert_int_equal(model_fault(m, 0, &f, true, &eff), -EINVAL);
	f.id = 7;
	assert_int_equal(model_fault(m, 0, &f, true, &eff), 0);
	assert_int_equal(eff.serving, 7);
	model_free(m);
	free(p);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resources),
	    cmocka_unit_test(test_fingerprint_one_block),
	    cmocka_unit_test(test_fingerprint_spread),
	    cmocka_unit_test(test_fingerprint_latency),
	    cmocka_unit_test(test_interconnect_cpu),
	    cmocka_unit_test(test_object_members),
	    cmocka_unit_test(test_destage_on_nodes),
	    cmocka_unit_test(test_path_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
