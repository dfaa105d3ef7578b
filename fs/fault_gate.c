/* The front end's side of fault injection; see fs/fault_gate.h. */
#include "fs/fault_gate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/clock.h"
#include "faults/events.h"
#include "fs/bitrot.h"
#include "fs/inode_table.h"
#include "fs/loss.h"
#include "tiers/completer.h"

int fault_gate_open(struct fs *fs, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/events.jsonl", fs->store);
	int r = faults_new(fs->cfg.seed, &fs->faults);
	if (!r)
		r = events_open(path, &fs->events);
	if (!r)
		r = completer_new(&fs->fault_delay);
	if (r) {
		snprintf(err, errlen, "fault injection: %s: %s", path,
			 strerror(-r));
		fault_gate_close(fs);
		return r;
	}
	snprintf(path, sizeof(path), "%s/lost.blocks", fs->store);
	r = loss_open(fs, path, err, errlen);
	if (r) {
		fault_gate_close(fs);
		return r;
	}
	fs->bitrot_rng = fs->cfg.seed ^ 0x6a09e667f3bcc909ull;
	events_emit(fs->events, "mount", "\"store\":\"%s\",\"seed\":%llu",
		    events_json_escape(fs->store, path, sizeof(path)),
		    (unsigned long long)fs->cfg.seed);
	return 0;
}

void fault_gate_close(struct fs *fs)
{
	completer_free(fs->fault_delay);
	fs->fault_delay = NULL;
	if (fs->events)
		events_emit(fs->events, "unmount", "%s", "");
	events_close(fs->events);
	fs->events = NULL;
	faults_free(fs->faults);
	fs->faults = NULL;
	loss_close(fs);
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
	if (hit->rule_id)
		log_hit(fs, op, w, hit);
}

int fault_gate_meta(struct fs *fs, unsigned op, uint64_t ino, uint64_t parent,
		    const char *name)
{
	if (atomic_load_explicit(&fs->powered_off, memory_order_relaxed))
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

void fault_gate_io(struct fs *fs, unsigned op, uint64_t ino, uint64_t off,
		   size_t len, struct fault_hit *hit)
{
	struct where w = {fs, ino, NULL};
	decide(fs, op, &w, hit);
	if (atomic_load_explicit(&fs->powered_off, memory_order_relaxed))
		hit->err = -EIO;
}

size_t fault_gate_torn_prefix(size_t len)
{
	return (len / 2) & ~(size_t)511;
}

void fault_gate_torn_event(struct fs *fs, uint64_t ino, uint64_t off,
			   size_t len, size_t kept, uint64_t rule_id)
{
	events_emit(fs->events, "torn_write",
		    "\"id\":%llu,\"ino\":%llu,\"offset\":%llu,\"length\":%zu,"
		    "\"persisted\":%zu",
		    (unsigned long long)rule_id, (unsigned long long)ino,
		    (unsigned long long)off, len, kept);
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

/* ---- control commands --------------------------------------------------- */

/* Everything since the last sync is lost at the next mount; until the
 * unmount, every operation fails. The lock keeps a sync from running in
 * the middle. */
static int power_loss(struct fs *fs, const char *rule_json, FILE *out,
		      char *err, size_t errlen)
{
	pthread_mutex_lock(&fs->sync_lock);
	uint64_t lost = atomic_load(&fs->commits) - fs->synced_commits;
	bool was = atomic_exchange(&fs->powered_off, true);
	int r = was ? 0 : metastore_durable_save(fs->ms, err, errlen);
	if (r)
		atomic_store(&fs->powered_off, false);
	pthread_mutex_unlock(&fs->sync_lock);
	if (r)
		return r;
	if (!was) {
		events_emit(fs->events, "inject",
			    "\"id\":0,\"rule\":\"%s\",\"commits_lost\":%llu",
			    rule_json, (unsigned long long)lost);
		log_warn("faults",
			 "power lost: %llu commits since the last sync are "
			 "gone at the next mount; every operation fails "
			 "until the unmount",
			 (unsigned long long)lost);
	}
	fprintf(out,
		"power lost: %llu commits since the last sync are gone; "
		"unmount and mount again to see the state of the last sync\n",
		(unsigned long long)lost);
	return 0;
}

/* ---- array faults (tiers/model_faults.c) -------------------------------- */

static struct model_fault model_fault_of(const struct fault_rule *r)
{
	struct model_fault f = {.id = r->id, .tier = r->tier};

	f.factor = r->factor;
	f.kind = r->kind == FAULT_CONTROLLER ? MODEL_FAULT_CONTROLLER
		 : r->kind == FAULT_PATH     ? MODEL_FAULT_PATH
		 : r->kind == FAULT_DRIVE    ? MODEL_FAULT_DRIVE
					     : MODEL_FAULT_DRIVE_SLOW;
	return f;
}

static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* A transition the model fixed at a change, logged live when it comes:
 * a timer of the fault completer (the struct array_io is only its
 * handle). Dropped when a later change moved or cancelled it, or when
 * the mount ends first. */
struct mark {
	struct array_io io; /* first: the completer hands this back */
	struct fs *fs;
	uint64_t id, due_ns, key_ns;
	struct model_fault f;
	enum model_fault_mark what;
	const char *event;
	unsigned pct; /* rebuild_progress */
};

static void mark_fire(struct array_io *io)
{
	struct mark *k = (struct mark *)io;

	/* Early only when the mount ends (the completer flushes). */
	if (clock_mono_ns() + 1000000 >= k->due_ns &&
	    array_fault_current(k->fs->array, &k->f, k->what, k->key_ns)) {
		if (k->pct)
			events_emit(k->fs->events, k->event,
				    "\"id\":%llu,\"pct\":%u",
				    (unsigned long long)k->id, k->pct);
		else
			events_emit(k->fs->events, k->event, "\"id\":%llu",
				    (unsigned long long)k->id);
	}
	free(k);
}

static void mark_at(struct fs *fs, uint64_t id, const struct model_fault *f,
		    enum model_fault_mark what, uint64_t key_ns,
		    uint64_t due_ns, const char *event, unsigned pct)
{
	struct mark *k = calloc(1, sizeof(*k));

	if (!k)
		return; /* the schedule was logged already */
	*k = (struct mark){.fs = fs,
			   .id = id,
			   .due_ns = due_ns,
			   .key_ns = key_ns,
			   .f = *f,
			   .what = what,
			   .event = event,
			   .pct = pct};
	k->io.complete = mark_fire;
	if (completer_submit(fs->fault_delay, due_ns, &k->io))
		free(k);
}

/* The live events of effect @e: stall_end, serving_again, noticed,
 * rebuild_progress every 10%, rebuild_end. */
static void mark_effects(struct fs *fs, uint64_t id,
			 const struct model_fault *f,
			 const struct model_fault_effect *e)
{
	if (e->stall_until)
		mark_at(fs, id, f, MODEL_MARK_STALL, e->stall_until,
			e->stall_until, "stall_end", 0);
	if (e->serves_ns)
		mark_at(fs, id, f, MODEL_MARK_SERVES, e->serves_ns,
			e->serves_ns, "serving_again", 0);
	if (!e->rebuild_bytes)
		return;
	mark_at(fs, id, f, MODEL_MARK_DRIVE, e->fail_ns, e->fail_ns, "noticed",
		0);
	for (unsigned pct = 10; pct < 100; pct += 10)
		mark_at(fs, id, f, MODEL_MARK_DRIVE, e->fail_ns,
			e->fail_ns +
			    (e->rebuild_end_ns - e->fail_ns) / 100 * pct,
			"rebuild_progress", pct);
	mark_at(fs, id, f, MODEL_MARK_DRIVE, e->fail_ns, e->rebuild_end_ns,
		"rebuild_end", 0);
}

/* What the model said the change does, as events: times are seconds
 * from this event ("in_s"), which the model fixed at the change. */
static void emit_effects(struct fs *fs, uint64_t id, uint64_t now,
			 const struct model_fault_effect *e)
{
	if (e->stall_until)
		events_emit(fs->events, "stall",
			    "\"id\":%llu,\"in_s\":%.6f,\"lasts_s\":%.6f",
			    (unsigned long long)id, secs(e->stall_from - now),
			    secs(e->stall_until - e->stall_from));
	if (e->down_changed)
		events_emit(fs->events, e->down ? "shutdown" : "online",
			    "\"id\":%llu", (unsigned long long)id);
	if (e->serving)
		events_emit(fs->events, "serving",
			    "\"id\":%llu,\"serving\":%u,\"in_s\":%.6f",
			    (unsigned long long)id, e->serving,
			    secs(e->stall_until ? e->stall_until - now : 0));
	if (e->serves_ns)
		events_emit(fs->events, "recovering",
			    "\"id\":%llu,\"serves_in_s\":%.6f",
			    (unsigned long long)id, secs(e->serves_ns - now));
	if (e->rebuild_bytes)
		events_emit(fs->events, "rebuild",
			    "\"id\":%llu,\"in_s\":%.6f,\"lasts_s\":%.6f,"
			    "\"bytes\":%llu",
			    (unsigned long long)id, secs(e->fail_ns - now),
			    secs(e->rebuild_end_ns - e->fail_ns),
			    (unsigned long long)e->rebuild_bytes);
	if (e->unnoticed)
		events_emit(fs->events, "unnoticed",
			    "\"id\":%llu,\"why\":\"back within the "
			    "detection window\"",
			    (unsigned long long)id);
}

/* Set or clear array fault @r (rule @id; 0 before it has one); *loss:
 * the loss event it caused (0: none). */
static int array_change(struct fs *fs, const struct fault_rule *r, uint64_t id,
			bool on, unsigned *loss, char *err, size_t errlen)
{
	struct model_fault f = model_fault_of(r);
	struct model_fault_effect e;
	uint64_t now;
	int rc = array_fault(fs->array, &f, on, &now, &e, err, errlen);

	if (!rc) {
		emit_effects(fs, id, now, &e);
		mark_effects(fs, id, &f, &e);
	}
	*loss = rc ? 0 : e.loss;
	return rc;
}

int fault_gate_inject(struct fs *fs, const struct fault_rule *rule, FILE *out,
		      uint64_t *idp, char *err, size_t errlen)
{
	char text[FAULT_PATH_MAX + 256], esc[2 * sizeof(text)];
	fault_rule_format(rule, text, sizeof(text));
	events_json_escape(text, esc, sizeof(esc));
	*idp = 0;
	if (rule->kind == FAULT_POWER_LOSS)
		return power_loss(fs, esc, out, err, errlen);
	if (rule->kind == FAULT_CACHE_DEVICE) {
		events_emit(fs->events, "inject", "\"id\":0,\"rule\":\"%s\"",
			    esc);
		return loss_cache_device(fs, out, err, errlen);
	}
	if (rule->kind == FAULT_BITROT) {
		/* Done at once; nothing stays active. */
		events_emit(fs->events, "inject", "\"id\":0,\"rule\":\"%s\"",
			    esc);
		return bitrot_inject(fs, rule, &fs->bitrot_rng, out, err,
				     errlen);
	}
	uint64_t id;
	int r = faults_add(fs->faults, rule, &id);
	if (!r && fault_rule_is_array(rule)) {
		/* Listed first, so the effects' events name its id. */
		events_emit(fs->events, "inject", "\"id\":%llu,\"rule\":\"%s\"",
			    (unsigned long long)id, esc);
		unsigned loss;
		int a = array_change(fs, rule, id, true, &loss, err, errlen);
		if (a) {
			faults_clear(fs->faults, id);
			events_emit(fs->events, "refused",
				    "\"id\":%llu,\"errno\":%d",
				    (unsigned long long)id, -a);
			return a;
		}
		log_info("faults", "injected %llu: %s", (unsigned long long)id,
			 text);
		fprintf(out, "%llu\n", (unsigned long long)id);
		*idp = id;
		/* The fault stands; only its report can fail. */
		return loss ? loss_add_event(fs, loss, out, err, errlen) : 0;
	}
	if (r == -EEXIST)
		snprintf(err, errlen,
			 "a thin rule is active already (clear "
			 "it first)");
	else if (r)
		snprintf(err, errlen, "at most %d faults at once",
			 FAULTS_MAX_RULES);
	if (r)
		return r;
	if (rule->kind == FAULT_THIN)
		atomic_store(&fs->thin_full_logged, false);
	events_emit(fs->events, "inject", "\"id\":%llu,\"rule\":\"%s\"",
		    (unsigned long long)id, esc);
	log_info("faults", "injected %llu: %s", (unsigned long long)id, text);
	fprintf(out, "%llu\n", (unsigned long long)id);
	*idp = id;
	return 0;
}

/* Restore what array rule @id broke, if it is one; then it can go. */
static void array_restore(struct fs *fs, uint64_t id)
{
	struct fault_rule r;
	char err[256];

	if (faults_get(fs->faults, id, &r) || !fault_rule_is_array(&r))
		return;
	events_emit(fs->events, "restore", "\"id\":%llu",
		    (unsigned long long)id);
	unsigned loss;
	if (array_change(fs, &r, id, false, &loss, err, sizeof(err)))
		log_warn("faults", "restoring %llu: %s", (unsigned long long)id,
			 err);
}

int fault_gate_clear(struct fs *fs, uint64_t id, char *err, size_t errlen)
{
	if (id) {
		array_restore(fs, id);
	} else {
		uint64_t ids[FAULTS_MAX_RULES];
		unsigned n = faults_ids(fs->faults, ids, FAULTS_MAX_RULES);
		for (unsigned i = 0; i < n; i++)
			array_restore(fs, ids[i]);
	}
	int r = faults_clear(fs->faults, id);
	if (r) {
		snprintf(err, errlen, "no fault %llu (see: fault list)",
			 (unsigned long long)id);
		return r;
	}
	events_emit(fs->events, "clear", "\"id\":%llu", (unsigned long long)id);
	return 0;
}
