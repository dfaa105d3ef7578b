/* The mounted daemon: session setup, detaching, the background syncer and
 * the control socket.
 *
 * Detaching is done by hand rather than with fuse_daemonize(): the child
 * opens the store, mounts, and only then tells the waiting parent "ok" or
 * the one-line reason it failed, so `arraysim mount` exits non-zero with
 * that reason on the terminal, and returns only once the mount is usable.
 * Everything with threads or an LMDB environment is created after the
 * fork, in the process that uses it.
 */
#include "fs/daemon.h"
#include "fs/fs_open.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/ctl.h"
#include "common/log.h"
#include "common/periodic.h"
#include "common/samples.h"
#include "fs/channel.h"
#include "faults/control.h"
#include "fs/fault_gate.h"
#include "store/loss.h"
#include "fs/graphite_push.h"
#include "fs/metrics_http.h"
#include "fs/scenario_run.h"
#include "fs/uring.h"
#include "fs/ops.h"
#include "faults/events.h"
#include "replication/repl.h"
#include "tiers/array.h"
#include "tiers/array_samples.h"
#include "tiers/array_stats.h"

struct daemon {
	struct fs fs;
	struct fuse_session *se;
	struct ctl_server *ctl;
	struct periodic *syncer; /* NULL without a sync interval */
	struct sampler *sampler;
	struct metrics_http *metrics;
	struct graphite_push *graphite;
	struct repl *repl; /* --replicate-to, or NULL */
	/* The sampler thread's alone: the array's picture and the last
	 * sample's counters. */
	struct array_snapshot snap;
	struct array_sample_prev array_prev;
};

/* ---- per-second samples ------------------------------------------------ */

/* The array model's members, from the snapshot sample_state took. */
static void array_members(void *ctx, FILE *out, double interval_s)
{
	struct daemon *d = ctx;
	array_sample_write(out, &d->snap, &d->array_prev, interval_s);
	array_snapshot_free(&d->snap);
	if (d->repl)
		repl_sample_write(d->repl, out, interval_s);
}

static void sample_state(void *ctx, struct sample_state *out)
{
	struct daemon *d = ctx;
	store_gauges(d->fs.st, &out->g);
	out->faults_active = faults_count(d->fs.faults);
	out->power_lost = store_powered_off(d->fs.st);
	/* Last, on the sampler's thread (the model's lock for one pass, never
	 * a FUSE worker's time), and before the sampler stamps the line: a
	 * host-bound model can hold its lock for a second, and a snapshot
	 * taken after the stamp showed a rebuild that far ahead of its line's
	 * time (top_array, sanitized). */
	array_snapshot(d->fs.array, &d->snap);
	out->extra = array_members;
	out->extra_ctx = d;
}

static int metrics_begin(struct daemon *d, const char *spec, char *err,
			 size_t errlen)
{
	struct sockaddr_in addr;
	int r = metrics_parse_addr(spec, &addr, err, errlen);
	if (!r)
		r = metrics_http_start(&d->fs, &addr, &d->metrics, err, errlen);
	if (!r)
		log_info("mount", "metrics at http://%s/metrics", spec);
	return r;
}

static int graphite_begin(struct daemon *d, const char *spec, char *err,
			  size_t errlen)
{
	struct graphite_target t;
	int r = graphite_parse_target(spec, &t, err, errlen) ? -EINVAL : 0;

	if (!r)
		r = graphite_push_start(&d->fs, &t, &d->graphite, err, errlen);
	if (!r)
		log_info("mount",
			 "metrics pushed to Carbon at %s:%s%s%s each "
			 "second",
			 t.host, t.port, *t.prefix ? ", prefix " : "",
			 t.prefix);
	return r;
}

static int sampler_begin(struct daemon *d, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/samples.jsonl", d->fs.store);
	int r = sampler_start(path, NS_PER_SEC, &d->fs.stats, sample_state, d,
			      &d->sampler);
	if (r)
		snprintf(err, errlen, "cannot start sampling to %.900s: %s",
			 path, strerror(-r));
	return r;
}

/* ---- background sync -------------------------------------------------- */

/* Like the kernel's writeback: bound what a host crash can take, and let
 * freed blocks (pending until a sync) be reused by writers that never
 * fsync. */
static void syncer_run(void *arg)
{
	struct daemon *d = arg;

	if (store_unsynced(d->fs.st)) {
		int r = store_sync(d->fs.st);
		if (r)
			log_error("fs", "background sync: %s", strerror(-r));
	}
	store_trim_meta_cache(d->fs.st);
}

/* A period after each run ends, as before; none when the interval is 0. */
static int syncer_start(struct daemon *d)
{
	if (!d->fs.cfg.sync_interval_ns)
		return 0;
	return periodic_start(d->fs.cfg.sync_interval_ns, 0, syncer_run, d,
			      &d->syncer);
}

static void syncer_stop(struct daemon *d)
{
	periodic_stop(d->syncer);
	d->syncer = NULL;
}

/* ---- control commands ------------------------------------------------- */

static void print_status(struct daemon *d, FILE *out)
{
	fprintf(out, "store %s\n", d->fs.store);
	const struct array_conf *ac = array_conf_get(d->fs.array);

	fprintf(out, "seed %llu\n", (unsigned long long)d->fs.cfg.seed);
	fprintf(out, "profile %s\n", ac->profile);
	fprintf(out, "scale %g\n", ac->scale);
	fprintf(out, "time_scale %g\n", ac->time_scale);
	fprintf(out, "version %s\n", ARRAYSIM_VERSION);
	fprintf(out, "faults %u\n", faults_count(d->fs.faults));
	fprintf(out, "events %s/events.jsonl\n", d->fs.store);
	fprintf(out, "transport %s\n", channel_transport());
	fprintf(out, "writeback_cache %s\n",
		d->fs.cfg.writeback_cache ? "on" : "off");
	if (d->repl)
		fprintf(out, "replication %s\n",
			repl_mode(d->repl) ? "sync" : "async");
	fprintf(out, "ring requests %llu\n", channel_ring_requests());
	fprintf(out, "ring pool requests %llu\n", uring_pool_requests());
	struct uring_use u = uring_use();
	fprintf(out, "ring entries peak %u of %u\n", u.peak, uring_depth());
	fprintf(out, "ring full %llu\n", u.full);
	struct store_commits c = store_commits(d->fs.st);
	fprintf(out, "commit groups %llu writes %llu by leader %llu\n",
		c.groups, c.writes, c.by_leader);
}

static int ctl_sync(struct daemon *d, char *err, size_t errlen)
{
	int r = store_sync(d->fs.st);
	if (r)
		snprintf(err, errlen, "sync failed: %s", strerror(-r));
	else if ((r = repl_sync_wait(d->repl)))
		snprintf(err, errlen,
			 "sync: durable here, not on the replica (synchronous "
			 "replication held back or failed: replication "
			 "status)");
	return r;
}

/* `model pause|resume`: said in the log and the event log, since every
 * figure of the time between is not the model's. */
static int ctl_model(struct daemon *d, bool pause, char *err, size_t errlen)
{
	if (array_model_pause(d->fs.array, pause)) {
		snprintf(err, errlen,
			 "model %s: the null profile has no timing "
			 "to pause",
			 pause ? "pause" : "resume");
		return -ENOTSUP;
	}
	log_info("ctl", "model %s", pause ? "paused" : "resumed");
	events_emit(d->fs.events, pause ? "model_pause" : "model_resume", "%s",
		    "");
	return 0;
}

/* stats --json with a "replication" object last: the counters' object,
 * its closing brace replaced. */
static int stats_json_with_replication(struct daemon *d,
				       const struct stats_gauges *g, FILE *out)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return -ENOMEM;
	stats_print(mem, &d->fs.stats, g, true);
	fclose(mem);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '}'))
		if (buf[--len] == '}')
			break;
	fwrite(buf, 1, len, out);
	fputs(",\"replication\":", out);
	repl_status_json(d->repl, out);
	fputs("}\n", out);
	free(buf);
	return 0;
}

static int ctl_stats(struct daemon *d, enum control_verb v, FILE *out,
		     char *err, size_t errlen)
{
	struct stats_gauges g;
	switch (v) {
	case CONTROL_STATS_MARK:
		array_stats_mark(d->fs.array);
		events_emit(d->fs.events, "stats_mark", "%s", "");
		return 0;
	case CONTROL_STATS_ARRAY_MARK:
	case CONTROL_STATS_ARRAY_MARK_JSON:
		if (array_stats_print_since_mark(
			d->fs.array, out, v == CONTROL_STATS_ARRAY_MARK_JSON)) {
			snprintf(err, errlen,
				 "no mark (ctl MOUNTPOINT stats "
				 "mark sets one)");
			return -ENOENT;
		}
		return 0;
	case CONTROL_STATS_RESET:
		stats_reset(&d->fs.stats);
		array_stats_reset(d->fs.array);
		log_info("ctl", "stats reset");
		return 0;
	case CONTROL_STATS_ARRAY:
	case CONTROL_STATS_ARRAY_JSON:
		array_stats_print(d->fs.array, out,
				  v == CONTROL_STATS_ARRAY_JSON,
				  clock_mono_ns() - d->fs.opened_ns);
		return 0;
	default:
		store_gauges(d->fs.st, &g);
		if (v == CONTROL_STATS_JSON && d->repl)
			return stats_json_with_replication(d, &g, out);
		stats_print(out, &d->fs.stats, &g, v == CONTROL_STATS_JSON);
		return 0;
	}
}

static int ctl_replication(struct daemon *d, const char *args, FILE *out,
			   char *err, size_t errlen)
{
	if (!d->repl) {
		snprintf(err, errlen,
			 "replication: not replicating (mount with "
			 "--replicate-to DEST)");
		return -ENOTSUP;
	}
	return repl_control(d->repl, args, out, err, errlen);
}

/* One command of the control protocol (faults/control.h), parsed there,
 * carried out here. */
static int ctl_handle(void *ctx, const char *line, FILE *out, char *err,
		      size_t errlen)
{
	struct daemon *d = ctx;
	struct control_cmd c;
	uint64_t id;
	if (!strncmp(line, "replication", 11) && (!line[11] || line[11] == ' '))
		return ctl_replication(d, line + 11, out, err, errlen);
	int r = control_parse(line, &c, err, errlen);
	if (r)
		return r;
	switch (c.verb) {
	case CONTROL_STATUS:
		print_status(d, out);
		return 0;
	case CONTROL_SYNC:
		return ctl_sync(d, err, errlen);
	case CONTROL_FAULT_INJECT:
		return fault_gate_inject(&d->fs, &c.rule, out, &id, err,
					 errlen);
	case CONTROL_FAULT_LIST:
		faults_list(d->fs.faults, out);
		return loss_list(d->fs.st, out);
	case CONTROL_FAULT_CLEAR:
		return fault_gate_clear(&d->fs, c.id, err, errlen);
	case CONTROL_SCENARIO_RUN:
		return scenario_run_start(&d->fs, c.path, c.time_scale, out,
					  err, errlen);
	case CONTROL_SCENARIO_STATUS:
		scenario_run_status(&d->fs, out);
		return 0;
	case CONTROL_SCENARIO_STOP:
		scenario_run_stop(&d->fs);
		return 0;
	case CONTROL_MODEL_PAUSE:
	case CONTROL_MODEL_RESUME:
		return ctl_model(d, c.verb == CONTROL_MODEL_PAUSE, err, errlen);
	default:
		return ctl_stats(d, c.verb, out, err, errlen);
	}
}

/* ---- detaching -------------------------------------------------------- */

/* The child's stderr while it opens the store is /dev/null; this is the
 * terminal's, restored once the store is open. -1: foreground. */
static int terminal_stderr = -1;

/* Parent side: wait for the child's verdict; the exit code of `mount`. */
static int wait_for_child(int rfd, pid_t pid, const char *store)
{
	char msg[1024];
	ssize_t n, got = 0;
	while ((n = read(rfd, msg + got, sizeof(msg) - 1 - got)) > 0)
		got += n;
	close(rfd);
	msg[got] = '\0';
	if (got == 0) {
		/* It died before it could say why: a crash while opening the
		 * store is LMDB tripping over a damaged page. */
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (WIFSIGNALED(st))
			fprintf(
			    stderr,
			    "arraysim: store %s: the daemon crashed opening "
			    "it (signal %d): its metadata is damaged\n",
			    store, WTERMSIG(st));
		else
			fprintf(stderr,
				"arraysim: the mount daemon exited while "
				"starting (see %s/arraysim.log)\n",
				store);
		return 2;
	}
	if (!strcmp(msg, "ok"))
		return 0;
	fprintf(stderr, "arraysim: %s\n", msg);
	return 2;
}

static void tell_parent(int *wfd, const char *msg)
{
	if (*wfd < 0)
		return;
	ssize_t n = write(*wfd, msg, strlen(msg));
	(void)n;
	close(*wfd);
	*wfd = -1;
}

/* Once the parent has its answer the daemon has no terminal: stdio goes
 * to /dev/null and the log to STORE/arraysim.log. None of the caller's
 * descriptors may stay open here, or whoever reads the caller's pipes
 * ($(...), | tee, a CI runner) waits until the unmount. */
static void detach_stdio(void)
{
	if (terminal_stderr >= 0) {
		close(terminal_stderr);
		terminal_stderr = -1;
	}
	int fd = open("/dev/null", O_RDWR);
	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

/* One line on the terminal that ran `mount`, and in the log if detached;
 * the parent has its answer, so the caller's descriptors go too. */
static void fail(int *wfd, const char *msg)
{
	if (*wfd < 0) {
		fprintf(stderr, "arraysim: %s\n", msg);
		return;
	}
	tell_parent(wfd, msg);
	detach_stdio();
	log_error("mount", "%s", msg);
}

static FILE *open_log(const char *store)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/arraysim.log", store);
	FILE *f = fopen(path, "ae");
	if (f)
		setvbuf(f, NULL, _IOLBF, 0);
	return f;
}

/* ---- the session ------------------------------------------------------ */

/* fsname shows in /proc/self/mountinfo as the source: "arraysim:STORE",
 * which is how `arraysim stats MOUNTPOINT` finds the control socket. */
static int build_args(const struct daemon_opts *o, const char *store,
		      struct fuse_args *args)
{
	char opts[8192];
	int n = snprintf(opts, sizeof(opts),
			 "fsname=arraysim:%s,subtype=arraysim,"
			 "default_permissions,noatime%s%s",
			 store, o->fuse_opts ? "," : "",
			 o->fuse_opts ? o->fuse_opts : "");
	if (n < 0 || (size_t)n >= sizeof(opts) || strchr(store, ','))
		return -ENAMETOOLONG;
	if (fuse_opt_add_arg(args, "arraysim") ||
	    fuse_opt_add_arg(args, "-o") || fuse_opt_add_arg(args, opts))
		return -ENOMEM;
	return 0;
}

static int start_session(struct daemon *d, const struct daemon_opts *o,
			 char *err, size_t errlen)
{
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	int r = build_args(o, d->fs.store, &args);
	if (r) {
		snprintf(err, errlen,
			 "store path %.900s cannot be a mount source "
			 "(no commas; under 4 KiB)",
			 d->fs.store);
		return r;
	}
	d->se = fuse_session_new(&args, &fs_ops, sizeof(fs_ops), &d->fs);
	fuse_opt_free_args(&args);
	if (!d->se) {
		snprintf(err, errlen, "bad FUSE options '%s'",
			 o->fuse_opts ? o->fuse_opts : "");
		return -EINVAL;
	}
	d->fs.session = d->se;
	if (fuse_set_signal_handlers(d->se)) {
		snprintf(err, errlen, "cannot install signal handlers");
		return -EIO;
	}
	if (fuse_session_mount(d->se, o->mountpoint)) {
		snprintf(err, errlen,
			 "cannot mount on %s (see above or the log)",
			 o->mountpoint);
		return -EIO;
	}
	r = channel_attach(d->se, o->io_uring);
	if (r) {
		snprintf(err, errlen, "FUSE channel: %s", strerror(-r));
		return r;
	}
	/* INIT is answered before the mount is reported up: the transport is
	 * then known, and io_uring=on can still refuse. */
	r = channel_handshake(d->se, err, errlen);
	if (!r)
		log_info("mount", "%s: transport %s", o->mountpoint,
			 channel_transport());
	return r;
}

/* Unmount and stop the transport. The session itself stays until
 * free_session: replies the array model or the fault gate still hold
 * are sent when the store closes, after this (they then fail, the
 * connection being gone, but they go through the session). */
static void stop_session(struct daemon *d)
{
	if (!d->se)
		return;
	fuse_session_unmount(d->se);
	channel_detach();
	fuse_remove_signal_handlers(d->se);
}

/* After fs_close: nothing can reply any more. */
static void free_session(struct daemon *d)
{
	channel_free();
	if (d->se)
		fuse_session_destroy(d->se);
	d->se = NULL;
}

static int serve(struct daemon *d)
{
	struct fuse_loop_config *lc = fuse_loop_cfg_create();
	if (!lc)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(lc, 0);
	fuse_loop_cfg_set_idle_threads(lc, 16);
	fuse_loop_cfg_set_max_threads(lc, 64);
	int r = fuse_session_loop_mt(d->se, lc);
	fuse_loop_cfg_destroy(lc);
	return r;
}

/* --replicate-to: replication from the mount's fault registry and event
 * log, to a store here or an `arraysim replica` (nothing without it). */
static int start_replication(struct daemon *d, const struct daemon_opts *o,
			     char *err, size_t errlen)
{
	if (!o->replicate_to)
		return 0;
	/* The link in the model (none with the null profile). */
	int r = array_replication(d->fs.array, o->repl_sync);
	if (r && r != -ENOTSUP) {
		snprintf(err, errlen, "replication link in the model: %s",
			 strerror(-r));
		return r;
	}
	r = repl_start(d->fs.st, &d->fs.stats,
		       &(struct repl_config){.dest = o->replicate_to,
					     .secret_file = o->secret_file,
					     .rpo_ns = o->rpo_ns,
					     .faults = d->fs.faults,
					     .events = d->fs.events,
					     .sync = o->repl_sync,
					     .array = d->fs.array},
		       &d->repl, err, errlen);
	d->fs.repl = d->repl; /* the metrics' */
	return r;
}

static int run(const struct daemon_opts *o, int *wfd)
{
	struct daemon *d = calloc(1, sizeof(*d));
	char err[1024];
	if (!d) {
		fail(wfd, "out of memory");
		return 2;
	}
	int r = fs_open(&d->fs, &o->cfg, err, sizeof(err));
	if (r) {
		fail(wfd, err);
		free(d);
		return 2;
	}
	if (*wfd >= 0) {
		FILE *logf = open_log(d->fs.store);
		if (logf)
			log_set_stream(logf); /* lives as long as the process */
	}
	/* The store opened: what libfuse has to say about the mountpoint may
	 * reach the terminal again. */
	if (terminal_stderr >= 0)
		dup2(terminal_stderr, STDERR_FILENO);
	const struct array_conf *ac = array_conf_get(d->fs.array);
	log_info("mount",
		 "store %s on %s, profile %s, scale %g, time scale %g, seed "
		 "%llu, arraysim %s, dedupe verify %s",
		 d->fs.store, o->mountpoint, ac->profile, ac->scale,
		 ac->time_scale, (unsigned long long)o->cfg.seed,
		 ARRAYSIM_VERSION, o->cfg.verify ? "on" : "off");
	int code = 2;
	r = start_session(d, o, err, sizeof(err));
	/* Before the control socket, whose thread reads d->repl. */
	if (!r)
		r = start_replication(d, o, err, sizeof(err));
	if (!r)
		r = ctl_server_start(d->fs.store, getuid(), ctl_handle, d,
				     &d->ctl, err, sizeof(err));
	if (!r && (r = syncer_start(d)))
		snprintf(err, sizeof(err), "cannot start syncer: %s",
			 strerror(-r));
	if (!r)
		r = sampler_begin(d, err, sizeof(err));
	if (!r && o->metrics)
		r = metrics_begin(d, o->metrics, err, sizeof(err));
	if (!r && o->graphite)
		r = graphite_begin(d, o->graphite, err, sizeof(err));
	if (r) {
		fail(wfd, err);
		goto out;
	}
	if (*wfd >= 0) {
		tell_parent(wfd, "ok");
		detach_stdio();
	}
	code = serve(d) ? 1 : 0;
	log_info("mount", "unmounting %s", o->mountpoint);
out:
	graphite_push_stop(d->graphite);
	metrics_http_stop(d->metrics);
	sampler_stop(d->sampler);
	syncer_stop(d);
	ctl_server_stop(d->ctl);
	scenario_run_stop(&d->fs); /* its steps may be replication's */
	/* After everything that reads it; ships what is committed, unless
	 * stopped or held back by a fault. */
	repl_close(d->repl);
	d->fs.repl = NULL;
	stop_session(d);
	fs_close(&d->fs);
	free_session(d);
	free(d);
	return code;
}

int fs_daemon_run(const struct daemon_opts *o)
{
	if (o->foreground)
		return run(o, &(int){-1});
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		fprintf(stderr, "arraysim: pipe: %s\n", strerror(errno));
		return 2;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "arraysim: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid > 0) {
		close(pfd[1]);
		return wait_for_child(pfd[0], pid, o->cfg.store);
	}
	close(pfd[0]);
	setsid();
	if (chdir("/") < 0)
		_exit(2);
	/* Until the store is known good (and writable) the parent reports
	 * errors; the log file is only made in a real store. */
	FILE *quiet = fopen("/dev/null", "we");
	if (quiet)
		log_set_stream(quiet);
	/* Nothing of the child's may reach the terminal but through the
	 * parent's one line (an LMDB assertion would otherwise print there). */
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	terminal_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (devnull >= 0)
		dup2(devnull, STDERR_FILENO);
	int code = run(o, &pfd[1]);
	_exit(code);
}
