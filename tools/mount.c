/* arraysim mount: options, checks, then the daemon (fs/daemon.c). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/crypto.h>

#include "fs/daemon.h"
#include "common/graphite.h"
#include "fs/metrics_http.h"
#include "replication/frame.h"
#include "replication/link.h"
#include "tiers/profile.h"
#include "tools/commands.h"
#include "tools/mount_opts.h"
#include "tools/options.h"

static const char synopsis[] = "[OPTIONS] MOUNTPOINT";

/* The default store lives under XDG_DATA_HOME and is made on first use;
 * an explicit --store must already exist, so a typo never makes one. */
static int default_store(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	char base[PATH_MAX];
	if (xdg && *xdg)
		snprintf(base, sizeof(base), "%s/arraysim", xdg);
	else if (home && *home)
		snprintf(base, sizeof(base), "%s/.local/share/arraysim", home);
	else
		return -ENOENT;
	char parent[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", base);
	for (char *p = parent + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(parent, 0755);
		*p = '/';
	}
	mkdir(parent, 0700);
	if ((size_t)snprintf(buf, len, "%.4000s/store", base) >= len)
		return -ENAMETOOLONG;
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int resolve_dir(const char *what, const char *path, char *out)
{
	if (!realpath(path, out)) {
		tool_error("%s %s: %s", what, path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (stat(out, &st) < 0 || !S_ISDIR(st.st_mode)) {
		tool_error("%s %s is not a directory", what, path);
		return -1;
	}
	return 0;
}

/* --replicate-to HOST:PORT: its secret file checked, made absolute. */
static int check_secret(const struct mount_opts *o, char *secret)
{
	char err[512];
	struct repl_secret s;
	if (!o->secret_file) {
		tool_error("mount: --replicate-to %s: TCP needs "
			   "--replication-secret-file",
			   o->replicate_to);
		return -1;
	}
	int e = repl_secret_load(o->secret_file, &s, err, sizeof(err));
	OPENSSL_cleanse(&s, sizeof(s));
	if (e || !realpath(o->secret_file, secret)) {
		tool_error("mount: %s", e ? err : strerror(errno));
		return -1;
	}
	return 0;
}

/* --replicate-to's directory made absolute (created when missing: a new
 * replica) or its HOST:PORT kept, --rpo and the secret checked with it. */
static int check_replica(struct mount_opts *o, char *out, char *secret)
{
	bool rpo_given = o->rpo_ns != MOUNT_RPO_UNSET;
	if (!rpo_given)
		o->rpo_ns = 0; /* the engine's default */
	else if (!o->rpo_ns) {
		tool_error("mount: --rpo: must be more than 0");
		return -1;
	}
	bool tcp = o->replicate_to && repl_link_is_tcp(o->replicate_to);
	if (!tcp && o->secret_file) {
		tool_error("mount: --replication-secret-file needs "
			   "--replicate-to HOST:PORT");
		return -1;
	}
	if (o->repl_mode && strcmp(o->repl_mode, "sync") &&
	    strcmp(o->repl_mode, "async")) {
		tool_error("mount: --replication-mode: '%s' is not sync or "
			   "async",
			   o->repl_mode);
		return -1;
	}
	if (!o->replicate_to) {
		if (rpo_given || o->repl_mode)
			tool_error("mount: --%s needs --replicate-to",
				   rpo_given ? "rpo" : "replication-mode");
		return rpo_given || o->repl_mode ? -1 : 0;
	}
	if (tcp) {
		snprintf(out, PATH_MAX, "%s", o->replicate_to);
		return check_secret(o, secret);
	}
	if (mkdir(o->replicate_to, 0700) < 0 && errno != EEXIST) {
		tool_error("mount: --replicate-to %s: %s", o->replicate_to,
			   strerror(errno));
		return -1;
	}
	return resolve_dir("--replicate-to", o->replicate_to, out);
}

/* Load and check --profile, --scale and --time-scale before anything is
 * mounted, so that a bad profile is one line and no mount. A profile
 * file's path is made absolute in @path: the daemon loads it again after
 * leaving the current directory. */
static int check_profile(const struct mount_opts *o, double *scale,
			 double *time_scale, char *path)
{
	char err[PROFILE_ERR_LEN];
	struct profile *p;
	int rc;

	if (mount_opts_check_scale(o, scale, time_scale))
		return -1;
	p = malloc(sizeof(*p));
	if (!p) {
		tool_error("mount: out of memory");
		return -1;
	}
	rc = profile_load(o->profile, p, err, sizeof(err));
	free(p);
	if (rc) {
		tool_error("mount: %s", err);
		return -1;
	}
	snprintf(path, PATH_MAX, "%s", o->profile);
	if (strchr(o->profile, '/') || strstr(o->profile, ".ini"))
		if (!realpath(o->profile, path)) {
			tool_error("mount: profile %s: %s", o->profile,
				   strerror(errno));
			return -1;
		}
	return 0;
}

/* --metrics and --graphite, checked before anything is mounted. */
static int check_endpoints(const struct mount_opts *o)
{
	struct sockaddr_in maddr;
	struct graphite_target gt;
	char merr[256];
	if ((o->metrics &&
	     metrics_parse_addr(o->metrics, &maddr, merr, sizeof(merr))) ||
	    (o->graphite &&
	     graphite_parse_target(o->graphite, &gt, merr, sizeof(merr)))) {
		tool_error("mount: %s", merr);
		return -1;
	}
	return 0;
}

int cmd_mount(int argc, char **argv)
{
	struct mount_opts o;
	const char *pos[1];
	int npos;

	mount_opts_init(&o);
	int r = opts_parse("mount", synopsis, mount_opt_defs, &o, argc, argv,
			   pos, 1, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	if (npos != 1) {
		tool_error("mount: no MOUNTPOINT given (usage: arraysim mount "
			   "%s)",
			   synopsis);
		return 2;
	}
	char profile[PATH_MAX];
	double scale, time_scale;
	if (check_profile(&o, &scale, &time_scale, profile))
		return 2;
	char replica[PATH_MAX], secret[PATH_MAX];
	if (check_endpoints(&o) || check_replica(&o, replica, secret))
		return 2;
	char store[PATH_MAX], mnt[PATH_MAX], def[PATH_MAX];
	if (!o.store) {
		if (default_store(def, sizeof(def))) {
			tool_error("mount: no --store given and no HOME for "
				   "the default store");
			return 2;
		}
		o.store = def;
	}
	if (resolve_dir("store", o.store, store) ||
	    resolve_dir("mountpoint", pos[0], mnt))
		return 2;
	char fuse_opts[4096], oerr[256];
	const char *rest;
	enum channel_uring transport;
	if (uring_opt_take(o.fuse_opts, fuse_opts, sizeof(fuse_opts), &rest,
			   &transport, oerr, sizeof(oerr))) {
		tool_error("mount: %s", oerr);
		return 2;
	}
	bool writeback;
	/* rest points into fuse_opts: taken from it in place. */
	rest = uring_opt_take_flag(rest ? fuse_opts + (rest - fuse_opts) : NULL,
				   "writeback_cache", &writeback);
	struct daemon_opts d = {
	    .cfg = {.store = store,
		    .seed = o.seed,
		    .verify = o.verify,
		    .kernel_cache = o.kernel_cache,
		    .writeback_cache = writeback,
		    .sync_interval_ns = o.sync_interval_ns,
		    .meta_map_bytes = o.meta_max,
		    .meta_cache_bytes = o.meta_cache,
		    .power_loss = o.power_loss,
		    .hold_pending = o.replicate_to != NULL,
		    .profile = profile,
		    .scale = scale,
		    .time_scale = time_scale},
	    .mountpoint = mnt,
	    .foreground = o.foreground,
	    .fuse_opts = rest,
	    .metrics = o.metrics,
	    .graphite = o.graphite,
	    .io_uring = transport,
	    .replicate_to = o.replicate_to ? replica : NULL,
	    .rpo_ns = o.rpo_ns,
	    .repl_sync = o.repl_mode && !strcmp(o.repl_mode, "sync"),
	    .secret_file = o.secret_file ? secret : NULL,
	};
	return fs_daemon_run(&d);
}
