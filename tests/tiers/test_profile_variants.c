/* Predictions on what the calibrated profiles were not fitted on.
 *
 * arrays.md keeps some figures aside to check how well a profile built
 * from the hardware predicts variants: the Synology's RAID 10 and iSCSI
 * runs, and several workers at once against Tintri and the traditional
 * SAN. Those figures are not in this repository, so this test prints the
 * model's predictions (the table in bench/RESULTS.md) and asserts only
 * what the model must get right from the hardware alone:
 *
 *   - the report's own observations: sequential transfers saturate the
 *     1 GbE link whatever the RAID level, and RAID 10 beats RAID 5 (on
 *     random writes: two back-end writes instead of RAID 5's four-op
 *     read-modify-write, on a controller whose CPU is the limit);
 *   - Little's law on every closed-loop run (IOPS x mean latency = the
 *     I/Os outstanding), so the predictions are self-consistent;
 *   - more workers of one kind never lower the IOPS of a closed loop;
 *   - the report's several workers against tintri-t540 (OLTP, Exchange
 *     and web server, 16 outstanding each, workloads/
 *     tintri-several-workers.fio) total above the single OLTP worker:
 *     what binds a single worker there is the SSDs' small-write budget
 *     (the profile), so a second OLTP worker adds little while a
 *     read-mostly worker adds its reads.
 *
 * This is the model alone, in emulated time; no FUSE, no host.
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

#define GIB (1024ull * MIB)

/* The built-in @name's text with @from replaced by @to (once; @from must
 * occur), as a malloc'd string. */
static char *t_variant(const char *name, const char *from, const char *to)
{
	const struct profile_builtin *b = profile_builtins();

	while (b->name && strcmp(b->name, name))
		b++;
	assert_non_null(b->name);
	const char *at = strstr(b->text, from);
	assert_non_null(at);
	size_t head = (size_t)(at - b->text), tail = strlen(at + strlen(from));
	char *text = malloc(head + strlen(to) + tail + 1);
	assert_non_null(text);
	memcpy(text, b->text, head);
	strcpy(text + head, to);
	strcat(text, at + strlen(from));
	return text;
}

struct t_case {
	const char *what;
	unsigned qd;
	uint64_t block;
	double read_frac, random_frac, hit_frac;
	bool one_stream;
};

static struct t_result t_case_run(const char *text, const struct t_case *c)
{
	struct profile *p = t_profile(text);
	struct model *m = t_model(p, 1.0, 1);
	struct t_workload w = {
	    .block = c->block,
	    .read_frac = c->read_frac,
	    .random_frac = c->random_frac,
	    .hit_frac = c->hit_frac,
	    .one_stream = c->one_stream,
	    .span_bytes = 64 * GIB,
	};

	w.rng = 7;
	/* 200 I/Os per client at least: the start and the last round
	 * weigh little against the rate. */
	struct t_result r =
	    t_run(m, &w, c->qd, c->qd > 100 ? 200 * c->qd : 20000);
	model_free(m);
	free(p);
	/* Little's law: a closed loop of qd clients keeps qd outstanding. */
	t_assert_within(r.iops * r.mean_lat_us / 1e6, c->qd, 0.05);
	return r;
}

/* ---- Synology: RAID 10 against RAID 5 ----------------------------------- */

static const struct t_case cdm[] = {
    {"SEQ read Q32 (MB/s)", 32, 128 * KIB, 1, 0, 0, true},
    {"SEQ write Q32 (MB/s)", 32, 128 * KIB, 0, 0, 0, true},
    {"RND4K read Q32 (IOPS)", 32, 4096, 1, 1, 0, true},
    {"RND4K write Q32 (IOPS)", 32, 4096, 0, 1, 0, true},
    {"SEQ read Q1 (MB/s)", 1, MIB, 1, 0, 0, true},
    {"SEQ write Q1 (MB/s)", 1, MIB, 0, 0, 0, true},
    {"RND4K read Q1 (IOPS)", 1, 4096, 1, 1, 0, true},
    {"RND4K write Q1 (IOPS)", 1, 4096, 0, 1, 0, true},
};
#define NCDM (sizeof(cdm) / sizeof(*cdm))

static double t_figure(const struct t_case *c, const struct t_result *r)
{
	return c->block >= 128 * KIB ? r->mb_s : r->iops;
}

static void test_synology_raid10_beats_raid5(void **state)
{
	const char *nas = "synology-1813-raid5-1gbe";
	char *r5 = t_variant(nas, "raid = raid5", "raid = raid5");
	char *r10 = t_variant(nas, "raid = raid5", "raid = raid10");
	double v5[NCDM], v10[NCDM];

	for (size_t i = 0; i < NCDM; i++) {
		struct t_result a = t_case_run(r5, &cdm[i]);
		struct t_result b = t_case_run(r10, &cdm[i]);
		v5[i] = t_figure(&cdm[i], &a);
		v10[i] = t_figure(&cdm[i], &b);
		print_message("# synology %-24s raid5 %10.1f  raid10 %10.1f  "
			      "%+6.1f%%\n",
			      cdm[i].what, v5[i], v10[i],
			      (v10[i] - v5[i]) / v5[i] * 100);
	}
	/* Sequential Q32 is the link's, at either RAID level. */
	t_assert_within(v10[0], v5[0], 0.02);
	t_assert_within(v10[1], v5[1], 0.02);
	/* Random writes: fewer back-end ops per write on a CPU-bound box. */
	assert_true(v10[3] > 1.05 * v5[3]);
	assert_true(v10[7] >= v5[7]);
	/* Reads touch one drive either way. */
	t_assert_within(v10[2], v5[2], 0.02);
	free(r5);
	free(r10);
}

/* ---- several workers ----------------------------------------------------- */

struct t_workers {
	const char *profile;
	struct t_case one; /* a single worker; qd is its own depth */
};

static const struct t_workers workers[] = {
    {"tintri-t540", {"OLTP 4K 70/30 random", 16, 4096, 0.7, 1, 1, false}},
    {"tintri-t540",
     {"Exchange 8K 55/45 80% random", 16, 8192, 0.55, 0.8, 1, false}},
    {"traditional-san", {"OLTP 4K 70/30 random", 160, 4096, 0.7, 1, 0, false}},
    {"traditional-san",
     {"Exchange 8K 55/45 80% random", 160, 8192, 0.55, 0.8, 0, false}},
    {"xtremio-xbrick", {"4K random 50/50", 128, 4096, 0.5, 1, 0, false}},
};

static void test_workers_scale_then_saturate(void **state)
{
	static const unsigned counts[] = {1, 2, 4};

	for (size_t i = 0; i < sizeof(workers) / sizeof(*workers); i++) {
		const struct t_workers *wk = &workers[i];
		char *text = t_variant(wk->profile, "[array]", "[array]");
		struct t_result prev = {0};

		for (size_t k = 0; k < sizeof(counts) / sizeof(*counts); k++) {
			struct t_case c = wk->one;
			c.qd = wk->one.qd * counts[k];
			if (c.qd > T_MAX_CLIENTS)
				break;
			struct t_result r = t_case_run(text, &c);
			print_message("# %-16s %-30s %u worker(s) x QD%u: "
				      "%9.0f IOPS, mean %7.0f us\n",
				      wk->profile, c.what, counts[k],
				      wk->one.qd, r.iops, r.mean_lat_us);
			if (k) {
				/* A closed loop: more clients never fewer
				 * IOPS (2% for the seeded mix). */
				assert_true(r.iops >= 0.98 * prev.iops);
				assert_true(r.mean_lat_us >=
					    0.98 * prev.mean_lat_us);
			}
			prev = r;
		}
		free(text);
	}
}

/* ---- several workers of different kinds: tintri-t540 ------------------- */

static const struct t_case tintri_workers[] = {
    {"OLTP 4K 70/30 random", 16, 4096, 0.7, 1, 1, false},
    {"Exchange 8K 55/45 80% random", 16, 8192, 0.55, 0.8, 1, false},
    {"web server 8K 95/75", 16, 8192, 0.95, 0.75, 1, false},
};
#define NTW (sizeof(tintri_workers) / sizeof(*tintri_workers))

static void test_tintri_several_workers(void **state)
{
	char *text = t_variant("tintri-t540", "[array]", "[array]");
	struct t_workload w[NTW], *pw[NTW];
	struct t_result alone[NTW], each[NTW], all, two_oltp;
	unsigned qd[NTW];
	struct t_case two = tintri_workers[0];
	struct profile *p;
	struct model *m;

	for (size_t k = 0; k < NTW; k++) {
		const struct t_case *c = &tintri_workers[k];

		alone[k] = t_case_run(text, c);
		w[k] = (struct t_workload){.block = c->block,
					   .read_frac = c->read_frac,
					   .random_frac = c->random_frac,
					   .hit_frac = c->hit_frac,
					   .span_bytes = 64 * GIB,
					   .rng = 7 + k};
		pw[k] = &w[k];
		qd[k] = c->qd;
	}
	two.qd *= 2;
	two_oltp = t_case_run(text, &two);
	p = t_profile(text);
	m = t_model(p, 1.0, 1);
	all = t_run_workers(m, pw, qd, NTW, 60000, each);
	for (size_t k = 0; k < NTW; k++) {
		print_message("# tintri-t540 %-30s alone %7.0f IOPS; with the "
			      "others %7.0f (mean %5.0f us)\n",
			      tintri_workers[k].what, alone[k].iops,
			      each[k].iops, each[k].mean_lat_us);
		/* Each worker keeps its own 16 outstanding. */
		t_assert_within(each[k].iops * each[k].mean_lat_us / 1e6, qd[k],
				0.05);
	}
	print_message("# tintri-t540 three workers: %.0f IOPS in all "
		      "(single OLTP %.0f: %+.1f%%); two OLTP workers %.0f "
		      "(%+.1f%%)\n",
		      all.iops, alone[0].iops,
		      (all.iops - alone[0].iops) / alone[0].iops * 100,
		      two_oltp.iops,
		      (two_oltp.iops - alone[0].iops) / alone[0].iops * 100);
	/* The shape the hardware implies: the SSDs' write budget binds one
	 * OLTP worker, so a second adds under 15%; the three together,
	 * one of them read-mostly, total above the single OLTP worker; the
	 * web server alone, 95% reads, runs well above OLTP. */
	assert_true(two_oltp.iops < 1.15 * alone[0].iops);
	assert_true(all.iops > 1.03 * alone[0].iops);
	assert_true(alone[2].iops > 1.5 * alone[0].iops);
	model_free(m);
	free(p);
	free(text);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_synology_raid10_beats_raid5),
	    cmocka_unit_test(test_workers_scale_then_saturate),
	    cmocka_unit_test(test_tintri_several_workers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
