/* Private to tiers/profile*.c: one key's value (profile_value.c). */
#ifndef ARRAYSIM_TIERS_PROFILE_VALUE_I_H
#define ARRAYSIM_TIERS_PROFILE_VALUE_I_H

#include "tiers/profile_i.h"

/* Record the first error, at @line (0: no line known). */
void pstate_error(struct pstate *st, int line, enum psec sec, unsigned slot,
		  const char *key, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Parse @val for key @k into field memory @field. 0 or -EINVAL after
 * pstate_error(). */
int pkey_set(struct pstate *st, const struct pkey *k, unsigned slot,
	     void *field, const char *val);
/* Address of key @k's field for @slot. */
void *pkey_field(struct profile *p, const struct pkey *k, unsigned slot);
/* Index of key @key in section @sec, or -1. */
int pkey_find(enum psec sec, const char *key);

#endif
