/* Parsing and printing fault rules; see faults/rule.h for the grammar. */
#include "faults/rule.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

static const char *const kind_names[FAULT_KIND_COUNT] = {
    [FAULT_ERROR] = "error",
    [FAULT_LATENCY] = "latency",
    [FAULT_TORN_WRITE] = "torn-write",
    [FAULT_THIN] = "thin",
    [FAULT_BITROT] = "bitrot",
    [FAULT_POWER_LOSS] = "power-loss",
    [FAULT_CONTROLLER] = "controller",
    [FAULT_PATH] = "path",
    [FAULT_DRIVE] = "drive",
    [FAULT_DRIVE_SLOW] = "drive-slow",
    [FAULT_CACHE_DEVICE] = "cache-device",
};

/* By enum profile_tier_id (tiers/profile.h). */
static const char *const tier_names[] = {"flash", "cache", "backing"};
#define NTIERS 3u

static const char *const op_names[] = {
    "read",   "write", "fsync",	 "open",    "create",  "mkdir",
    "unlink", "rmdir", "rename", "setattr", "readdir",
};
#define NOPS (sizeof(op_names) / sizeof(op_names[0]))

static const struct {
	const char *name;
	int err;
} errnos[] = {{"EIO", EIO}, {"ENOSPC", ENOSPC}, {"EROFS", EROFS}};

/* Keys each kind takes, as bits of key_names. */
enum {
	K_OP = 1u << 0,
	K_ERRNO = 1u << 1,
	K_PATH = 1u << 2,
	K_PROB = 1u << 3,
	K_COUNT = 1u << 4,
	K_LATENCY = 1u << 5,
	K_CAPACITY = 1u << 6,
	K_BLOCKS = 1u << 7,
	K_OFFSET = 1u << 8,
	K_ID = 1u << 9,
	K_TIER = 1u << 10,
	K_FACTOR = 1u << 11,
};
static const char *const key_names[] = {
    "op",	"errno",  "path",   "prob", "count", "latency",
    "capacity", "blocks", "offset", "id",   "tier",  "factor",
};
#define NKEYS (sizeof(key_names) / sizeof(key_names[0]))

static const unsigned kind_keys[FAULT_KIND_COUNT] = {
    [FAULT_ERROR] = K_OP | K_ERRNO | K_PATH | K_PROB | K_COUNT,
    [FAULT_LATENCY] = K_OP | K_LATENCY | K_PATH | K_PROB | K_COUNT,
    [FAULT_TORN_WRITE] = K_PATH | K_PROB | K_COUNT,
    [FAULT_THIN] = K_CAPACITY,
    [FAULT_BITROT] = K_BLOCKS | K_PATH | K_OFFSET,
    [FAULT_POWER_LOSS] = 0,
    [FAULT_CONTROLLER] = K_ID,
    [FAULT_PATH] = K_ID,
    [FAULT_DRIVE] = K_ID | K_TIER,
    [FAULT_DRIVE_SLOW] = K_ID | K_TIER | K_FACTOR,
    [FAULT_CACHE_DEVICE] = 0,
};

bool fault_rule_is_array(const struct fault_rule *r)
{
	return r->kind == FAULT_CONTROLLER || r->kind == FAULT_PATH ||
	       r->kind == FAULT_DRIVE || r->kind == FAULT_DRIVE_SLOW;
}

const char *fault_kind_name(enum fault_kind k)
{
	return k < FAULT_KIND_COUNT ? kind_names[k] : "?";
}

const char *fault_op_name(unsigned op_bit)
{
	for (unsigned i = 0; i < NOPS; i++)
		if (op_bit == 1u << i)
			return op_names[i];
	return NULL;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_ops(const char *v, unsigned *ops, char *err, size_t errlen)
{
	*ops = 0;
	while (*v) {
		size_t n = strcspn(v, ",");
		unsigned bit = 0;
		if (n == 3 && !strncmp(v, "any", 3))
			bit = FOP_ANY;
		for (unsigned i = 0; i < NOPS && !bit; i++)
			if (strlen(op_names[i]) == n &&
			    !strncmp(v, op_names[i], n))
				bit = 1u << i;
		if (!bit)
			return fail(err, errlen,
				    "op: unknown operation '%.*s' (read, "
				    "write, fsync, open, create, mkdir, "
				    "unlink, rmdir, rename, setattr, readdir, "
				    "any)",
				    (int)(n > 32 ? 32 : n), v);
		*ops |= bit;
		v += n + (v[n] == ',');
	}
	return *ops ? 0 : fail(err, errlen, "op: empty list");
}

static int parse_errno(const char *v, int *out, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(v, errnos[i].name)) {
			*out = errnos[i].err;
			return 0;
		}
	return fail(err, errlen, "errno: '%.32s' is not EIO, ENOSPC or EROFS",
		    v);
}

/* A number in (@lo, @hi]; 0 or -EINVAL with @what as the reason. */
static int parse_range(const char *key, const char *v, double lo, double hi,
		       const char *what, double *out, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (end == v || *end || errno || !isfinite(d) || d <= lo || d > hi)
		return fail(err, errlen, "%s: '%.32s' is not %s", key, v, what);
	*out = d;
	return 0;
}

static int parse_positive(const char *key, const char *v, uint64_t *out,
			  char *err, size_t errlen)
{
	if (units_parse_u64(v, out) || *out == 0)
		return fail(err, errlen,
			    "%s: '%.32s' is not a whole number >= 1", key, v);
	return 0;
}

static int parse_id(const char *v, unsigned *out, char *err, size_t errlen)
{
	uint64_t n;

	if (units_parse_u64(v, &n) || n > 1023)
		return fail(err, errlen,
			    "id: '%.32s' is not a number from 0 to 1023", v);
	*out = (unsigned)n;
	return 0;
}

static int parse_tier(const char *v, unsigned *out, char *err, size_t errlen)
{
	for (unsigned i = 0; i < NTIERS; i++)
		if (!strcmp(v, tier_names[i])) {
			*out = i;
			return 0;
		}
	return fail(err, errlen, "tier: '%.32s' is not flash, cache or backing",
		    v);
}

/* One key=value of a rule whose kind takes @allowed keys. */
static int parse_pair(char *word, unsigned allowed, unsigned *seen,
		      struct fault_rule *r, char *err, size_t errlen)
{
	char *eq = strchr(word, '=');
	if (!eq || eq == word)
		return fail(err, errlen, "'%.64s' is not key=value", word);
	*eq = '\0';
	const char *v = eq + 1;
	unsigned k = 0;
	while (k < NKEYS && strcmp(word, key_names[k]))
		k++;
	if (k == NKEYS || !(allowed & 1u << k))
		return fail(err, errlen, "%s takes no key '%.32s'",
			    fault_kind_name(r->kind), word);
	if (*seen & 1u << k)
		return fail(err, errlen, "%s: given twice", word);
	*seen |= 1u << k;
	switch (1u << k) {
	case K_OP:
		return parse_ops(v, &r->ops, err, errlen);
	case K_ERRNO:
		return parse_errno(v, &r->err, err, errlen);
	case K_PATH:
		if (!*v || strlen(v) >= sizeof(r->path))
			return fail(err, errlen, "path: empty or too long");
		strcpy(r->path, v);
		return 0;
	case K_PROB:
		return parse_range("prob", v, 0, 1, "a probability in (0, 1]",
				   &r->prob, err, errlen);
	case K_COUNT:
		return parse_positive("count", v, &r->count, err, errlen);
	case K_BLOCKS:
		return parse_positive("blocks", v, &r->blocks, err, errlen);
	case K_LATENCY:
		if (units_parse_duration_ns(v, &r->latency_ns) ||
		    !r->latency_ns)
			return fail(err, errlen,
				    "latency: '%.32s' is not a duration > 0 "
				    "(like 5ms)",
				    v);
		return 0;
	case K_CAPACITY:
		if (units_parse_size(v, &r->capacity_bytes))
			return fail(err, errlen,
				    "capacity: '%.32s' is not a size (like "
				    "10G)",
				    v);
		return 0;
	case K_ID:
		return parse_id(v, &r->id, err, errlen);
	case K_TIER:
		return parse_tier(v, &r->tier, err, errlen);
	case K_FACTOR:
		return parse_range("factor", v, 1, 1000,
				   "a number above 1, at most 1000", &r->factor,
				   err, errlen);
	default: /* K_OFFSET */
		r->has_offset = true;
		if (units_parse_size(v, &r->offset))
			return fail(err, errlen,
				    "offset: '%.32s' is not a size", v);
		return 0;
	}
}

static void set_defaults(struct fault_rule *r, enum fault_kind k)
{
	/* memset, not a compound literal: padding is zero too, so that
	 * rules compare with memcmp. */
	memset(r, 0, sizeof(*r));
	r->kind = k;
	r->ops = FOP_ANY;
	r->prob = 1;
	if (k == FAULT_ERROR)
		r->err = EIO;
	if (k == FAULT_TORN_WRITE) {
		r->ops = FOP_WRITE;
		r->count = 1;
	}
	if (k == FAULT_BITROT)
		r->blocks = 1;
	r->tier = FAULT_TIER_AUTO;
}

/* What a kind needs beyond its keys' own checks. */
static int check_rule(const struct fault_rule *r, unsigned seen, char *err,
		      size_t errlen)
{
	if (r->kind == FAULT_LATENCY && !(seen & K_LATENCY))
		return fail(err, errlen, "latency needs latency=DURATION");
	if (r->kind == FAULT_THIN && !(seen & K_CAPACITY))
		return fail(err, errlen, "thin needs capacity=SIZE");
	if (fault_rule_is_array(r) && !(seen & K_ID))
		return fail(err, errlen, "%s needs id=N",
			    fault_kind_name(r->kind));
	if (r->kind == FAULT_DRIVE_SLOW && !(seen & K_FACTOR))
		return fail(err, errlen, "drive-slow needs factor=F (like 4)");
	if (r->kind == FAULT_BITROT) {
		bool file = seen & K_PATH, off = seen & K_OFFSET;
		if (file != off)
			return fail(err, errlen,
				    "bitrot takes path= and offset= together");
		if (file && (seen & K_BLOCKS))
			return fail(err, errlen,
				    "bitrot takes blocks=N or path= with "
				    "offset=, not both");
	}
	return 0;
}

int fault_rule_parse(const char *args, struct fault_rule *out, char *err,
		     size_t errlen)
{
	char buf[2048];
	if (strlen(args) >= sizeof(buf))
		return fail(err, errlen, "fault rule too long");
	strcpy(buf, args);
	char *save = NULL, *word = strtok_r(buf, " \t", &save);
	if (!word)
		return fail(
		    err, errlen,
		    "fault inject needs a kind (error, latency, "
		    "torn-write, thin, bitrot, power-loss, "
		    "controller, path, drive, drive-slow, cache-device)");
	unsigned k = 0;
	while (k < FAULT_KIND_COUNT && strcmp(word, kind_names[k]))
		k++;
	if (k == FAULT_KIND_COUNT)
		return fail(
		    err, errlen,
		    "unknown fault kind '%.32s' (error, latency, "
		    "torn-write, thin, bitrot, power-loss, "
		    "controller, path, drive, drive-slow, cache-device)",
		    word);
	struct fault_rule r;
	set_defaults(&r, k);
	unsigned seen = 0;
	while ((word = strtok_r(NULL, " \t", &save)))
		if (parse_pair(word, kind_keys[k], &seen, &r, err, errlen))
			return -EINVAL;
	if (check_rule(&r, seen, err, errlen))
		return -EINVAL;
	memcpy(out, &r, sizeof(r));
	return 0;
}

static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	if (*at >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (n > 0)
		*at += (size_t)n;
}

static void put_ops(char *buf, size_t len, size_t *at, unsigned ops)
{
	if (ops == FOP_ANY) {
		put(buf, len, at, " op=any");
		return;
	}
	const char *sep = " op=";
	for (unsigned i = 0; i < NOPS; i++)
		if (ops & 1u << i) {
			put(buf, len, at, "%s%s", sep, op_names[i]);
			sep = ",";
		}
}

/* In the largest unit that shows it exactly: 5ms, not 5000000ns. */
static void put_duration(char *buf, size_t len, size_t *at, uint64_t ns)
{
	static const struct {
		uint64_t ns;
		const char *unit;
	} units[] = {{1000000000u, "s"}, {1000000, "ms"}, {1000, "us"}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns % units[i].ns == 0) {
			put(buf, len, at, " latency=%llu%s",
			    (unsigned long long)(ns / units[i].ns),
			    units[i].unit);
			return;
		}
	put(buf, len, at, " latency=%lluns", (unsigned long long)ns);
}

/* " KEY=V": the shortest form of @v that reads back as the same double. */
static void put_exact(char *buf, size_t len, size_t *at, const char *key,
		      double v)
{
	char p[32];
	for (int digits = 6; digits <= 17; digits++) {
		snprintf(p, sizeof(p), "%.*g", digits, v);
		if (strtod(p, NULL) == v)
			break;
	}
	put(buf, len, at, " %s=%s", key, p);
}

static const char *errno_name(int e)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].err == e)
			return errnos[i].name;
	return "EIO";
}

char *fault_rule_format(const struct fault_rule *r, char *buf, size_t len)
{
	size_t at = 0;
	unsigned keys = kind_keys[r->kind];
	put(buf, len, &at, "%s", fault_kind_name(r->kind));
	if (keys & K_OP)
		put_ops(buf, len, &at, r->ops);
	if (keys & K_ERRNO)
		put(buf, len, &at, " errno=%s", errno_name(r->err));
	if (keys & K_LATENCY)
		put_duration(buf, len, &at, r->latency_ns);
	if (keys & K_CAPACITY)
		put(buf, len, &at, " capacity=%llu",
		    (unsigned long long)r->capacity_bytes);
	if ((keys & K_BLOCKS) && !r->has_offset)
		put(buf, len, &at, " blocks=%llu",
		    (unsigned long long)r->blocks);
	if ((keys & K_PATH) && r->path[0])
		put(buf, len, &at, " path=%s", r->path);
	if ((keys & K_OFFSET) && r->has_offset)
		put(buf, len, &at, " offset=%llu",
		    (unsigned long long)r->offset);
	if ((keys & K_PROB) && r->prob < 1)
		put_exact(buf, len, &at, "prob", r->prob);
	if (keys & K_ID)
		put(buf, len, &at, " id=%u", r->id);
	if ((keys & K_TIER) && r->tier < NTIERS)
		put(buf, len, &at, " tier=%s", tier_names[r->tier]);
	if (keys & K_FACTOR)
		put_exact(buf, len, &at, "factor", r->factor);
	if ((keys & K_COUNT) && r->count)
		put(buf, len, &at, " count=%llu", (unsigned long long)r->count);
	return buf;
}
