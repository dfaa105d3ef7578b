/* The front end's side of fault injection; see fs/fault_gate.h. What a
 * fault kind does lives in faults/<kind>.c; this file fills the hooks
 * they act through (faults/hooks.h) with the store and its array, and
 * answers the questions FUSE operations ask. */
#include "fs/fault_gate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "faults/events.h"
#include "faults/hooks.h"
#include "store/bitrot.h"
#include "fs/inode_table.h"
#include "store/loss.h"
#include "tiers/array.h"
#include "tiers/completer.h"

/* What is emulated, first in every run of the event log: top's header
 * and the report's summary name it from here. */
static void mount_event(struct fs *fs)
{
	const struct array_conf *ac = array_conf_get(fs->array);
	char store[8192], profile[8192];

	events_emit(fs->events, "mount",
		    "\"store\":\"%s\",\"profile\":\"%s\",\"scale\":%g,"
		    "\"time_scale\":%g,\"seed\":%llu,\"version\":\"%s\"",
		    events_json_escape(fs->store, store, sizeof(store)),
		    events_json_escape(ac->profile, profile, sizeof(profile)),
		    ac->scale, ac->time_scale, (unsigned long long)fs->cfg.seed,
		    ARRAYSIM_VERSION);
}

int fault_gate_open(struct fs *fs, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/events.jsonl", fs->store);
	int r = faults_new(fs->cfg.seed, &fs->faults);
	if (!r)
		r = events_open(path, &fs->events);
	if (!r)
		r = completer_new(&fs->fault_timers);
	if (r) {
		snprintf(err, errlen, "fault injection: %s: %s", path,
			 strerror(-r));
		fault_gate_close(fs);
		return r;
	}
	store_set_events(fs->st, fs->events);
	fs->bitrot_rng = fs->cfg.seed ^ 0x6a09e667f3bcc909ull;
	mount_event(fs);
	return 0;
}

void fault_gate_close(struct fs *fs)
{
	completer_free(fs->fault_timers);
	fs->fault_timers = NULL;
	if (fs->faults) /* hits not logged yet: before the run ends */
		faults_flush(fs->faults);
	if (fs->events)
		events_emit(fs->events, "unmount", "%s", "");
	events_close(fs->events);
	fs->events = NULL;
	faults_free(fs->faults);
	fs->faults = NULL;
	store_set_events(fs->st, NULL);
}

/* ---- decisions --------------------------------------------------------- */

struct where {
	struct fs *fs;
	uint64_t ino;	  /* the inode, or the directory of @name */
	const char *name; /* NULL: the inode itself */
};

static bool path_of(void *ctx, char *buf, size_t len)
{
	const struct where *w = ctx;
	if (!inode_table_path(w->fs->itab, w->ino, buf, len))
		return false;
	if (!w->name)
		return true;
	size_t n = strlen(buf);
	const char *sep = n > 1 ? "/" : ""; /* the root is "/" already */
	return (size_t)snprintf(buf + n, len - n, "%s%s", sep, w->name) <
	       len - n;
}

static void log_hit(struct fs *fs, unsigned op, const struct where *w,
		    const struct fault_hit *hit)
{
	char path[4096], esc[8192] = "";
	if (path_of((void *)w, path, sizeof(path)))
		events_json_escape(path, esc, sizeof(esc));
	events_emit(fs->events, "fault_hit",
		    "\"id\":%llu,\"op\":\"%s\",\"ino\":%llu,\"path\":\"%s\","
		    "\"errno\":%d,\"delay_us\":%llu,\"torn\":%s",
		    (unsigned long long)hit->rule_id, fault_op_name(op),
		    (unsigned long long)w->ino, esc, -hit->err,
		    (unsigned long long)(hit->delay_ns / 1000),
		    hit->torn ? "true" : "false");
}

static void decide(struct fs *fs, unsigned op, struct where *w,
		   struct fault_hit *hit)
{
	faults_check(fs->faults, op, path_of, w, hit);
	/* The rest are counted in fault_hits events by the registry. */
	if (hit->log_first)
		log_hit(fs, op, w, hit);
}

int fault_gate_meta(struct fs *fs, unsigned op, uint64_t ino, uint64_t parent,
		    const char *name)
{
	if (store_powered_off(fs->st))
		return -EIO;
	struct where w = {fs, name ? parent : ino, name};
	struct fault_hit hit;
	decide(fs, op, &w, &hit);
	if (hit.delay_ns) {
		/* A slow metadata server holds the host's thread as long. */
		struct timespec ts = {(time_t)(hit.delay_ns / NS_PER_SEC),
				      (long)(hit.delay_ns % NS_PER_SEC)};
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	return hit.err;
}

/* A torn write stores a prefix and reports all of it written, as a
 * device that loses power mid-write told its host. */
static void torn_event(struct fs *fs, uint64_t ino, uint64_t off, size_t len,
		       size_t kept, uint64_t rule_id)
{
	events_emit(fs->events, "torn_write",
		    "\"id\":%llu,\"ino\":%llu,\"offset\":%llu,\"length\":%zu,"
		    "\"persisted\":%zu",
		    (unsigned long long)rule_id, (unsigned long long)ino,
		    (unsigned long long)off, len, kept);
}

void fault_gate_io(struct fs *fs, unsigned op, uint64_t ino, uint64_t off,
		   size_t len, struct fault_hit *hit)
{
	struct where w = {fs, ino, NULL};
	decide(fs, op, &w, hit);
	if (store_powered_off(fs->st))
		hit->err = -EIO;
	hit->keep = len;
	if (hit->torn && !hit->err) {
		hit->keep = fault_torn_prefix(len);
		torn_event(fs, ino, off, len, hit->keep, hit->rule_id);
	}
}

bool fault_gate_thin_full(struct fs *fs, uint64_t unique)
{
	uint64_t limit;
	if (!faults_thin_limit(fs->faults, &limit) || unique < limit)
		return false;
	if (!atomic_exchange(&fs->thin_full_logged, true))
		events_emit(fs->events, "thin_full",
			    "\"capacity_blocks\":%llu,\"unique_blocks\":%llu",
			    (unsigned long long)limit,
			    (unsigned long long)unique);
	return true;
}

/* ---- the hooks fault kinds act through (faults/hooks.h) --------------- */

static int hook_corrupt(void *ctx, const struct fault_rule *r, FILE *out,
			char *err, size_t errlen)
{
	struct fs *fs = ctx;

	return bitrot_inject(fs->st, r, &fs->bitrot_rng, out, err, errlen);
}

/* Everything since the last sync is lost at the next mount; until the
 * unmount, every operation fails (store_power_cut). */
static int hook_power_cut(void *ctx, uint64_t *lost, bool *was, char *err,
			  size_t errlen)
{
	struct fs *fs = ctx;

	return store_power_cut(fs->st, lost, was, err, errlen);
}

static int hook_cache_fail(void *ctx, FILE *out, char *err, size_t errlen)
{
	struct fs *fs = ctx;

	return loss_cache_device(fs->st, out, err, errlen);
}

static void hook_thin_changed(void *ctx)
{
	struct fs *fs = ctx;

	atomic_store(&fs->thin_full_logged, false);
}

static struct model_fault model_fault_of(const struct fault_array *f)
{
	static const enum model_fault_kind kinds[] = {
	    [FAULT_ARRAY_CONTROLLER] = MODEL_FAULT_CONTROLLER,
	    [FAULT_ARRAY_PATH] = MODEL_FAULT_PATH,
	    [FAULT_ARRAY_DRIVE] = MODEL_FAULT_DRIVE,
	    [FAULT_ARRAY_DRIVE_SLOW] = MODEL_FAULT_DRIVE_SLOW,
	};

	return (struct model_fault){.kind = kinds[f->kind],
				    .tier = f->tier,
				    .id = f->id,
				    .factor = f->factor};
}

static int hook_array_set(void *ctx, const struct fault_array *f, bool on,
			  uint64_t *now_ns, struct fault_array_effect *e,
			  char *err, size_t errlen)
{
	struct fs *fs = ctx;
	struct model_fault m = model_fault_of(f);
	struct model_fault_effect me;
	int r = array_fault(fs->array, &m, on, now_ns, &me, err, errlen);

	if (!r)
		*e = (struct fault_array_effect){
		    .stall_from = me.stall_from,
		    .stall_until = me.stall_until,
		    .down = me.down,
		    .down_changed = me.down_changed,
		    .serving = me.serving,
		    .serves_ns = me.serves_ns,
		    .fail_ns = me.fail_ns,
		    .rebuild_end_ns = me.rebuild_end_ns,
		    .rebuild_bytes = me.rebuild_bytes,
		    .resync = me.resync,
		    .unnoticed = me.unnoticed,
		    .loss = me.loss};
	return r;
}

static bool hook_array_current(void *ctx, const struct fault_array *f,
			       enum fault_array_mark mark, uint64_t key_ns)
{
	static const enum model_fault_mark marks[] = {
	    [FAULT_MARK_STALL] = MODEL_MARK_STALL,
	    [FAULT_MARK_SERVES] = MODEL_MARK_SERVES,
	    [FAULT_MARK_DRIVE] = MODEL_MARK_DRIVE,
	};
	struct fs *fs = ctx;
	struct model_fault m = model_fault_of(f);

	return array_fault_current(fs->array, &m, marks[mark], key_ns);
}

static int hook_rebuild_end(void *ctx, const struct fault_array *f,
			    uint64_t fail_ns, uint64_t *end_ns)
{
	struct fs *fs = ctx;
	struct model_fault m = model_fault_of(f);

	return array_rebuild_end(fs->array, &m, fail_ns, end_ns);
}

static int hook_loss_report(void *ctx, unsigned loss, FILE *out, char *err,
			    size_t errlen)
{
	struct fs *fs = ctx;

	return loss_add_event(fs->st, loss, out, err, errlen);
}

/* A fault timer on the fault completer (the struct array_io is only its
 * handle there). */
struct gate_timer {
	struct array_io io; /* first: the completer hands this back */
	struct fault_timer *t;
};

static void gate_timer_fire(struct array_io *io)
{
	struct gate_timer *g = (struct gate_timer *)io;
	struct fault_timer *t = g->t;

	free(g);
	t->fire(t);
}

static int hook_timer(void *ctx, uint64_t due_ns, struct fault_timer *t)
{
	struct fs *fs = ctx;
	struct gate_timer *g = calloc(1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	g->t = t;
	g->io.complete = gate_timer_fire;
	int r = completer_submit(fs->fault_timers, due_ns, &g->io);
	if (r)
		free(g);
	return r;
}

static const struct fault_hooks gate_hooks = {
    .corrupt = hook_corrupt,
    .power_cut = hook_power_cut,
    .cache_fail = hook_cache_fail,
    .thin_changed = hook_thin_changed,
    .array_set = hook_array_set,
    .array_current = hook_array_current,
    .rebuild_end = hook_rebuild_end,
    .loss_report = hook_loss_report,
    .timer = hook_timer,
};

static struct fault_env env_of(struct fs *fs)
{
	return (struct fault_env){.hooks = &gate_hooks,
				  .ctx = fs,
				  .faults = fs->faults,
				  .events = fs->events};
}

/* ---- control commands --------------------------------------------------- */

int fault_gate_inject(struct fs *fs, const struct fault_rule *rule, FILE *out,
		      uint64_t *id, char *err, size_t errlen)
{
	struct fault_env env = env_of(fs);

	return fault_inject(&env, rule, out, id, err, errlen);
}

int fault_gate_clear(struct fs *fs, uint64_t id, char *err, size_t errlen)
{
	struct fault_env env = env_of(fs);

	return fault_clear(&env, id, err, errlen);
}
