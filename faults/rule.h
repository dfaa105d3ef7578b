/* Fault rules: what `arraysim ctl MNT fault inject ...` and scenario files
 * say, parsed into a struct (no side effects, so the parser is fuzzed on
 * its own: tests/fuzz/fuzz_fault_rule.c).
 *
 *   fault inject KIND [key=value ...]
 *
 *   KIND        keys (defaults in brackets)
 *   error       op=LIST [any]  errno=EIO|ENOSPC|EROFS [EIO]
 *               path=GLOB  prob=P [1]  count=N [unlimited]
 *   latency     latency=DURATION (required)  op=LIST [any]
 *               path=GLOB  prob=P [1]  count=N [unlimited]
 *   torn-write  path=GLOB  prob=P [1]  count=N [1]
 *   thin        capacity=SIZE (required)
 *   bitrot      blocks=N [1] | path=FILE offset=SIZE
 *   power-loss  (no keys)
 *   controller  id=N (required): controller N (from 0) fails
 *   path        id=N (required): front-end path (link) N is lost
 *   drive       id=N (required)  tier=flash|cache|backing [the data tier:
 *               flash, else backing]: that drive is pulled
 *   drive-slow  id=N (required)  tier=... [as drive]  factor=F (required,
 *               > 1, <= 1000): that drive serves F times slower
 *   cache-device (no keys): a hybrid's cache device fails now: its dirty
 *               blocks are lost unless the profile mirrors the cache
 *
 * controller, path, drive and drive-slow are array faults: the timed
 * profile's model (tiers/model_faults.c) runs them until `fault clear`
 * restores. bitrot, power-loss and cache-device act at once.
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

enum fault_kind {
	FAULT_ERROR,
	FAULT_LATENCY,
	FAULT_TORN_WRITE,
	FAULT_THIN,
	FAULT_BITROT,
	FAULT_POWER_LOSS,
	FAULT_CONTROLLER,
	FAULT_PATH,
	FAULT_DRIVE,
	FAULT_DRIVE_SLOW,
	FAULT_CACHE_DEVICE,
	FAULT_KIND_COUNT
};

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
	enum fault_kind kind;
	unsigned ops;		   /* enum fault_op bits */
	int err;		   /* error: positive errno */
	char path[FAULT_PATH_MAX]; /* glob (error, latency, torn-write) or
				      file (bitrot); "" = any */
	double prob;		   /* (0, 1] */
	uint64_t count;		   /* times it may fire; 0 = unlimited */
	uint64_t latency_ns;	   /* latency */
	uint64_t capacity_bytes;   /* thin */
	uint64_t blocks;	   /* bitrot: random blocks to corrupt */
	uint64_t offset;	   /* bitrot with path: the byte offset */
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
/* "error", "latency", ... */
const char *fault_kind_name(enum fault_kind k);
/* The name of one op bit ("read"), or NULL. */
const char *fault_op_name(unsigned op_bit);

#endif
