/* A fault kind is one file, faults/<kind>.c, ending in one struct
 * fault_ops: its name, the keys it takes (which drive the parser, the
 * print-back and `arraysim ctl --help`), and only the callbacks it needs.
 * fault_kinds[] (faults/kinds.c) lists them all, sorted by name; adding a
 * kind is one new file and one line there.
 *
 *   fault_rule_parse ──> fault_kind_find(name) ──> keys, defaults, check
 *   faults_check ──────> kind->on_io        (error, latency, torn-write)
 *   faults_thin_limit ─> kind->on_alloc     (thin)
 *   fault_inject ──────> kind->act          (acts at once: bitrot, ...)
 *                   └──> kind->inject/clear (stays: the array kinds)
 *
 * Kinds reach the datastore and the array model only through struct
 * fault_hooks (faults/hooks.h), which those fill.
 */
#ifndef ARRAYSIM_FAULTS_KIND_H
#define ARRAYSIM_FAULTS_KIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct fault_rule;
struct fault_hit;
struct fault_env;

/* The keys a rule can take, as bits (a kind's set of them is a mask). */
enum fault_key {
	FAULT_KEY_OP = 1u << 0,
	FAULT_KEY_ERRNO = 1u << 1,
	FAULT_KEY_PATH = 1u << 2,
	FAULT_KEY_PROB = 1u << 3,
	FAULT_KEY_COUNT = 1u << 4,
	FAULT_KEY_LATENCY = 1u << 5,
	FAULT_KEY_CAPACITY = 1u << 6,
	FAULT_KEY_BLOCKS = 1u << 7,
	FAULT_KEY_OFFSET = 1u << 8,
	FAULT_KEY_ID = 1u << 9,
	FAULT_KEY_TIER = 1u << 10,
	FAULT_KEY_FACTOR = 1u << 11,
};

/* One key a kind takes: which, and how `--help` shows it ("op=LIST
 * [any]"). A kind's rows are in the order the rule prints back. */
struct fault_key_row {
	enum fault_key key;
	const char *help;
};

#define FAULT_MAX_KEY_ROWS 6

struct fault_ops {
	const char *name;
	/* What it does, for `--help`. */
	const char *help;
	/* The keys it takes, in print-back order; unused rows are zero. */
	struct fault_key_row keys[FAULT_MAX_KEY_ROWS];
	/* An array fault: needs a timed array profile. */
	bool array;
	/* At most one rule of this kind is active at a time. */
	bool single;
	/* Defaults beyond the common ones (ops any, prob 1, tier auto). */
	void (*defaults)(struct fault_rule *r);
	/* What the kind needs beyond each key's own checks; @seen: the
	 * enum fault_key bits given. 0 or -EINVAL with a reason. */
	int (*check)(const struct fault_rule *r, unsigned seen, char *err,
		     size_t errlen);
	/* An operation rule: what it does to an operation it fired on. */
	void (*on_io)(const struct fault_rule *r, struct fault_hit *hit);
	/* Thin provisioning: how many unique blocks fit. */
	uint64_t (*on_alloc)(const struct fault_rule *r);
	/* A fault that acts at once and stays in no list: do it, answer on
	 * @out. @rule_json: the rule as a JSON string body. */
	int (*act)(const struct fault_env *env, const struct fault_rule *r,
		   const char *rule_json, FILE *out, char *err, size_t errlen);
	/* A fault that stays: it was added as rule @id; start it. An error
	 * refuses it (it is removed). *loss: a loss event it caused (0:
	 * none), reported once the fault stands. */
	int (*inject)(const struct fault_env *env, const struct fault_rule *r,
		      uint64_t id, unsigned *loss, char *err, size_t errlen);
	/* Rule @id is being cleared: undo what inject did. */
	void (*clear)(const struct fault_env *env, const struct fault_rule *r,
		      uint64_t id);
};

/* Every kind, sorted by name. */
extern const struct fault_ops *const fault_kinds[];
extern const size_t fault_kind_count;

/* The kind named @name, or NULL. */
const struct fault_ops *fault_kind_find(const char *name);
/* The kinds' names, ", "-separated, into @buf (for error messages). */
const char *fault_kind_names(char *buf, size_t len);
/* Every kind with its keys and what it does, as `arraysim ctl --help`
 * shows them: the faults that act on operations or the store first, then
 * the array faults. */
void fault_kinds_help(FILE *out);

#endif
