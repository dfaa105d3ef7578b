/* Private to tiers/profile*.c: the key table that drives parsing,
 * defaults, checks and printing alike (pkeys[]: profile_keys.c), the
 * state of one parse. One key's value: profile_value_i.h. */
#ifndef ARRAYSIM_TIERS_PROFILE_I_H
#define ARRAYSIM_TIERS_PROFILE_I_H

#include "tiers/profile.h"

enum pkey_type {
	PK_STRING,   /* char[PROFILE_TEXT_LEN] */
	PK_BOOL,     /* bool: yes/no, on/off */
	PK_UINT,     /* unsigned, >= min */
	PK_U64,	     /* uint64_t: a count per second (iops) */
	PK_SIZE,     /* uint64_t bytes: 480G */
	PK_DURATION, /* uint64_t ns: 100us */
	PK_RATE,     /* uint64_t bytes/s: 550MiB/s, or 0 */
	PK_PERCENT,  /* double: 8%, 0..100 */
	PK_DECIMAL,  /* double: 1.25, a plain decimal >= 0 */
	PK_ENUM,     /* int: one of names[] */
	PK_LINK,     /* struct profile_frontend speed: 10GbE */
	PK_DIST,     /* struct engine_dist: 100us, or p50:90us p99:1ms */
};

/* Sections; tiers share one set of keys, told apart by enum
 * profile_tier_id ("slot"). */
enum psec {
	PSEC_ARRAY,
	PSEC_CONTROLLERS,
	PSEC_FRONTEND,
	PSEC_TIER,
	PSEC_CACHE,
	PSEC_DEDUPE,
	PSEC_NODES,
	PSEC_REPLICATION,
	PSEC_COUNT,
};

struct pkey {
	enum psec sec;
	const char *key;
	enum pkey_type type;
	size_t offset;	   /* in struct profile, or struct profile_tier */
	const char *deflt; /* parsed like a value when unset; NULL: required */
	const char *const *names; /* PK_ENUM: by value, NULL-terminated */
	const char *what;	  /* PK_ENUM: "RAID level" */
	unsigned min, max;	  /* PK_UINT; max 0: 1000000 */
	const char *help;	  /* one line, for docs and comments */
};

#define PROFILE_SLOTS PROFILE_TIER_COUNT /* per key: one per tier */
#define PROFILE_MAX_VALUE 256		 /* a value as printed */
#define PROFILE_MAX_KEYS 96		 /* rows of pkeys[] */
#define PROFILE_MAX_LINE 200		 /* INI_MAX_LINE of Debian's libinih */

extern const struct pkey pkeys[];
extern const unsigned n_pkeys;
/* A key of what the mount itself does, not the model ([dedupe]
 * compression, compression_keep): a null profile may give it. */
bool pkey_mount_only(const struct pkey *k);
extern const char *const psec_names[PSEC_COUNT];
/* The protocol key's values, by enum profile_protocol. */
extern const char *const protocol_names[];
extern const char *const ptier_names[PROFILE_TIER_COUNT];

/* What parsing saw, for resolving and for error lines. */
struct pstate {
	const char *file;
	struct profile *p;
	int line;				       /* current line */
	int key_line[PROFILE_MAX_KEYS][PROFILE_SLOTS]; /* 0: key not given */
	int sec_line[PSEC_COUNT][PROFILE_SLOTS];       /* 0: section absent */
	char *err;
	size_t errlen;
	int err_line; /* 0: no error yet */
};

#endif
