/* Injecting and clearing faults, whatever their kind: the registry keeps
 * the ones that stay, the event log hears of each, and the kind's own
 * callbacks (faults/kind.h) do the rest through the hooks
 * (faults/hooks.h). fs/fault_gate.c calls these for a mounted store. */
#include <errno.h>
#include <stdio.h>

#include "common/log.h"
#include "faults/events.h"
#include "faults/faults.h"
#include "faults/hooks.h"

static int add_refused(const struct fault_rule *rule, int r, char *err,
		       size_t errlen)
{
	if (r == -EEXIST)
		snprintf(err, errlen,
			 "a %s rule is active already (clear it first)",
			 fault_kind_name(rule->kind));
	else
		snprintf(err, errlen, "at most %d faults at once",
			 FAULTS_MAX_RULES);
	return r;
}

int fault_inject(const struct fault_env *env, const struct fault_rule *rule,
		 FILE *out, uint64_t *idp, char *err, size_t errlen)
{
	const struct fault_ops *k = rule->kind;
	char text[FAULT_PATH_MAX + 256], esc[2 * sizeof(text)];
	uint64_t id;
	unsigned loss = 0;

	fault_rule_format(rule, text, sizeof(text));
	events_json_escape(text, esc, sizeof(esc));
	*idp = 0;
	if (k->act) /* done at once; nothing stays active */
		return k->act(env, rule, esc, out, err, errlen);
	/* The registry logs a count=N rule's end itself (at its last hit);
	 * the log it is given is the one every inject goes to. */
	faults_set_events(env->faults, env->events);
	int r = faults_add(env->faults, rule, &id);
	if (r)
		return add_refused(rule, r, err, errlen);
	/* Logged first, so the events of what it does name its id. */
	events_emit(env->events, "inject", "\"id\":%llu,\"rule\":\"%s\"",
		    (unsigned long long)id, esc);
	r = k->inject ? k->inject(env, rule, id, &loss, err, errlen) : 0;
	if (r) {
		faults_clear(env->faults, id);
		events_emit(env->events, "refused", "\"id\":%llu,\"errno\":%d",
			    (unsigned long long)id, -r);
		return r;
	}
	log_info("faults", "injected %llu: %s", (unsigned long long)id, text);
	fprintf(out, "%llu\n", (unsigned long long)id);
	*idp = id;
	/* The fault stands; only its report can fail. */
	return loss ? env->hooks->loss_report(env->ctx, loss, out, err, errlen)
		    : 0;
}

/* Undo what rule @id did, if its kind undoes anything; then it can go. */
static void undo(const struct fault_env *env, uint64_t id)
{
	struct fault_rule r;

	if (!faults_get(env->faults, id, &r) && r.kind->clear)
		r.kind->clear(env, &r, id);
}

int fault_clear(const struct fault_env *env, uint64_t id, char *err,
		size_t errlen)
{
	if (id) {
		undo(env, id);
	} else {
		uint64_t ids[FAULTS_MAX_RULES];
		unsigned n = faults_ids(env->faults, ids, FAULTS_MAX_RULES);
		for (unsigned i = 0; i < n; i++)
			undo(env, ids[i]);
	}
	int r = faults_clear(env->faults, id);
	if (r) {
		snprintf(err, errlen, "no fault %llu (see: fault list)",
			 (unsigned long long)id);
		return r;
	}
	events_emit(env->events, "clear", "\"id\":%llu",
		    (unsigned long long)id);
	return 0;
}
