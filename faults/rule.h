/* Fault rules: what `arraysim ctl MNT fault inject ...` and scenario files
 * say, parsed into a struct (no side effects, so the parser is fuzzed on
 * its own: tests/fuzz/fuzz_fault_rule.c).
 *
 *   fault inject KIND [key=value ...]
 *
 * The kinds and the keys each takes are in faults/<kind>.c (listed in
 * faults/kinds.c; `arraysim ctl --help` prints them): error, latency,
 * torn-write and thin are rules operations meet; bitrot, power-loss and
 * cache-device act at once; controller, path, drive and drive-slow are
 * array faults, which the timed profile's model runs until `fault clear`
 * restores.
 *
 * op LIST: comma-separated of read, write, fsync, open, create, mkdir,
 * unlink, rmdir, rename, setattr, readdir, any. GLOB is an fnmatch(3)
 * pattern on the path inside the mount, from its root ("/dir/f.*"), where
 * '*' also matches '/'. prob is in (0, 1]; count >= 1.
 */
#ifndef ARRAYSIM_FAULTS_RULE_H
#define ARRAYSIM_FAULTS_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "faults/kind.h"

/* The operations a rule can match, as bits. */
enum fault_op {
	FOP_READ = 1u << 0,
	FOP_WRITE = 1u << 1,
	FOP_FSYNC = 1u << 2,
	FOP_OPEN = 1u << 3,
	FOP_CREATE = 1u << 4,
	FOP_MKDIR = 1u << 5,
	FOP_UNLINK = 1u << 6,
	FOP_RMDIR = 1u << 7,
	FOP_RENAME = 1u << 8,
	FOP_SETATTR = 1u << 9,
	FOP_READDIR = 1u << 10,
	FOP_ANY = (1u << 11) - 1,
};

#define FAULT_PATH_MAX 1024

struct fault_rule {
	const struct fault_ops *kind; /* one of fault_kinds[] */
	unsigned ops;		      /* enum fault_op bits */
	int err;		      /* error: positive errno */
	char path[FAULT_PATH_MAX];    /* glob (error, latency, torn-write) or
					 file (bitrot); "" = any */
	double prob;		      /* (0, 1] */
	uint64_t count;		      /* times it may fire; 0 = unlimited */
	uint64_t latency_ns;	      /* latency */
	uint64_t capacity_bytes;      /* thin */
	uint64_t blocks;	      /* bitrot: random blocks to corrupt */
	uint64_t offset;	      /* bitrot with path: the byte offset */
	bool has_offset;
	unsigned id;   /* controller, path, drive: which one, from 0 */
	unsigned tier; /* drive: enum profile_tier_id, or FAULT_TIER_AUTO */
	double factor; /* drive-slow: (1, 1000] */
};

/* The tier of a drive rule without tier=: the array's data tier. */
#define FAULT_TIER_AUTO 3u

/* Whether @r is an array fault (controller, path, drive, drive-slow). */
bool fault_rule_is_array(const struct fault_rule *r);

/* Parse the words after "fault inject" (e.g. "error op=write errno=EIO")
 * into @out. 0, or -EINVAL with a one-line reason in @err. */
int fault_rule_parse(const char *args, struct fault_rule *out, char *err,
		     size_t errlen);
/* The rule written back as "KIND key=value ..." (parses to the same
 * rule); returns @buf. */
char *fault_rule_format(const struct fault_rule *r, char *buf, size_t len);
/* "error", "latency", ... ("?" for NULL). Inline: the kinds' own files
 * name themselves in errors, and must not call back into the parser. */
static inline const char *fault_kind_name(const struct fault_ops *k)
{
	return k ? k->name : "?";
}
/* The name of one op bit ("read"), or NULL. */
const char *fault_op_name(unsigned op_bit);

#endif
