/* arraysim mount's option table and the checks across options (see
 * tools/mount_opts.h). */
#include <stddef.h>
#include <string.h>

#include "tiers/profile.h"
#include "tools/commands.h"
#include "tools/mount_opts.h"

#define O(f) offsetof(struct mount_opts, f)
const struct opt_def mount_opt_defs[] = {
    {"store", 0, OPT_STRING, O(store), "DIR",
     "store directory (must exist; empty: a new store is made). "
     "Default: ~/.local/share/arraysim/store"},
    {"profile", 0, OPT_STRING, O(profile), "NAME|FILE",
     "array profile: a built-in (arraysim profiles) or an .ini file "
     "(default null: no timing)"},
    {"scale", 0, OPT_STRING, O(scale), "F",
     "multiply every rate of the profile by F, 0 < F <= 1000 (default 1)"},
    {"time-scale", 0, OPT_STRING, O(time_scale), "F",
     "divide the profile's fault durations (failover, detection, "
     "multipath timeout, recovery, rebuild) by F, without making the "
     "array faster, 0 < F <= 1000 (default: the --scale)"},
    {"seed", 0, OPT_U64, O(seed), "N",
     "seed of every random choice the model makes (default 0)"},
    {"dedupe-verify", 0, OPT_BOOL, O(verify), "on|off",
     "compare bytes before taking a dedupe reference (default on)"},
    {"kernel-cache", 0, OPT_FLAG, O(kernel_cache), NULL,
     "let the kernel cache file data (timing no longer sees every I/O)"},
    {"sync-interval", 0, OPT_DURATION, O(sync_interval_ns), "TIME",
     "background sync period, 0 for none (default 5s)"},
    {"meta-max", 0, OPT_SIZE, O(meta_max), "SIZE",
     "largest the metadata store may grow (default 64G)"},
    {"meta-cache", 0, OPT_SIZE, O(meta_cache), "SIZE",
     "metadata kept mapped in the daemon, checked every 256 commits "
     "and at each sync; 0 for no bound (default 256M)"},
    {"power-loss", 0, OPT_FLAG, O(power_loss), NULL,
     "keep the state of the last sync, so that `fault inject "
     "power-loss` can return to it (costs write speed)"},
    {"metrics", 0, OPT_STRING, O(metrics), "[ADDR:]PORT",
     "serve Prometheus metrics at http://ADDR:PORT/metrics (ADDR "
     "default 127.0.0.1)"},
    {"graphite", 0, OPT_STRING, O(graphite), "HOST:PORT[,prefix=P]",
     "push the same series to a Carbon server (Graphite's plaintext "
     "protocol) once a second, paths under P"},
    {"replicate-to", 0, OPT_STRING, O(replicate_to), "DEST",
     "replicate asynchronously to the store in directory DEST on this "
     "host (made when missing or empty), or to `arraysim replica` at "
     "HOST:PORT (a DEST with ':' and no '/'): a consistent prior state of "
     "this one, mountable; `arraysim ctl MNT replication ...`"},
    {"replication-secret-file", 0, OPT_STRING, O(secret_file), "FILE",
     "with --replicate-to HOST:PORT: the secret shared with the replica "
     "(not empty, not readable by others)"},
    {"replication-mode", 0, OPT_STRING, O(repl_mode), "sync|async",
     "with --replicate-to: async (the default) acknowledges at once and "
     "ships batches; sync adds the replication link's round trip and the "
     "replica's ack to each write in the model, and an fsync returns once "
     "the replica has what it covers"},
    {"rpo", 0, OPT_DURATION, O(rpo_ns), "TIME",
     "with --replicate-to: the longest between batches, besides each "
     "sync point (default 1s)"},
    {"foreground", 'f', OPT_FLAG, O(foreground), NULL,
     "stay in the foreground, log to stderr"},
    {"options", 'o', OPT_STRING, O(fuse_opts), "OPTS",
     "FUSE mount options, e.g. allow_other; and io_uring=off|auto|on: "
     "the FUSE transport (auto: io_uring when the kernel offers it, on: "
     "no mount without it; default off); and writeback_cache: the "
     "kernel's writeback cache, a client's page cache (a guest's or an "
     "NFS client's) in front of the array: buffered writes reach it "
     "coalesced, cached reads do not reach it (default off)"},
    {0},
};
#undef O

void mount_opts_init(struct mount_opts *o)
{
	*o = (struct mount_opts){.verify = true,
				 .profile = "null",
				 .sync_interval_ns = 5000000000ull,
				 .meta_cache = 256ull << 20,
				 .rpo_ns = MOUNT_RPO_UNSET};
}

int mount_opts_check_scale(const struct mount_opts *o, double *scale,
			   double *time_scale)
{
	*scale = 1.0;
	if (o->scale && profile_parse_scale(o->scale, scale)) {
		tool_error("mount: --scale: '%s' is not a factor in (0, 1000]",
			   o->scale);
		return -1;
	}
	*time_scale = *scale;
	if (o->time_scale && profile_parse_scale(o->time_scale, time_scale)) {
		tool_error("mount: --time-scale: '%s' is not a factor in "
			   "(0, 1000]",
			   o->time_scale);
		return -1;
	}
	/* The null model has no rates nor durations: a factor would be
	 * silently ignored, and the user would believe the array scaled. */
	if ((o->scale || o->time_scale) && !strcmp(o->profile, "null")) {
		tool_error("mount: --%s needs a timed --profile (the null "
			   "profile has no rates nor fault durations to scale)",
			   o->scale ? "scale" : "time-scale");
		return -1;
	}
	return 0;
}
