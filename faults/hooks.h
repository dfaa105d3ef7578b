/* How fault kinds act on the rest of arraysim: a narrow table of callbacks
 * that the datastore and the array model fill (fs/fault_gate.c does, for
 * a mounted store), so that faults/ includes nothing of fs/ or tiers/.
 *
 *   faults/bitrot.c ─────> corrupt ─────> store/bitrot.c
 *   faults/power_loss.c ─> power_cut ───> pin the durable state, cut
 *   faults/cache_device.c> cache_fail ──> store/loss.c
 *   faults/thin.c ───────> thin_changed
 *   faults/array_fault.c > array_set, array_current ─> tiers/array.h
 *                     └──> loss_report ─> store/loss.c
 *                     └──> timer ───────> the fault completer
 *
 * Every callback gets the hooks' @ctx (the store) first. Each returns 0
 * or -errno with a one-line reason in @err, where it has one.
 */
#ifndef ARRAYSIM_FAULTS_HOOKS_H
#define ARRAYSIM_FAULTS_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct fault_rule;
struct faults;
struct events;

/* An array fault as the model takes it (mirrors tiers/model.h's struct
 * model_fault, which the hook fills from it). */
enum fault_array_kind {
	FAULT_ARRAY_CONTROLLER,
	FAULT_ARRAY_PATH,
	FAULT_ARRAY_DRIVE,
	FAULT_ARRAY_DRIVE_SLOW,
};

struct fault_array {
	enum fault_array_kind kind;
	unsigned tier; /* drives: enum profile_tier_id, or FAULT_TIER_AUTO */
	unsigned id;
	double factor; /* drive-slow */
};

/* What setting or clearing it did, on the host's monotonic clock (mirrors
 * struct model_fault_effect); zero where it does not apply. */
struct fault_array_effect {
	uint64_t stall_from, stall_until; /* until 0: no stall */
	bool down, down_changed;
	unsigned serving;
	uint64_t serves_ns;
	uint64_t fail_ns, rebuild_end_ns, rebuild_bytes;
	bool resync; /* the rebuild is a node's resync (controller, path) */
	bool unnoticed;
	unsigned loss; /* loss event number (0: none) */
};

/* A transition the model scheduled (mirrors enum model_fault_mark). */
enum fault_array_mark {
	FAULT_MARK_STALL,
	FAULT_MARK_SERVES,
	FAULT_MARK_DRIVE,
};

/* A callback at a monotonic time, or earlier when the mount ends. */
struct fault_timer {
	void (*fire)(struct fault_timer *t);
};

struct fault_hooks {
	/* Bit rot: corrupt the blocks @r names and report them on @out. */
	int (*corrupt)(void *ctx, const struct fault_rule *r, FILE *out,
		       char *err, size_t errlen);
	/* Power loss: pin the durable state as of the last sync and fail
	 * every operation from now on. *lost: commits since that sync;
	 * *was: the power was off already (nothing done). */
	int (*power_cut)(void *ctx, uint64_t *lost, bool *was, char *err,
			 size_t errlen);
	/* The hybrid's cache device fails: report its lost dirty blocks. */
	int (*cache_fail)(void *ctx, FILE *out, char *err, size_t errlen);
	/* A thin rule came: its first refusal is to be logged again. */
	void (*thin_changed)(void *ctx);
	/* Set (@on) or clear array fault @f now; *now_ns: when. */
	int (*array_set)(void *ctx, const struct fault_array *f, bool on,
			 uint64_t *now_ns, struct fault_array_effect *e,
			 char *err, size_t errlen);
	/* Does transition @mark of @f keyed by @key_ns still stand? */
	bool (*array_current)(void *ctx, const struct fault_array *f,
			      enum fault_array_mark mark, uint64_t key_ns);
	/* When the rebuild drive fault @f started (noticed at @fail_ns)
	 * ends on its drives, which under load is later than planned: 0 and
	 * *@end_ns once known; -EAGAIN while chunks remain, *@end_ns the
	 * soonest it can end; -ENOENT: no such rebuild any more. */
	int (*rebuild_end)(void *ctx, const struct fault_array *f,
			   uint64_t fail_ns, uint64_t *end_ns);
	/* Loss event @loss: find, keep and report the blocks it lost. */
	int (*loss_report)(void *ctx, unsigned loss, FILE *out, char *err,
			   size_t errlen);
	/* Run @t->fire at monotonic @due_ns (or when the mount ends).
	 * 0, or -errno: then it never fires. */
	int (*timer)(void *ctx, uint64_t due_ns, struct fault_timer *t);
};

/* What a kind acts with: the hooks and their store, the registry and the
 * event log. Passed by value to whatever outlives a call (timers). */
struct fault_env {
	const struct fault_hooks *hooks;
	void *ctx;
	struct faults *faults;
	struct events *events;
};

/* Inject @rule as `fault inject` does, answering on @out; *id is the new
 * fault's (0 for faults that act at once). 0, or -errno with a reason. */
int fault_inject(const struct fault_env *env, const struct fault_rule *rule,
		 FILE *out, uint64_t *id, char *err, size_t errlen);
/* Clear fault @id, or every fault when @id is 0, undoing what each did. */
int fault_clear(const struct fault_env *env, uint64_t id, char *err,
		size_t errlen);

#endif
