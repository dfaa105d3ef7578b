/* Hyper-threading as stated hardware ([controllers] threads_per_core,
 * smt_yield) and the CPU counter named by cpu_counter, at the seam from
 * profile text through the model to the engine's counters, in emulated
 * time.
 *
 * A controller of 4 cores whose every request costs 100 us of CPU, with
 * drives too fast to matter: closed loop, it is CPU-bound. With 2 threads
 * a core and smt_yield 1.25, 8 outstanding (every thread busy) finish
 * 1.25 times as many requests a second as without hyper-threading; 4
 * outstanding (one a core) run as without it; threads_per_core = 1 given
 * is the profile without the key.
 */
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

#define GIB (1024ull * MIB)

static const char base[] =
    "[controllers]\ncores = 4\nfrontend_op_cost = 100us\n%s\n"
    "[frontend]\nspeed = 100GbE\nlinks = 4\n"
    "[tier flash]\nkind = nvme\ndrives = 8\ncapacity = 1T\nraid = raid0\n"
    "read_latency = 1us\nwrite_latency = 1us\nslots = 64\n";

struct t_smt {
	struct t_result r;
	double usage, core, util; /* the three counters, % */
};

/* 4K random reads at @qd outstanding on the profile with @keys. */
static struct t_smt t_smt_run(const char *keys, unsigned qd)
{
	char text[512], label[128];
	struct profile *p;
	struct model *m;
	struct t_workload w = {.block = 4096,
			       .read_frac = 1,
			       .random_frac = 1,
			       .span_bytes = GIB,
			       .rng = 5};
	struct engine_resource_stats st;
	const struct engine *e;
	struct t_smt out;
	unsigned slots;
	int ctl = 0;
	double el;

	snprintf(text, sizeof(text), base, keys);
	p = t_profile(text);
	m = t_model(p, 1.0, 1);
	out.r = t_run(m, &w, qd, 20000);
	e = model_engine(m);
	while (strcmp(engine_resource_name(e, ctl), "ctl0"))
		ctl++;
	engine_resource_stats(e, ctl, &st);
	slots = engine_resource_slots(e, ctl);
	el = (out.r.reads + out.r.writes) / out.r.iops * 1e9;
	for (int c = PROFILE_CPU_USAGE; c <= PROFILE_CPU_UTILIZATION; c++) {
		double *to[] = {&out.usage, &out.core, &out.util};

		p->ctl.cpu_counter = (enum profile_cpu_counter)c;
		*to[c] = 100 * profile_cpu_share(&p->ctl, &st, slots, el);
	}
	snprintf(label, sizeof(label), "%s", keys);
	for (char *c = label; *c; c++)
		*c = *c == '\n' ? ' ' : *c;
	print_message("# %-58s QD%-2u %8.0f IOPS; CPU usage %5.1f%%, core "
		      "%5.1f%%, utilization %5.1f%%\n",
		      label, qd, out.r.iops, out.usage, out.core, out.util);
	model_free(m);
	free(p);
	return out;
}

static void test_smt_capacity(void **state)
{
	struct t_smt one = t_smt_run("", 8);
	struct t_smt given = t_smt_run("threads_per_core = 1", 8);
	struct t_smt ht =
	    t_smt_run("threads_per_core = 2\nsmt_yield = 1.25", 8);
	struct t_smt none = t_smt_run("threads_per_core = 2\nsmt_yield = 1", 8);

	/* The stated default is no change at all. */
	assert_true(one.r.iops == given.r.iops);
	assert_true(one.r.mean_lat_us == given.r.mean_lat_us);
	/* CPU-bound at every thread busy: smt_yield times the work. */
	t_assert_within(ht.r.iops / one.r.iops, 1.25, 0.03);
	/* A second thread that adds nothing adds nothing. */
	t_assert_within(none.r.iops / one.r.iops, 1.0, 0.01);
	/* Saturated: every core busy by time, every thread too; a core
	 * with both threads busy counts once. */
	assert_true(ht.usage > 97 && ht.core > 97 && ht.util > 97);
	assert_true(ht.usage <= 100 && ht.core <= 100 && ht.util <= 100);
	assert_true(one.usage == one.util && one.core == one.util);
	(void)state;
}

/* One request a core: the scheduler spreads them, each core runs one
 * thread at full speed, and the thread counter reads half the core
 * counters. */
static void test_smt_spread(void **state)
{
	struct t_smt one = t_smt_run("", 4);
	struct t_smt ht = t_smt_run(
	    "threads_per_core = 2\nsmt_yield = 1.25\ncpu_counter = core", 4);

	t_assert_within(ht.r.iops, one.r.iops, 0.001);
	t_assert_within(ht.core, one.core, 0.001);
	t_assert_within(ht.usage, ht.core, 0.001);
	t_assert_within(ht.util, ht.core / 2, 0.001);
	(void)state;
}

/* profile show prints the keys and they load back to the same. */
static void test_smt_round_trip(void **state)
{
	char text[512], *once, *twice;
	struct profile *p;

	snprintf(text, sizeof(text), base,
		 "threads_per_core = 2\nsmt_yield = 1.25\n"
		 "cpu_counter = utilization");
	p = t_profile(text);
	once = t_print(p);
	assert_non_null(strstr(once, "\nthreads_per_core = 2\n"
				     "smt_yield = 1.25\n"
				     "cpu_counter = utilization\n"));
	free(p);
	p = t_profile(once);
	twice = t_print(p);
	assert_string_equal(strchr(once, '\n'), strchr(twice, '\n'));
	assert_int_equal(p->ctl.threads_per_core, 2);
	assert_true(p->ctl.smt_yield == 1.25);
	assert_int_equal(p->ctl.cpu_counter, PROFILE_CPU_UTILIZATION);
	free(once);
	free(twice);
	free(p);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_smt_capacity),
	    cmocka_unit_test(test_smt_spread),
	    cmocka_unit_test(test_smt_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
