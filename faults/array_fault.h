/* What the array kinds (controller, path, drive, drive-slow) share: the
 * model sets and clears them (hooks->array_set), and what it says a change
 * does goes to the event log, now and when each transition comes. */
#ifndef ARRAYSIM_FAULTS_ARRAY_FAULT_H
#define ARRAYSIM_FAULTS_ARRAY_FAULT_H

#include "faults/faults.h"
#include "faults/hooks.h"

/* check: an array fault needs id=N. */
int fault_array_check(const struct fault_rule *r, unsigned seen, char *err,
		      size_t errlen);
/* inject: set the fault in the model, log what it does. */
int fault_array_inject(const struct fault_env *env, const struct fault_rule *r,
		       enum fault_array_kind kind, uint64_t id, unsigned *loss,
		       char *err, size_t errlen);
/* clear: restore what it broke. */
void fault_array_clear(const struct fault_env *env, const struct fault_rule *r,
		       enum fault_array_kind kind, uint64_t id);

/* One array kind's inject and clear callbacks, for model kind @K. */
#define FAULT_ARRAY_CALLBACKS(K)                                               \
	static int inject(const struct fault_env *env,                         \
			  const struct fault_rule *r, uint64_t id,             \
			  unsigned *loss, char *err, size_t errlen)            \
	{                                                                      \
		return fault_array_inject(env, r, K, id, loss, err, errlen);   \
	}                                                                      \
	static void clear(const struct fault_env *env,                         \
			  const struct fault_rule *r, uint64_t id)             \
	{                                                                      \
		fault_array_clear(env, r, K, id);                              \
	}

#endif
