/* arraysim mount's options: the table (parser and --help), the struct it
 * fills, and the checks that need more than one option (tools/mount.c
 * runs them before anything is mounted). The struct's scale, time_scale
 * and seed are what tiers/array.h's struct array_conf takes. */
#ifndef ARRAYSIM_TOOLS_MOUNT_OPTS_H
#define ARRAYSIM_TOOLS_MOUNT_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/options.h"

struct mount_opts {
	const char *store;
	uint64_t seed;
	bool verify;
	bool kernel_cache;
	bool foreground;
	const char *fuse_opts;
	uint64_t sync_interval_ns;
	uint64_t meta_max;
	uint64_t meta_cache;
	const char *profile; /* "null" unless given */
	const char *scale;   /* as typed; NULL: not given */
	/* As typed; NULL: not given (then the same as --scale). */
	const char *time_scale;
	const char *metrics;
	const char *graphite;
	bool power_loss;
	const char *replicate_to; /* --replicate-to DEST, or NULL */
	uint64_t rpo_ns;	  /* --rpo, or MOUNT_RPO_UNSET */
	const char *secret_file;  /* --replication-secret-file, or NULL */
	const char *repl_mode;	  /* --replication-mode, or NULL (async) */
};
#define MOUNT_RPO_UNSET UINT64_MAX

extern const struct opt_def mount_opt_defs[];

/* The defaults, before parsing. */
void mount_opts_init(struct mount_opts *o);
/* Check --scale and --time-scale against each other and the profile:
 * each a factor in (0, 1000]; neither with the null profile (it has no
 * rates nor fault durations to scale). Fills *@scale and *@time_scale
 * (1 and the scale when not given). 0, or -1 after one tool_error line. */
int mount_opts_check_scale(const struct mount_opts *o, double *scale,
			   double *time_scale);

#endif
