/* Private to tiers/profile.c: the checks that follow a parse
 * (profile_check.c). */
#ifndef ARRAYSIM_TIERS_PROFILE_CHECK_I_H
#define ARRAYSIM_TIERS_PROFILE_CHECK_I_H

#include "tiers/profile_value_i.h"

/* Defaults, then checks across keys. 0 or -EINVAL after pstate_error. */
int profile_resolve(struct pstate *st);

#endif
