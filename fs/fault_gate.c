/* The front end's side of fault injection; see fs/fault_gate.h. */
#include "fs/fault_gate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "faults/events.h"
#include "fs/bitrot.h"
#include "fs/inode_table.h"
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
		struct timespec ts = {(time_t)(hit.delay_ns / 1000000000u),
				      (long)(hit.delay_ns % 1000000000u)};
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

int fault_gate_inject(struct fs *fs, const struct fault_rule *rule, FILE *out,
		      uint64_t *idp, char *err, size_t errlen)
{
	char text[FAULT_PATH_MAX + 256], esc[2 * sizeof(text)];
	fault_rule_format(rule, text, sizeof(text));
	events_json_escape(text, esc, sizeof(esc));
	*idp = 0;
	if (rule->kind == FAULT_POWER_LOSS)
		return power_loss(fs, esc, out, err, errlen);
	if (rule->kind == FAULT_BITROT) {
		/* Done at once; nothing stays active. */
		events_emit(fs->events, "inject", "\"id\":0,\"rule\":\"%s\"",
			    esc);
		return bitrot_inject(fs, rule, &fs->bitrot_rng, out, err,
				     errlen);
	}
	uint64_t id;
	int r = faults_add(fs->faults, rule, &id);
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

int fault_gate_clear(struct fs *fs, uint64_t id, char *err, size_t errlen)
{
	int r = faults_clear(fs->faults, id);
	if (r) {
		snprintf(err, errlen, "no fault %llu (see: fault list)",
			 (unsigned long long)id);
		return r;
	}
	events_emit(fs->events, "clear", "\"id\":%llu", (unsigned long long)id);
	return 0;
}
