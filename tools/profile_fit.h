/* `arraysim profile show NAME --ceiling FILE`: at which --scale a
 * profile's figures fit under this host's ceiling.
 *
 * The ceiling is what bench/ceiling.sh measured: fio through a mount of
 * the `null` profile (no timing), so the host's own path (FUSE, hashing,
 * metadata) is all there is. The profile's side is an estimate from its
 * model's resources, not a run: the peak each workload could reach if
 * only controllers' CPU, front-end links and drives' service limits
 * counted (profile_fit_peak). Queueing, seeks, RAID and cache misses only
 * lower a real figure, so the peak is an upper bound and the scale it
 * gives is one at which the host cannot be the limit; a lower-bound
 * workload may fit at a higher scale than printed.
 */
#ifndef ARRAYSIM_TOOLS_PROFILE_FIT_H
#define ARRAYSIM_TOOLS_PROFILE_FIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tiers/profile_types.h"

enum fit_workload {
	FIT_RAND4K_READ,
	FIT_RAND4K_WRITE,
	FIT_SEQ1M_READ,
	FIT_SEQ1M_WRITE,
	FIT_WORKLOADS,
};

struct fit_workload_def {
	const char *key;   /* in the ceiling file */
	const char *label; /* in the table */
	uint64_t bytes;	   /* per request */
	enum engine_op op;
};
extern const struct fit_workload_def fit_workloads[FIT_WORKLOADS];

/* Requests per second per workload; 0: not measured. */
struct fit_ceiling {
	double iops[FIT_WORKLOADS];
};

/* A ceiling file: "KEY IOPS" lines (keys as fit_workloads), '#'
 * comments, blank lines. 0, or -EINVAL with one line in @err naming
 * @file and the line. */
int fit_ceiling_parse(const char *text, size_t len, const char *file,
		      struct fit_ceiling *c, char *err, size_t errlen);
/* The file at @path; as above, or -errno if it cannot be read. */
int fit_ceiling_load(const char *path, struct fit_ceiling *c, char *err,
		     size_t errlen);
/* The peak requests per second of @w on @p at scale 1 (the estimate
 * above); *limit names the resource that sets it. 0 for the null
 * profile (no limit). */
double fit_peak(const struct profile *p, enum fit_workload w,
		const char **limit);
/* The table, as INI comments (the output still parses as a profile). */
void fit_print(FILE *f, const struct profile *p, const struct fit_ceiling *c);

#endif
