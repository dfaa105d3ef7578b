/* Parsing and printing fault rules; see faults/rule.h for the grammar. */
#include "faults/rule.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

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

/* By bit of enum fault_key. */
static const char *const key_names[] = {
    "op",	"errno",  "path",   "prob", "count", "latency",
    "capacity", "blocks", "offset", "id",   "tier",  "factor",
};
#define NKEYS (sizeof(key_names) / sizeof(key_names[0]))

bool fault_rule_is_array(const struct fault_rule *r)
{
	return r->kind && r->kind->array;
}

/* The keys @k takes, as enum fault_key bits. */
static unsigned kind_keys(const struct fault_ops *k)
{
	unsigned m = 0;
	for (unsigned i = 0; i < FAULT_MAX_KEY_ROWS; i++)
		m |= k->keys[i].key;
	return m;
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
	case FAULT_KEY_OP:
		return parse_ops(v, &r->ops, err, errlen);
	case FAULT_KEY_ERRNO:
		return parse_errno(v, &r->err, err, errlen);
	case FAULT_KEY_PATH:
		if (!*v || strlen(v) >= sizeof(r->path))
			return fail(err, errlen, "path: empty or too long");
		strcpy(r->path, v);
		return 0;
	case FAULT_KEY_PROB:
		return parse_range("prob", v, 0, 1, "a probability in (0, 1]",
				   &r->prob, err, errlen);
	case FAULT_KEY_COUNT:
		return parse_positive("count", v, &r->count, err, errlen);
	case FAULT_KEY_BLOCKS:
		return parse_positive("blocks", v, &r->blocks, err, errlen);
	case FAULT_KEY_LATENCY:
		if (units_parse_duration_ns(v, &r->latency_ns) ||
		    !r->latency_ns)
			return fail(err, errlen,
				    "latency: '%.32s' is not a duration > 0 "
				    "(like 5ms)",
				    v);
		return 0;
	case FAULT_KEY_CAPACITY:
		if (units_parse_size(v, &r->capacity_bytes))
			return fail(err, errlen,
				    "capacity: '%.32s' is not a size (like "
				    "10G)",
				    v);
		return 0;
	case FAULT_KEY_ID:
		return parse_id(v, &r->id, err, errlen);
	case FAULT_KEY_TIER:
		return parse_tier(v, &r->tier, err, errlen);
	case FAULT_KEY_FACTOR:
		return parse_range("factor", v, 1, 1000,
				   "a number above 1, at most 1000", &r->factor,
				   err, errlen);
	default: /* FAULT_KEY_OFFSET */
		r->has_offset = true;
		if (units_parse_size(v, &r->offset))
			return fail(err, errlen,
				    "offset: '%.32s' is not a size", v);
		return 0;
	}
}

static void set_defaults(struct fault_rule *r, const struct fault_ops *k)
{
	/* memset, not a compound literal: padding is zero too, so that
	 * rules compare with memcmp. */
	memset(r, 0, sizeof(*r));
	r->kind = k;
	r->ops = FOP_ANY;
	r->prob = 1;
	r->tier = FAULT_TIER_AUTO;
	if (k->defaults)
		k->defaults(r);
}

int fault_rule_parse(const char *args, struct fault_rule *out, char *err,
		     size_t errlen)
{
	char buf[2048];
	if (strlen(args) >= sizeof(buf))
		return fail(err, errlen, "fault rule too long");
	strcpy(buf, args);
	char names[256];
	char *save = NULL, *word = strtok_r(buf, " \t", &save);
	if (!word)
		return fail(err, errlen, "fault inject needs a kind (%s)",
			    fault_kind_names(names, sizeof(names)));
	const struct fault_ops *k = fault_kind_find(word);
	if (!k)
		return fail(err, errlen, "unknown fault kind '%.32s' (%s)",
			    word, fault_kind_names(names, sizeof(names)));
	struct fault_rule r;
	set_defaults(&r, k);
	unsigned seen = 0;
	while ((word = strtok_r(NULL, " \t", &save)))
		if (parse_pair(word, kind_keys(k), &seen, &r, err, errlen))
			return -EINVAL;
	if (k->check && k->check(&r, seen, err, errlen))
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

/* Key @key of @r, as " key=value", where the rule says one. */
static void put_key(char *buf, size_t len, size_t *at,
		    const struct fault_rule *r, enum fault_key key)
{
	switch (key) {
	case FAULT_KEY_OP:
		put_ops(buf, len, at, r->ops);
		break;
	case FAULT_KEY_ERRNO:
		put(buf, len, at, " errno=%s", errno_name(r->err));
		break;
	case FAULT_KEY_LATENCY:
		put_duration(buf, len, at, r->latency_ns);
		break;
	case FAULT_KEY_CAPACITY:
		put(buf, len, at, " capacity=%llu",
		    (unsigned long long)r->capacity_bytes);
		break;
	case FAULT_KEY_BLOCKS:
		if (!r->has_offset)
			put(buf, len, at, " blocks=%llu",
			    (unsigned long long)r->blocks);
		break;
	case FAULT_KEY_PATH:
		if (r->path[0])
			put(buf, len, at, " path=%s", r->path);
		break;
	case FAULT_KEY_OFFSET:
		if (r->has_offset)
			put(buf, len, at, " offset=%llu",
			    (unsigned long long)r->offset);
		break;
	case FAULT_KEY_PROB:
		if (r->prob < 1)
			put_exact(buf, len, at, "prob", r->prob);
		break;
	case FAULT_KEY_ID:
		put(buf, len, at, " id=%u", r->id);
		break;
	case FAULT_KEY_TIER:
		if (r->tier < NTIERS)
			put(buf, len, at, " tier=%s", tier_names[r->tier]);
		break;
	case FAULT_KEY_FACTOR:
		put_exact(buf, len, at, "factor", r->factor);
		break;
	case FAULT_KEY_COUNT:
		if (r->count)
			put(buf, len, at, " count=%llu",
			    (unsigned long long)r->count);
		break;
	}
}

char *fault_rule_format(const struct fault_rule *r, char *buf, size_t len)
{
	size_t at = 0;
	put(buf, len, &at, "%s", fault_kind_name(r->kind));
	for (unsigned i = 0; i < FAULT_MAX_KEY_ROWS && r->kind->keys[i].key;
	     i++)
		put_key(buf, len, &at, r, r->kind->keys[i].key);
	return buf;
}
