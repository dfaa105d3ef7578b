/* The built-in profiles: each loads, prints back to itself, and the
 * calibrated ones reproduce their published figures (arrays.md) in
 * emulated time, under the assumptions their comments state (queue
 * depth, block sizes, hit ratios).
 *
 * This is the model alone, no FUSE: it checks the calibration, not the
 * host. The same figures end to end, with fio on a mount, are
 * tests/integration/profile_figures.sh. Each row prints "model vs
 * published", so `meson test -v` is the table.
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

/* ---- every built-in ---------------------------------------------------- */

static void test_builtins_print_back(void **state)
{
	unsigned n = 0;

	for (const struct profile_builtin *b = profile_builtins(); b->name;
	     b++, n++) {
		struct profile *p = malloc(sizeof(*p));
		char err[PROFILE_ERR_LEN], *once, *twice;

		assert_non_null(p);
		if (profile_load(b->name, p, err, sizeof(err)))
			print_message("# %s\n", err);
		assert_string_equal(p->name, b->name);
		assert_true(strlen(p->description) > 10);
		once = t_print(p);
		/* What show prints loads to a profile that prints the same
		 * (the first line names the file, so is skipped). */
		assert_int_equal(
		    profile_parse_string(once, b->name, p, err, sizeof(err)),
		    0);
		twice = t_print(p);
		assert_string_equal(strchr(once, '\n'), strchr(twice, '\n'));
		free(once);
		free(twice);
		free(p);
		if (b[1].name)
			assert_true(strcmp(b->name, b[1].name) < 0);
	}
	assert_int_equal(n, 18);
}

/* ---- the published figures ---------------------------------------------- */

enum t_metric { T_IOPS, T_MB_S };

struct t_figure {
	const char *profile;
	const char *what;
	unsigned qd;
	uint64_t block;
	double read_frac, random_frac, hit_frac;
	bool one_stream;
	enum t_metric metric;
	double published;
	/* Not fitted on: the profile's numbers come from other figures
	 * and the hardware (the .ini says which); else fitted. */
	bool predicted;
};

#define CDM(what, qd, block, rd, rnd, metric, value, pred)                     \
	{                                                                      \
		"micron-m600", what, qd, block, rd, rnd, 0, true, metric,      \
		    value, pred                                                \
	}
#define NAS(what, qd, block, rd, rnd, metric, value, pred)                     \
	{                                                                      \
		"synology-1813-raid5-1gbe", what, qd, block, rd, rnd, 0, true, \
		    metric, value, pred                                        \
	}

static const struct t_figure figures[] = {
    CDM("SEQ read Q32T1", 32, 128 * KIB, 1, 0, T_MB_S, 560.129, true),
    CDM("SEQ write Q32T1", 32, 128 * KIB, 0, 0, T_MB_S, 511.183, true),
    CDM("RND4K read Q32T1", 32, 4096, 1, 1, T_IOPS, 87394.0, false),
    CDM("RND4K write Q32T1", 32, 4096, 0, 1, T_IOPS, 89348.1, false),
    CDM("SEQ read Q1T1", 1, MIB, 1, 0, T_MB_S, 489.114, false),
    CDM("SEQ write Q1T1", 1, MIB, 0, 0, T_MB_S, 473.808, false),
    CDM("RND4K read Q1T1", 1, 4096, 1, 1, T_IOPS, 5577.6, false),
    CDM("RND4K write Q1T1", 1, 4096, 0, 1, T_IOPS, 14853.5, false),
    NAS("SEQ read Q32", 32, 128 * KIB, 1, 0, T_MB_S, 114.898, false),
    NAS("SEQ write Q32", 32, 128 * KIB, 0, 0, T_MB_S, 96.743, false),
    NAS("RND4K read Q32", 32, 4096, 1, 1, T_IOPS, 13815.4, false),
    NAS("RND4K write Q32", 32, 4096, 0, 1, T_IOPS, 10820.1, false),
    NAS("SEQ read Q1", 1, MIB, 1, 0, T_MB_S, 106.323, true),
    NAS("SEQ write Q1", 1, MIB, 0, 0, T_MB_S, 81.581, false),
    NAS("RND4K read Q1", 1, 4096, 1, 1, T_IOPS, 3054.9, false),
    NAS("RND4K write Q1", 1, 4096, 0, 1, T_IOPS, 2263.2, true),
    {"tintri-t540", "OLTP 4K 70/30 random QD16", 16, 4096, 0.7, 1, 1, false,
     T_IOPS, 20947.37, false},
    {"tintri-t540", "Exchange 8K 55/45 80% random QD16", 16, 8192, 0.55, 0.8, 1,
     false, T_IOPS, 12837.28, false},
    {"traditional-san", "OLTP 4K 70/30 random QD160", 160, 4096, 0.7, 1, 0,
     false, T_IOPS, 8355.75, false},
    {"traditional-san", "Exchange 8K 55/45 80% random QD160", 160, 8192, 0.55,
     0.8, 0, false, T_IOPS, 3338.28, false},
    {"xtremio-xbrick", "4K random read QD128", 128, 4096, 1, 1, 0, false,
     T_IOPS, 250000, false},
    {"xtremio-xbrick", "4K random 50/50 QD128", 128, 4096, 0.5, 1, 0, false,
     T_IOPS, 150000, false},
};

/* @f run on the profile @text with @qd outstanding. */
static struct t_result t_figure_on(const char *text, const struct t_figure *f,
				   unsigned qd)
{
	struct profile *p = t_profile(text);
	struct model *m = t_model(p, 1.0, 1);
	struct t_workload w = {
	    .block = f->block,
	    .read_frac = f->read_frac,
	    .random_frac = f->random_frac,
	    .hit_frac = f->hit_frac,
	    .one_stream = f->one_stream,
	    .span_bytes = 64 * GIB,
	};
	struct t_result r;

	w.rng = 7;
	/* Enough I/Os that start-up is noise: about 2 s of emulated time,
	 * at least 2000 and 100 per outstanding I/O. */
	r = t_run(m, &w, qd, 20000);
	model_free(m);
	free(p);
	return r;
}

static struct t_result t_figure_run(const struct t_figure *f)
{
	char *text = t_builtin_with(f->profile, NULL, NULL);
	struct t_result r = t_figure_on(text, f, f->qd);

	free(text);
	return r;
}

static void test_published_figures(void **state)
{
	unsigned misses = 0;

	for (size_t i = 0; i < sizeof(figures) / sizeof(*figures); i++) {
		const struct t_figure *f = &figures[i];
		struct t_result r = t_figure_run(f);
		double got = f->metric == T_IOPS ? r.iops : r.mb_s;
		double off = (got - f->published) / f->published * 100;
		bool ok = off < 10 && off > -10;

		print_message("# %-25s %-34s model %10.1f published %10.1f "
			      "%s %+6.1f%%  %s (mean latency %.0f us)\n",
			      f->profile, f->what, got, f->published,
			      f->metric == T_IOPS ? "IOPS" : "MB/s", off,
			      f->predicted ? "predicted" : "fitted",
			      r.mean_lat_us);
		if (!ok)
			misses++;
	}
	assert_int_equal(misses, 0);
}

/* ---- held out: figures a profile was not fitted on ---------------------
 *
 * Where one number was fitted on two figures (tintri-t540: the SSDs'
 * random-write rate; traditional-san: the outstanding count), the ratio
 * of the two is what the hardware predicts. xtremio-xbrick is fitted on
 * one X-Brick; xtremio-xbrick4, four of it as nodes, predicts the
 * published cluster figures. Within 15%. */

static const struct t_figure *t_find(const char *profile, const char *what)
{
	for (size_t i = 0; i < sizeof(figures) / sizeof(*figures); i++)
		if (!strcmp(figures[i].profile, profile) &&
		    !strncmp(figures[i].what, what, strlen(what)))
			return &figures[i];
	fail();
	return NULL;
}

/* The Exchange / OLTP ratio of @profile with @from replaced by @to, at
 * @qd outstanding; within 15% of the published one. */
static void t_ratio_check(const char *profile, const char *from, const char *to,
			  unsigned qd)
{
	const struct t_figure *o = t_find(profile, "OLTP");
	const struct t_figure *e = t_find(profile, "Exchange");
	char *text = t_builtin_with(profile, from, to);
	double got =
	    t_figure_on(text, e, qd).iops / t_figure_on(text, o, qd).iops;
	double want = e->published / o->published;

	print_message("# %-16s %-22s QD%-3u Exchange / OLTP IOPS: model "
		      "%.3f published %.3f %+.1f%% (predicted)\n",
		      profile, strcmp(from, to) ? to : "as shipped", qd, got,
		      want, (got - want) / want * 100);
	t_assert_within(got, want, 0.15);
	free(text);
}

/* The ratios hold across the fitted number's whole plausible range, so
 * they are the hardware's, not the fit's: tintri-t540 at Intel's
 * datasheet 4K write rates as shipped (2,700) and with 20% spare area
 * (4,000), per command once the per-byte part is out (1 / (1/rate -
 * 4096 / 210 MB/s)); traditional-san at the outstanding counts the
 * profile says put both figures within 10% (128 to 176). */
static void test_predicted_ratios(void **state)
{
	static const char *const tintri[] = {
	    "write_iops = 3527", "write_iops = 2850", "write_iops = 4338"};
	static const unsigned san_qd[] = {160, 128, 176};

	for (unsigned i = 0; i < 3; i++)
		t_ratio_check("tintri-t540", "write_iops = 3527", tintri[i],
			      16);
	for (unsigned i = 0; i < 3; i++)
		t_ratio_check("traditional-san", "[array]", "[array]",
			      san_qd[i]);
	(void)state;
}

/* A closed-loop run of @block random I/Os, @read_frac of them reads, with
 * @qd outstanding on built-in @name. */
static struct t_result t_random(const char *name, uint64_t block,
				double read_frac, unsigned qd, unsigned n)
{
	char *text = t_builtin_with(name, NULL, NULL);
	struct profile *p = t_profile(text);
	struct model *m = t_model(p, 1.0, 1);
	struct t_workload w = {.block = block,
			       .read_frac = read_frac,
			       .random_frac = 1,
			       .span_bytes = 64 * GIB};
	struct t_result r;

	w.rng = 7;
	r = t_run(m, &w, qd, n);
	model_free(m);
	free(p);
	free(text);
	return r;
}

/* xtremio-xbrick4 is four of xtremio-xbrick ([nodes], nothing else
 * changed): printed back with one node and the one-brick's name and
 * description, it is the one-brick profile, key for key. */
static void t_assert_four_of_one(void)
{
	char *one_text = t_builtin_with("xtremio-xbrick", NULL, NULL);
	char *four_text = t_builtin_with("xtremio-xbrick4", NULL, NULL);
	struct profile *one = t_profile(one_text), *four = t_profile(four_text);
	char *a, *b;

	assert_int_equal(four->nodes.count, 4);
	assert_int_equal(four->nodes.placement, PROFILE_PLACE_FINGERPRINT);
	four->nodes.count = 1;
	strcpy(four->name, one->name);
	strcpy(four->description, one->description);
	a = t_print(one);
	b = t_print(four);
	assert_string_equal(a, b);
	free(a);
	free(b);
	free(one);
	free(four);
	free(one_text);
	free(four_text);
}

/* The cluster of 4 X-Bricks (arrays.md, "All-flash with inline dedupe":
 * "4 X-Bricks: about 600,000 mixed, about 1,000,000 read-only"), held
 * out: xtremio-xbrick4 is the one-brick profile (fitted on the one-brick
 * figures, 250,000 read and 150,000 50/50) four times over with QDR
 * InfiniBand between the bricks, run as the one-brick figures are (4 KiB
 * random, 128 outstanding per brick). Within 15%. */
static void test_xtremio_cluster(void **state)
{
	static const double read_frac[] = {1.0, 0.5}, published[] = {1e6, 6e5};

	t_assert_four_of_one();
	for (unsigned i = 0; i < 2; i++) {
		struct t_result one =
		    t_random("xtremio-xbrick", 4096, read_frac[i], 128, 20000);
		struct t_result four = t_random("xtremio-xbrick4", 4096,
						read_frac[i], 4 * 128, 60000);

		print_message("# xtremio-xbrick4 4K random %s QD512: model "
			      "%.0f published about %.0f IOPS %+.1f%% "
			      "(predicted; one brick %.0f, x%.2f; mean latency "
			      "%.0f us against %.0f)\n",
			      i ? "50/50" : "read", four.iops, published[i],
			      (four.iops - published[i]) / published[i] * 100,
			      one.iops, four.iops / one.iops, four.mean_lat_us,
			      one.mean_lat_us);
		t_assert_within(four.iops, published[i], 0.15);
	}
	/* arrays.md gives no block size for "mixed"; the profiles assume
	 * 4 KiB, as for one brick. 8 KiB, for comparison only. */
	print_message(
	    "# xtremio-xbrick4 8K random 50/50 QD512: model %.0f "
	    "IOPS (not a published figure)\n",
	    t_random("xtremio-xbrick4", 8192, 0.5, 4 * 128, 60000).iops);
	(void)state;
}

/* ---- several nodes: each resource group's busy %, and the bottleneck -- */

#define T_MAX_GROUPS 16

/* A resource group as stats --array forms it (the name without digits:
 * "backing12" -> "backing", "ic3.1.in" -> "ic..in") and how full it was,
 * by the same rule (tiers/array_stats.c, busy_pct). */
struct t_group {
	char name[32];
	struct engine_resource_stats sum; /* busy_ns and core_busy_ns */
	double gate_ns, wire_ns, slots, pct;
	unsigned members;
};

struct t_vsan_run {
	struct t_result r;
	struct t_group g[T_MAX_GROUPS];
	unsigned n;
	const struct t_group *top; /* print_bottleneck's: the busiest */
	const char *counter;	   /* the profile's cpu_counter */
	unsigned cores;		   /* a node's physical cores */
	double util; /* the CPU by ESXi's cpu.utilization, for comparison */
};

static struct t_group *t_group_of(struct t_vsan_run *v, const char *res)
{
	char name[32];
	size_t k = 0;

	for (const char *c = res; *c && k + 1 < sizeof(name); c++)
		if (*c < '0' || *c > '9')
			name[k++] = *c;
	name[k] = '\0';
	for (unsigned i = 0; i < v->n; i++)
		if (!strcmp(v->g[i].name, name))
			return &v->g[i];
	assert_true(v->n < T_MAX_GROUPS);
	strcpy(v->g[v->n].name, name);
	return &v->g[v->n++];
}

/* Every group of @m's resources over @v->r's run, and the busiest; the
 * controllers' by @p's cpu_counter, as stats --array prints them. */
static void t_vsan_groups(const struct model *m, const struct profile *p,
			  struct t_vsan_run *v)
{
	const struct engine *e = model_engine(m);
	double el = (v->r.reads + v->r.writes) / v->r.iops * 1e9;

	for (unsigned id = 0; id < engine_resources(e); id++) {
		struct t_group *g =
		    t_group_of(v, engine_resource_name(e, (int)id));
		struct engine_resource_stats st;

		engine_resource_stats(e, (int)id, &st);
		g->sum.busy_ns += st.busy_ns;
		g->sum.core_busy_ns += st.core_busy_ns;
		g->gate_ns += (double)st.gate_ns;
		g->wire_ns += (double)st.wire_ns;
		g->slots += engine_resource_slots(e, (int)id);
		g->members++;
	}
	for (unsigned i = 0; i < v->n; i++) {
		struct t_group *g = &v->g[i];
		double pct = !strcmp(g->name, "ctl")
				 ? profile_cpu_share(&p->ctl, &g->sum,
						     (unsigned)g->slots, el)
			     : g->slots ? (double)g->sum.busy_ns / el / g->slots
					: 0;
		double gate = g->gate_ns / el / g->members;
		double wire = g->wire_ns / el / g->members;

		pct = gate > pct ? gate : pct;
		g->pct = 100 * (wire > pct ? wire : pct);
		if (!v->top || g->pct > v->top->pct)
			v->top = g;
		if (!strcmp(g->name, "ctl")) {
			struct profile_controllers c = p->ctl;

			c.cpu_counter = PROFILE_CPU_UTILIZATION;
			v->util =
			    100 * profile_cpu_share(&c, &g->sum,
						    (unsigned)g->slots, el);
		}
	}
	v->counter = profile_cpu_counter_name(&p->ctl);
	v->cores = p->ctl.cores;
}

/* Busy % of group @name (the busier direction for "ic" and "link"). */
static double t_busy(const struct t_vsan_run *v, const char *name)
{
	double top = 0;

	for (unsigned i = 0; i < v->n; i++)
		if (!strncmp(v->g[i].name, name, strlen(name)) &&
		    v->g[i].pct > top)
			top = v->g[i].pct;
	return top;
}

/* @w on built-in @name: closed loop with @qd outstanding, or, @rate > 0,
 * arriving at @rate a second. */
static struct t_vsan_run t_vsan_run(const char *name, const char *what,
				    const struct t_workload *w, unsigned qd,
				    double rate)
{
	char *text = t_builtin_with(name, NULL, NULL);
	struct profile *p = t_profile(text);
	struct model *m = t_model(p, 1.0, 1);
	struct t_workload wl = *w;
	struct t_vsan_run v = {0};

	v.r = rate > 0 ? t_run_rate(m, &wl, rate, 100000)
		       : t_run(m, &wl, qd, 100000);
	t_vsan_groups(m, p, &v);
	print_message("# %-17s %-22s %9.0f IOPS %7.0f MB/s; busy: CPU "
		      "(%s) %5.1f%% (utilization %5.1f%%), write buffers "
		      "%5.1f%%, capacity %5.1f%%, network %5.1f%%; bottleneck "
		      "%s %.1f%%\n",
		      name, what, v.r.iops, v.r.mb_s, v.counter,
		      t_busy(&v, "ctl"), v.util, t_busy(&v, "cache"),
		      t_busy(&v, "backing"), t_busy(&v, "ic"), v.top->name,
		      v.top->pct);
	model_free(m);
	free(p);
	free(text);
	return v;
}

/* vsan-dell-r740xd, built from hardware alone (its file states every
 * assumption): the evaluation's finding on these all-NVMe hosts (issue
 * 16, section 1: "with NVMe capacity the bottleneck moved from the drives
 * to the CPUs") as the model's: in the hero runs (4K random read, 4K
 * 70/30; 1024 outstanding, test_vsan_cpu_bands says why) the hosts' CPUs are
 * the busiest resource, above the write buffers, the capacity devices and the
 * network. No throughput or utilisation figure is published at a known load:
 * printed, not asserted. */
static void test_vsan_cpu_bound(void **state)
{
	static const struct {
		const char *what;
		uint64_t block;
		double read_frac;
		bool cpu;
	} runs[] = {{"4K random read", 4096, 1.0, true},
		    {"4K random 70/30", 4096, 0.7, true},
		    {"128K random read", 128 * KIB, 1.0, false}};
	struct t_workload w = {.random_frac = 1, .span_bytes = 64 * GIB};

	for (unsigned i = 0; i < 3; i++) {
		struct t_vsan_run v;
		double cpu;

		w.block = runs[i].block;
		w.read_frac = runs[i].read_frac;
		w.rng = 7;
		v = t_vsan_run("vsan-dell-r740xd", runs[i].what, &w, 1024, 0);
		cpu = t_busy(&v, "ctl");
		if (runs[i].cpu) {
			assert_true(cpu > t_busy(&v, "cache") &&
				    cpu > t_busy(&v, "backing") &&
				    cpu > t_busy(&v, "ic"));
			assert_true(cpu > 90);
		}
	}
	(void)state;
}

/* ---- the vSAN evaluation's CPU bands (issue 16, section 1) ---------------
 *
 * The three 8-node clusters under the same workload definitions. The
 * evaluation ran one VDBench job on each: 32 workers (4 per node), 4
 * VMDKs each; VDBench's default is 8 threads a VMDK, so 32 x 4 x 8 =
 * 1024 I/Os outstanding in the hero runs (closed loop). Published (issue
 * 16, section 1; arrays.md "Hyper-converged"): host CPU 15-20% (VxRail)
 * against 50-60% (all-NVMe) at steady state, 30-40% against 70-80% in
 * the hero runs; "with NVMe capacity the bottleneck moved from the
 * drives to the CPUs". No rate and no CPU counter are published; the
 * model prints vCenter's default, cpu.usage (the profiles' cpu_counter,
 * an assumption they state), and ESXi's cpu.utilization beside it.
 *
 * The hero runs are each cluster's own closed-loop maximum, so the two
 * clusters ran at different rates (the research note
 * /work/notes/research_vsan.md, M2). At the same cycles per I/O a
 * cluster's CPU is its IOPS over its cores x clock, so the VxRail's
 * reading over the Dell's is r = (X_vxrail / X_dell) x k, k = (24 x 2.7)
 * / (48 x 2.1) = 0.643 (computed below from the profiles' cores and the
 * CPUs' base clocks), and the published bands, r from 30/80 to 40/70,
 * imply X_vxrail / X_dell from 0.58 to 0.89. Asserted for the 4K 70/30
 * hero, where the VxRail's write buffers bind and the Dell's CPUs do.
 * The 4K read hero's ratio is printed as the open finding, not
 * asserted: the model's VxRail is CPU-bound there too (or bound by its
 * 1024 outstanding), while its 30-40% says it was not, and no public
 * hardware figure says what bound it (the SAS SSDs would have to stop at
 * a quarter of what the datasheet and the lane allow). The 128K read
 * hero is network-bound on both: printed.
 *
 * The steady state's rate is not published. Here it is 4K 70/30 random,
 * rate-limited at half the slowest cluster's 4K 70/30 hero IOPS (the
 * middle of the curve runs' 10%..100% steps), the same rate on each: the
 * levels follow that choice. Its CPU ratio (the same rate: k) is printed
 * against the bands' 0.25-0.40; the hardware's cycles do not reach that
 * at any one rate. Writes are destaged from the write buffer as they
 * come (a 5-hour run, or a hero run after the 40% fill, finds the buffer
 * in its steady state: it empties as fast as it fills). */

static const char *const vsan_clusters[] = {
    "vsan-vxrail-p570f", "vsan-dell-r740xd", "vsan-hpe-dl380"};

/* The published bands, per cluster (VxRail, then the two all-NVMe). */
static const double band_steady[3][2] = {{15, 20}, {50, 60}, {50, 60}};
static const double band_hero[3][2] = {{30, 40}, {70, 80}, {70, 80}};
/* The CPUs' base clocks, GHz (Intel's specifications, as the profiles
 * state): Xeon Platinum 8160M, then Gold 6226 (the Dell and the HPE). */
static const double vsan_ghz[3] = {2.1, 2.7, 2.7};

static void t_band_print(const char *what, unsigned c,
			 const struct t_vsan_run *v, const double band[2])
{
	double cpu = t_busy(v, "ctl");

	print_message("# %-17s %-22s CPU (%s) model %5.1f%%, published "
		      "%.0f-%.0f%% (%s)\n",
		      vsan_clusters[c], what, v->counter, cpu, band[0], band[1],
		      cpu >= band[0] && cpu <= band[1] ? "in the band"
						       : "NOT in the band");
}

/* k: the VxRail's CPU over the Dell's at the same IOPS and cycles per
 * I/O, the Dell's cores x clock over the VxRail's. */
static double t_vsan_k(const struct t_vsan_run *v, const struct t_vsan_run *d)
{
	return (d->cores * vsan_ghz[1]) / (v->cores * vsan_ghz[0]);
}

/* The VxRail's IOPS over the Dell's in hero run @v / @d, against what
 * the bands imply: the CPU ratio's range over k. In range or not. */
static bool t_implied_print(const char *what, const struct t_vsan_run *v,
			    const struct t_vsan_run *d, const char *note)
{
	double k = t_vsan_k(v, d), x = v->r.iops / d->r.iops;
	double lo = band_hero[0][0] / band_hero[1][1] / k;
	double hi = band_hero[0][1] / band_hero[1][0] / k;
	bool in = x >= lo && x <= hi;

	print_message("# VxRail / all-NVMe IOPS %-22s model %.2f, the bands "
		      "imply %.2f-%.2f (CPU %.3f-%.3f over k %.3f) (%s)%s\n",
		      what, x, lo, hi, lo * k, hi * k, k,
		      in ? "in range" : "NOT in range", note);
	return in;
}

static void test_vsan_cpu_bands(void **state)
{
	static const struct {
		const char *what;
		uint64_t block;
		double read_frac;
	} hero[] = {{"hero 4K random read", 4096, 1.0},
		    {"hero 4K random 70/30", 4096, 0.7},
		    {"hero 128K random read", 128 * KIB, 1.0}};
	struct t_vsan_run h[3][3], st[3];
	struct t_workload w = {
	    .random_frac = 1, .span_bytes = 64 * GIB, .destage = true};
	double rate = 1e300, r;
	char what[64];

	for (unsigned i = 0; i < 3; i++)
		for (unsigned c = 0; c < 3; c++) {
			w.block = hero[i].block;
			w.read_frac = hero[i].read_frac;
			w.rng = 7;
			h[i][c] = t_vsan_run(vsan_clusters[c], hero[i].what, &w,
					     1024, 0);
		}
	for (unsigned c = 0; c < 3; c++)
		rate = h[1][c].r.iops < rate ? h[1][c].r.iops : rate;
	rate /= 2;
	snprintf(what, sizeof(what), "steady 4K 70/30 %.0fK", rate / 1000);
	w.block = 4096;
	w.read_frac = 0.7;
	for (unsigned c = 0; c < 3; c++) {
		w.rng = 7;
		st[c] = t_vsan_run(vsan_clusters[c], what, &w, 0, rate);
	}
	print_message("# steady state: rate not published; %.0f IOPS is "
		      "the test's choice, the same on all three\n",
		      rate);
	for (unsigned c = 0; c < 3; c++) {
		t_band_print(what, c, &st[c], band_steady[c]);
		for (unsigned i = 0; i < 3; i++)
			t_band_print(hero[i].what, c, &h[i][c], band_hero[c]);
	}
	r = t_busy(&st[0], "ctl") / t_busy(&st[1], "ctl");
	print_message("# VxRail / all-NVMe CPU %-22s model %.2f (k %.3f at "
		      "the same rate), published %.2f-%.2f (%s)\n",
		      what, r, t_vsan_k(&st[0], &st[1]),
		      band_steady[0][0] / band_steady[1][1],
		      band_steady[0][1] / band_steady[1][0],
		      r >= band_steady[0][0] / band_steady[1][1] &&
			      r <= band_steady[0][1] / band_steady[1][0]
			  ? "in range"
			  : "NOT in range");
	/* Each cluster at its own maximum: the 4K 70/30 hero's implied
	 * ratio lies where the bands put it. */
	assert_true(t_implied_print(hero[1].what, &h[1][0], &h[1][1], ""));
	t_implied_print(hero[0].what, &h[0][0], &h[0][1],
			"; the open finding, not asserted: the VxRail's CPUs "
			"bind in the model, 30-40% says they did not, and "
			"no public figure says what did");
	t_implied_print(hero[2].what, &h[2][0], &h[2][1],
			"; not asserted: the network binds on both");
	/* The qualitative findings. The HPE is the Dell's hardware, so the
	 * Dell's figures. */
	for (unsigned i = 0; i < 3; i++)
		t_assert_within(h[i][2].r.iops, h[i][1].r.iops, 0.001);
	for (unsigned c = 1; c < 3; c++) {
		/* All-NVMe: the CPUs first, in the 4K hero runs and at
		 * steady state. */
		assert_string_equal(h[0][c].top->name, "ctl");
		assert_string_equal(h[1][c].top->name, "ctl");
		assert_string_equal(st[c].top->name, "ctl");
		/* The VxRail's CPUs well below theirs (at most 3/4) where
		 * its drives bind. */
		assert_true(t_busy(&st[0], "ctl") <
			    0.75 * t_busy(&st[c], "ctl"));
		assert_true(t_busy(&h[1][0], "ctl") <
			    0.75 * t_busy(&h[1][c], "ctl"));
	}
	/* The VxRail: a drive tier first, not its CPUs, with writes in the
	 * mix; in the 4K read hero run the model disagrees (printed). */
	assert_string_not_equal(h[1][0].top->name, "ctl");
	assert_string_not_equal(st[0].top->name, "ctl");
	if (!strcmp(h[0][0].top->name, "ctl"))
		print_message("# vsan-vxrail-p570f hero 4K random read: the "
			      "CPUs are the busiest resource in the model "
			      "(%.1f%%, capacity %.1f%% busy): the "
			      "evaluation's finding NOT reproduced for this "
			      "run\n",
			      t_busy(&h[0][0], "ctl"),
			      t_busy(&h[0][0], "backing"));
	(void)state;
}

/* Infinidat: 150K IOPS, 8K, random, 50/50, rate-targeted: carried by 3
 * controllers; with 2 (one failed) the array can no longer keep up, and
 * with the 1200 I/Os the profile assumes the generator kept outstanding,
 * reads average 9 ms and writes 8 ms (arrays.md; the mean fitted by that
 * count, the difference between the two predicted). */
static void test_infinidat_controllers(void **state)
{
	static const char *const counts[] = {"count = 3", "count = 2"};
	const struct profile_builtin *b = profile_builtins();
	struct t_result r[2];

	while (strcmp(b->name, "infinidat-6303"))
		b++;
	for (unsigned i = 0; i < 2; i++) {
		char *text = strdup(b->text), *at = strstr(text, "count = 3");
		struct t_workload w = {.block = 8192,
				       .read_frac = 0.5,
				       .random_frac = 1.0,
				       .hit_frac = 0.9,
				       .span_bytes = 64 * GIB};
		struct profile *p;
		struct model *m;

		assert_non_null(at);
		memcpy(at, counts[i], strlen(counts[i]));
		p = t_profile(text);
		m = t_model(p, 1.0, 1);
		w.rng = 3;
		r[i] = t_run_rate_capped(m, &w, 150000, 300000, 1200);
		print_message("# infinidat-6303 %s: 150K offered, at most "
			      "1200 outstanding: %.0f IOPS done, read %.0f "
			      "us, write %.0f us\n",
			      counts[i], r[i].iops, r[i].read_lat_us,
			      r[i].write_lat_us);
		model_free(m);
		free(p);
		free(text);
	}
	t_assert_within(r[0].iops, 150000, 0.02);
	assert_true(r[0].mean_lat_us < 2000);
	assert_true(r[1].iops < 0.97 * 150000);
	t_assert_within(r[1].read_lat_us, 9000, 0.15);
	t_assert_within(r[1].write_lat_us, 8000, 0.15);
}

/* Infinidat during the rebuild of a pulled backing drive (arrays.md:
 * reads 1.37 ms, writes 1.63 ms on average at 150K IOPS): the same
 * workload as above, rate-targeted, with drive 0 pulled and noticed at
 * once (detection_window 0, else the same profile). Reads are
 * reproduced, unfitted, within 15%. Writes are not (the model acks them
 * from the mirrored controller RAM, about 0.43 ms, and the rebuild loads
 * only the backing HDDs): printed, not asserted; see the profile. */
static void test_infinidat_rebuild(void **state)
{
	const struct profile_builtin *b = profile_builtins();
	struct t_workload w = {.block = 8192,
			       .read_frac = 0.5,
			       .random_frac = 1.0,
			       .hit_frac = 0.9,
			       .span_bytes = 64 * GIB};
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE,
				.tier = PROFILE_TIER_BACKING};
	struct model_fault_effect eff;
	struct t_result r;
	char *text, *at;
	struct profile *p;
	struct model *m;

	while (strcmp(b->name, "infinidat-6303"))
		b++;
	text = strdup(b->text);
	at = strstr(text, "detection_window = 30s");
	assert_non_null(at);
	memcpy(at, "detection_window = 0  ", 22);
	p = t_profile(text);
	m = t_model(p, 1.0, 1);
	w.rng = 3;
	assert_int_equal(model_fault(m, 0, &f, true, &eff), 0);
	r = t_run_rate(m, &w, 150000, 300000);
	print_message("# infinidat-6303 rebuilding: %.0f IOPS, read %.0f us "
		      "(published 1370), write %.0f us (published 1630, not "
		      "reproduced)\n",
		      r.iops, r.read_lat_us, r.write_lat_us);
	t_assert_within(r.iops, 150000, 0.02);
	t_assert_within(r.read_lat_us, 1370, 0.15);
	model_free(m);
	free(p);
	free(text);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_builtins_print_back),
	    cmocka_unit_test(test_published_figures),
	    cmocka_unit_test(test_predicted_ratios),
	    cmocka_unit_test(test_xtremio_cluster),
	    cmocka_unit_test(test_vsan_cpu_bound),
	    cmocka_unit_test(test_vsan_cpu_bands),
	    cmocka_unit_test(test_infinidat_controllers),
	    cmocka_unit_test(test_infinidat_rebuild),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
