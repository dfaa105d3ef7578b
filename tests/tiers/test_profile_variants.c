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

/* ---- Synology: RAID 10 and iSCSI against RAID 5 over NFS ---------------- */

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
enum { SEQ_R32, SEQ_W32, RND_R32, RND_W32, SEQ_R1, SEQ_W1, RND_R1, RND_W1 };

static double t_figure(const struct t_case *c, const struct t_result *r)
{
	return c->block >= 128 * KIB ? r->mb_s : r->iops;
}

static const char *const nas[] = {
    "synology-1813-raid5-1gbe",
    "synology-1813-raid10-1gbe",
    "synology-1813-iscsi-1gbe",
};
#define NNAS (sizeof(nas) / sizeof(*nas))

/* @name resolved and printed back (profile show), one key a line. */
static char *t_shown(const char *name)
{
	char err[PROFILE_ERR_LEN], *buf = NULL;
	size_t len = 0;
	struct profile *p = malloc(sizeof(*p));
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(p);
	assert_non_null(f);
	assert_int_equal(profile_load(name, p, err, sizeof(err)), 0);
	profile_print(f, p);
	fclose(f);
	free(p);
	return buf;
}

/* How many lines of @a and @b differ, comments aside (both must have as
 * many), asserting that each differing line of @b starts with one of
 * @keys. */
static unsigned t_diff_lines(char *a, char *b, const char *const *keys)
{
	char *sa, *sb, *la = strtok_r(a, "\n", &sa),
		       *lb = strtok_r(b, "\n", &sb);
	unsigned n = 0;

	for (; la && lb;
	     la = strtok_r(NULL, "\n", &sa), lb = strtok_r(NULL, "\n", &sb)) {
		/* Comments: the name, usable bytes and the like. */
		if (!strcmp(la, lb) || (*la == ';' && *lb == ';'))
			continue;
		n++;
		bool known = false;
		for (const char *const *k = keys; *k; k++)
			known |= !strncmp(lb, *k, strlen(*k));
		if (!known)
			print_message("# unexpected difference: %s\n", lb);
		assert_true(known);
	}
	assert_null(la);
	assert_null(lb);
	return n;
}

/* The variants are the RAID 5 NFS profile with one key changed (and
 * their name and description): printed back fully resolved, nothing
 * else differs (but stripe_width, which raid resolves: 2 for RAID 10's
 * pairs, all 4 drives for RAID 5). */
static void test_synology_variants_derived(void **state)
{
	static const char *const raid[] = {
	    "description =", "raid =", "stripe_width =", NULL};
	static const char *const proto[] = {
	    "description =", "protocol =", NULL};
	char *base = t_shown(nas[0]), *other = t_shown(nas[1]);

	assert_int_equal(t_diff_lines(base, other, raid), 3);
	free(base);
	free(other);
	base = t_shown(nas[0]);
	other = t_shown(nas[2]);
	assert_int_equal(t_diff_lines(base, other, proto), 2);
	free(base);
	free(other);
	(void)state;
}

/* All 8 CrystalDiskMark rows for the three (bench/RESULTS.md), and the
 * report's observations: sequential transfers saturate the link at
 * every variant; RAID 10 beats RAID 5 on random writes (2 drive writes
 * against a 4-op read-modify-write, on a NAS whose 2 cores bind) and
 * matches it on reads; NFS beats software iSCSI: never below it, and
 * by the initiator's 20 us a request where a request is short (Q1 4K). */
static void test_synology_variants(void **state)
{
	double v[NNAS][NCDM];

	print_message("# %-24s %12s %12s %12s\n", "CrystalDiskMark",
		      "raid5 nfs", "raid10 nfs", "raid5 iscsi");
	for (size_t i = 0; i < NCDM; i++) {
		for (size_t k = 0; k < NNAS; k++) {
			char *text = t_builtin_with(nas[k], NULL, NULL);
			struct t_result r = t_case_run(text, &cdm[i]);
			v[k][i] = t_figure(&cdm[i], &r);
			free(text);
		}
		print_message("# %-24s %12.1f %12.1f %12.1f  (raid10 %+.1f%%, "
			      "iscsi %+.1f%%)\n",
			      cdm[i].what, v[0][i], v[1][i], v[2][i],
			      (v[1][i] - v[0][i]) / v[0][i] * 100,
			      (v[2][i] - v[0][i]) / v[0][i] * 100);
	}
	/* 1 GbE is 125 MB/s: the SEQ Q32 rows sit near it everywhere. */
	for (size_t k = 0; k < NNAS; k++) {
		assert_true(v[k][SEQ_R32] > 0.85 * 125);
		assert_true(v[k][SEQ_W32] > 0.7 * 125);
	}
	/* RAID 10 against RAID 5. */
	assert_true(v[1][RND_W32] > 1.05 * v[0][RND_W32]);
	assert_true(v[1][RND_W1] > 1.05 * v[0][RND_W1]);
	t_assert_within(v[1][RND_R32], v[0][RND_R32], 0.02);
	t_assert_within(v[1][RND_R1], v[0][RND_R1], 0.02);
	t_assert_within(v[1][SEQ_R32], v[0][SEQ_R32], 0.02);
	/* NFS against software iSCSI. */
	for (size_t i = 0; i < NCDM; i++)
		assert_true(v[2][i] <= 1.005 * v[0][i]);
	assert_true(v[2][RND_R1] < 0.97 * v[0][RND_R1]);
	assert_true(v[2][RND_W1] < 0.97 * v[0][RND_W1]);
	(void)state;
}

/* ---- workers: bound by their own outstanding I/O, then by the array ---- */

struct t_workers {
	const char *profile;
	struct t_case one; /* a single worker; qd is its own depth */
};

static const struct t_workers workers[] = {
    {"synology-1813-raid5-1gbe", {"RND4K read Q1", 1, 4096, 1, 1, 0, false}},
    {"micron-m600", {"RND4K read Q1", 1, 4096, 1, 1, 0, false}},
    {"tintri-t540", {"OLTP 4K 70/30 random", 16, 4096, 0.7, 1, 1, false}},
    {"tintri-t540",
     {"Exchange 8K 55/45 80% random", 16, 8192, 0.55, 0.8, 1, false}},
    {"traditional-san", {"OLTP 4K 70/30 random", 160, 4096, 0.7, 1, 0, false}},
    {"xtremio-xbrick", {"4K random 50/50", 128, 4096, 0.5, 1, 0, false}},
};

/* The shape the hardware implies for N closed-loop workers of one kind
 * (operational analysis's asymptotic bounds): N x qd / L0 while each is
 * bound by its own outstanding I/O (L0: the latency of one I/O alone),
 * at most the array's ceiling X (measured with T_MAX_CLIENTS
 * outstanding). So: the total never exceeds min(N qd / L0, X); below
 * half the ceiling, doubling the workers nearly doubles it (x1.6 at
 * least: queueing has barely begun); at the ceiling, doubling them adds
 * under 10%. Both regimes are met across the profiles below. */
static void test_workers_shape(void **state)
{
	static const unsigned counts[] = {1, 2, 4, 8, 16, 32};
	unsigned rising = 0, flat = 0;

	for (size_t i = 0; i < sizeof(workers) / sizeof(*workers); i++) {
		const struct t_workers *wk = &workers[i];
		char *text = t_builtin_with(wk->profile, NULL, NULL);
		struct t_case c = wk->one;
		double l0, ceiling, prev = 0;

		c.qd = 1;
		l0 = t_case_run(text, &c).mean_lat_us / 1e6;
		c.qd = T_MAX_CLIENTS;
		ceiling = t_case_run(text, &c).iops;
		for (size_t k = 0; k < sizeof(counts) / sizeof(*counts); k++) {
			c.qd = wk->one.qd * counts[k];
			if (c.qd > T_MAX_CLIENTS / 2)
				break;
			double x = t_case_run(text, &c).iops;
			double bound =
			    c.qd / l0 < ceiling ? c.qd / l0 : ceiling;
			print_message("# %-24s %-28s %2u x QD%-3u %9.0f IOPS "
				      "(bound %9.0f, ceiling %9.0f)\n",
				      wk->profile, c.what, counts[k],
				      wk->one.qd, x, bound, ceiling);
			assert_true(x <= 1.03 * bound);
			if (k && prev < 0.5 * ceiling) {
				assert_true(x >= 1.6 * prev);
				rising++;
			}
			if (k && prev >= 0.9 * ceiling) {
				assert_true(x <= 1.1 * prev);
				flat++;
			}
			prev = x;
		}
		free(text);
	}
	assert_true(rising >= 3);
	assert_true(flat >= 3);
	(void)state;
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
	char *text = t_builtin_with("tintri-t540", NULL, NULL);
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
	    cmocka_unit_test(test_synology_variants_derived),
	    cmocka_unit_test(test_synology_variants),
	    cmocka_unit_test(test_workers_shape),
	    cmocka_unit_test(test_tintri_several_workers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
