/* The active faults of a mounted array, and the decisions they make.
 *
 * The front end (fs/ops_*.c, through fs/fault_gate.c) asks faults_check() at
 * the start of every operation it can fail; an answer is an error to return
 * instead of doing the operation, a latency to add to its reply, or a torn
 * write. The data path asks faults_thin_limit() before it allocates a new
 * unique block. Each rule's kind (faults/kind.h) says what it does to an
 * operation (on_io) or to allocation (on_alloc). Kinds that act at once (bit
 * rot, power loss, cache device) never enter the registry.
 *
 * Decisions are deterministic: each rule draws from its own stream
 * (common/prng.h) seeded from the mount's --seed and the rule's id, so
 * the same sequence of operations meets the same faults. Checking costs
 * one atomic load while no rule is active.
 */
#ifndef ARRAYSIM_FAULTS_FAULTS_H
#define ARRAYSIM_FAULTS_FAULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "faults/rule.h"

#define FAULTS_MAX_RULES 64

struct faults;

/* What a check decided; all zero: nothing. */
struct fault_hit {
	int err;	   /* negative errno to fail the operation with */
	uint64_t delay_ns; /* latency to add to the reply */
	bool torn;	   /* write: only a prefix persists */
	size_t keep;	   /* write: the bytes that persist (all, or torn) */
	uint64_t rule_id;  /* the rule that fired (the first, if several) */
	bool log_first;	   /* its first hit: the caller logs a fault_hit */
};

/* How much of a torn write of @len bytes persists: half of it, down to a
 * 512-byte sector (so a write under 1 KiB persists nothing). */
size_t fault_torn_prefix(size_t len);

/* Path of an inode or entry, computed only when a rule needs it. Returns
 * false when the path is unknown (then no path rule matches). */
typedef bool (*fault_path_fn)(void *ctx, char *buf, size_t len);

int faults_new(uint64_t seed, struct faults **out);
struct events;
/* Where the registry logs what it alone sees: "rule_done" (id, hits) when
 * a count=N rule fires its last time, stamped at that hit, and the hits
 * of each rule. A rule's first hit is the caller's to log in full
 * (fault_hit, when hit->log_first); the others are counted and logged as
 * one "fault_hits" (id, hits since the last, total) at most once a
 * second, and at the rule's last hit, clear and faults_flush(): a hot
 * rule writes a line a second, not a line a hit, and the hits of a
 * rule's events sum to its fired= exactly. NULL: nowhere (the default).
 * fault_inject() sets its env's log. */
void faults_set_events(struct faults *f, struct events *ev);
/* Log every rule's hits not logged yet (the unmount does, before its
 * event). */
void faults_flush(struct faults *f);
void faults_free(struct faults *f);

/* Activate @r; *id is its number (>= 1, never reused in this mount).
 * -ENOSPC: FAULTS_MAX_RULES active; -EEXIST: a second rule of a kind
 * that takes one at a time (thin). */
int faults_add(struct faults *f, const struct fault_rule *r, uint64_t *id);
/* Remove rule @id, or every rule when @id is 0. -ENOENT: no such rule. */
int faults_clear(struct faults *f, uint64_t id);
/* Copy rule @id into @out. 0 or -ENOENT. */
int faults_get(struct faults *f, uint64_t id, struct fault_rule *out);
/* The ids of the active rules, up to @max, oldest first; how many. */
unsigned faults_ids(struct faults *f, uint64_t *ids, unsigned max);
/* One line per rule: "ID RULE fired=N". */
void faults_list(struct faults *f, FILE *out);
/* The id of an active rule of kind @name (the oldest), or 0. */
uint64_t faults_active_kind(struct faults *f, const char *name);
/* Rules active (of any kind). */
unsigned faults_count(struct faults *f);

/* Decide for one operation @op (one enum fault_op bit) whose path
 * @path_fn can tell. Fills @hit. */
void faults_check(struct faults *f, unsigned op, fault_path_fn path_fn,
		  void *path_ctx, struct fault_hit *hit);
/* Is physical capacity thin-provisioned? Then *blocks is how many unique
 * blocks fit (new ones beyond get ENOSPC; dedupe hits still succeed). */
bool faults_thin_limit(struct faults *f, uint64_t *blocks);

#endif
