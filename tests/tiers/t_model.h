/* Test helpers shared by test_model.c and test_profiles.c: build a model
 * from profile text, and drive it closed-loop in emulated time. */
#ifndef ARRAYSIM_TESTS_TIERS_T_MODEL_H
#define ARRAYSIM_TESTS_TIERS_T_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/model.h"
#include "tiers/profile.h"

#define US 1000ull
#define MS 1000000ull
#define S 1000000000ull
#define KIB 1024ull
#define MIB (1024ull * 1024)

#define T_MAX_CLIENTS 1024

/* A workload: the next I/O of client @client (its @n-th). */
struct t_workload {
	uint64_t block;	     /* bytes per I/O */
	double read_frac;    /* 0..1 */
	double random_frac;  /* 0..1; the rest continues sequentially */
	uint64_t span_bytes; /* offsets fall in [0, span) */
	double hit_frac;     /* hybrid: reads that hit the cache */
	/* Sequential I/Os of all clients continue one stream (one thread
	 * with many outstanding, as CrystalDiskMark's Q32T1), rather than
	 * each client its own region. */
	bool one_stream;
	/* Each write is destaged (model_destage) as it is submitted: a
	 * write buffer at steady state, emptied as fast as it fills. */
	bool destage;
	uint64_t rng;
	uint64_t seq_next[T_MAX_CLIENTS]; /* sequential position */
};

/* What a closed-loop run measured. */
struct t_result {
	double iops, read_iops, write_iops;
	double mb_s;	    /* decimal MB/s, as the reports give */
	double mean_lat_us; /* mean over all I/Os */
	double read_lat_us, write_lat_us; /* means by kind */
	unsigned reads, writes;
};

/* Parse @text (fails the test on an error) into a heap profile. */
struct profile *t_profile(const char *text);
/* profile_print(@p) (`profile show`) as a malloc'd string. */
char *t_print(const struct profile *p);
/* A model of @p at @scale; fails the test on an error. */
struct model *t_model(const struct profile *p, double scale, uint64_t seed);
/* Run @n I/Os of @w with @q clients (<= T_MAX_CLIENTS), each submitting its
 * next I/O when its previous completes; earliest client first, so submissions
 * come in non-decreasing time as from the data path. */
struct t_result t_run(struct model *m, struct t_workload *w, unsigned q,
		      unsigned n);
/* Open loop: @n I/Os of @w arriving @rate_per_s evenly, whatever the
 * completions; iops is the rate completions kept up with. */
struct t_result t_run_rate(struct model *m, struct t_workload *w,
			   double rate_per_s, unsigned n);
/* The same, from a generator that keeps at most @cap I/Os outstanding
 * (fio's rate_iops with iodepth=cap): an I/O due while @cap are out
 * goes when the first of them completes, and its latency counts from
 * then, as fio's does. @cap 0: no limit (t_run_rate). */
struct t_result t_run_rate_capped(struct model *m, struct t_workload *w,
				  double rate_per_s, unsigned n, unsigned cap);
/* Several closed-loop workers at once, as the reports' "several workers"
 * tests ran them: worker k keeps @qd[k] I/Os of its own workload @w[k]
 * outstanding; @n I/Os in all, earliest client first. Returns the total;
 * @each[k] is worker k's share (rates over the same run). */
struct t_result t_run_workers(struct model *m, struct t_workload *const *w,
			      const unsigned *qd, unsigned workers, unsigned n,
			      struct t_result *each);
/* The built-in @name's text with @from (which must occur) replaced by
 * @to, or as it is with @from NULL; a malloc'd string. */
char *t_builtin_with(const char *name, const char *from, const char *to);
/* |got - want| <= tol * want, printing both on failure. */
void t_assert_within(double got, double want, double tol);

#endif
