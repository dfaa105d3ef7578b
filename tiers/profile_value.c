/* One key's value: parsing a value by the key's type into its field of
 * struct profile (pkey_set), finding a key and its field, and the first
 * error of a parse, worded with its file, line, section and key. The
 * parser (profile.c) and the cross-key checks (profile_check.c) both
 * use these; they use nothing of either.
 */
#include "tiers/profile_value_i.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/units.h"

/* ---- errors ------------------------------------------------------------ */

void pstate_error(struct pstate *st, int line, enum psec sec, unsigned slot,
		  const char *key, const char *fmt, ...)
{
	char where[96] = "", msg[PROFILE_ERR_LEN];
	va_list ap;

	if (st->err_line)
		return; /* the first error is the one to fix */
	if (sec == PSEC_TIER)
		snprintf(where, sizeof(where), " [tier %s]", ptier_names[slot]);
	else if (sec < PSEC_COUNT)
		snprintf(where, sizeof(where), " [%s]", psec_names[sec]);
	if (key)
		snprintf(where + strlen(where), sizeof(where) - strlen(where),
			 " %s", key);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* "file:12: [tier flash] raid: msg", "file:3: msg", "file: msg" */
	if (line > 0)
		snprintf(st->err, st->errlen, "%s:%d:%s%s %s", st->file, line,
			 where, *where ? ":" : "", msg);
	else
		snprintf(st->err, st->errlen, "%s:%s%s %s", st->file, where,
			 *where ? ":" : "", msg);
	st->err_line = line > 0 ? line : -1;
}

/* ---- values ------------------------------------------------------------ */

/* Link speeds by name: the data rate one direction carries, before the
 * protocol's own overhead (8b/10b coding is already out of the FC, SATA
 * and SAS figures; SATA is half duplex in truth, modelled as full).
 * InfiniBand, between nodes only ([nodes] interconnect): 4x links, QDR
 * 40 Gb/s with 8b/10b (32 Gb/s of data), FDR 4 x 14.0625 Gb/s and EDR
 * 4 x 25.78125 Gb/s with 64b/66b. */
static const struct link_speed {
	const char *name;
	uint64_t bytes_per_s;
} link_speeds[] = {
    {"1GbE", 125000000ull},	{"10GbE", 1250000000ull},
    {"25GbE", 3125000000ull},	{"40GbE", 5000000000ull},
    {"100GbE", 12500000000ull}, {"4GFC", 400000000ull},
    {"8GFC", 800000000ull},	{"16GFC", 1600000000ull},
    {"32GFC", 3200000000ull},	{"SATA-3G", 300000000ull},
    {"SATA-6G", 600000000ull},	{"SAS-6G", 600000000ull},
    {"SAS-12G", 1200000000ull}, {"IB-QDR", 4000000000ull},
    {"IB-FDR", 6818181818ull},	{"IB-EDR", 12500000000ull},
};

static int set_link(struct pstate *st, const struct pkey *k, unsigned slot,
		    struct profile_frontend *fe, const char *val)
{
	char known[160] = "";

	for (size_t i = 0; i < sizeof(link_speeds) / sizeof(*link_speeds);
	     i++) {
		if (!strcasecmp(val, link_speeds[i].name)) {
			snprintf(fe->speed, sizeof(fe->speed), "%s",
				 link_speeds[i].name);
			fe->line_bytes_per_s = link_speeds[i].bytes_per_s;
			return 0;
		}
		snprintf(known + strlen(known), sizeof(known) - strlen(known),
			 "%s%s", i ? ", " : "", link_speeds[i].name);
	}
	pstate_error(st, st->line, k->sec, slot, k->key,
		     "unknown link speed '%s' (known: %s)", val, known);
	return -EINVAL;
}

static int set_enum(struct pstate *st, const struct pkey *k, unsigned slot,
		    int *field, const char *val)
{
	char known[160] = "";

	for (int i = 0; k->names[i]; i++) {
		if (!strcasecmp(val, k->names[i])) {
			*field = i;
			return 0;
		}
		snprintf(known + strlen(known), sizeof(known) - strlen(known),
			 "%s%s", i ? ", " : "", k->names[i]);
	}
	pstate_error(st, st->line, k->sec, slot, k->key,
		     "unknown %s '%s' (known: %s)", k->what, val, known);
	return -EINVAL;
}

/* "8%", "99.9%": a plain decimal (units.c's number grammar) and '%'. */
static int parse_percent(const char *s, double *out)
{
	char num[32];
	size_t n = strlen(s);
	uint64_t nano;

	if (n < 2 || n >= sizeof(num) - 1 || s[n - 1] != '%' || s[n - 2] == ' ')
		return -EINVAL;
	/* units.c scales decimals exactly by powers of ten only for
	 * durations: "99.9s" is 99.9e9 ns, so 99.9% is read as such. */
	snprintf(num, sizeof(num), "%.*ss", (int)(n - 1), s);
	if (units_parse_duration_ns(num, &nano) != 0 || nano > 100 * NS_PER_SEC)
		return -EINVAL;
	*out = (double)nano / (double)NS_PER_SEC;
	return 0;
}

/* "1.25": a plain decimal (units.c's number grammar), read exactly as
 * parse_percent reads one. */
static int parse_decimal(const char *s, double *out)
{
	char num[32];
	uint64_t nano;

	if (!*s || strlen(s) >= sizeof(num) - 1 || !strchr("0123456789", *s))
		return -EINVAL;
	snprintf(num, sizeof(num), "%ss", s);
	if (units_parse_duration_ns(num, &nano) != 0)
		return -EINVAL;
	*out = (double)nano / (double)NS_PER_SEC;
	return 0;
}

/* "550MiB/s" (or "0": no cap). */
static int parse_rate(const char *s, uint64_t *out)
{
	char num[64];
	size_t n = strlen(s);

	if (!strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	if (n < 3 || n >= sizeof(num) || strcmp(s + n - 2, "/s"))
		return -EINVAL;
	memcpy(num, s, n - 2);
	num[n - 2] = '\0';
	return units_parse_size(num, out);
}

/* One "pNN:duration" point. */
static int parse_point(char *tok, struct engine_dist_point *pt)
{
	char *colon = strchr(tok, ':');
	double pct;
	char pcts[40];

	if (tok[0] != 'p' || !colon || (size_t)(colon - tok) >= 30)
		return -EINVAL;
	snprintf(pcts, sizeof(pcts), "%.*s%%", (int)(colon - tok - 1), tok + 1);
	if (parse_percent(pcts, &pct) ||
	    units_parse_duration_ns(colon + 1, &pt->ns))
		return -EINVAL;
	pt->pct = pct;
	return 0;
}

/* "100us" (fixed) or "p50:90us p99:300us p99.9:1ms". */
static int parse_dist(const char *s, struct engine_dist *d, bool *order)
{
	char buf[PROFILE_MAX_LINE + 1], *tok, *save;
	struct engine_dist out = {0};

	*order = true;
	if (s[0] != 'p')
		return units_parse_duration_ns(s, &d->fixed_ns) == 0
			   ? (d->n_points = 0, 0)
			   : -EINVAL;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, " \t,", &save); tok;
	     tok = strtok_r(NULL, " \t,", &save)) {
		if (out.n_points == ENGINE_DIST_MAX_POINTS ||
		    parse_point(tok, &out.points[out.n_points]))
			return -EINVAL;
		out.n_points++;
	}
	if (out.n_points == 0)
		return -EINVAL;
	if (engine_dist_check(&out)) {
		*order = false;
		return -EINVAL;
	}
	*d = out;
	return 0;
}

static int set_dist(struct pstate *st, const struct pkey *k, unsigned slot,
		    struct engine_dist *d, const char *val)
{
	bool order;

	if (parse_dist(val, d, &order) == 0)
		return 0;
	if (!order)
		pstate_error(st, st->line, k->sec, slot, k->key,
			     "percentiles out of order in '%s' (percentiles "
			     "and latencies must both ascend)",
			     val);
	else
		pstate_error(st, st->line, k->sec, slot, k->key,
			     "'%s' is not a latency (100us, or percentiles: "
			     "p50:90us p99:1ms, at most %d)",
			     val, ENGINE_DIST_MAX_POINTS);
	return -EINVAL;
}

static const char *type_word(enum pkey_type t)
{
	switch (t) {
	case PK_BOOL:
		return "yes or no";
	case PK_UINT:
	case PK_U64:
		return "a whole number";
	case PK_SIZE:
		return "a size (4K, 480G)";
	case PK_DURATION:
		return "a duration (100us, 5ms)";
	case PK_RATE:
		return "a rate (550MiB/s, or 0 for none)";
	case PK_PERCENT:
		return "a percentage (8%)";
	case PK_DECIMAL:
		return "a decimal number (1.25)";
	default:
		return "a value";
	}
}

static unsigned pkey_max(const struct pkey *k)
{
	return k->max ? k->max : 1000000;
}

/* The scalar types; enum, link and distribution have their own. */
static int set_scalar(const struct pkey *k, void *field, const char *val)
{
	uint64_t u;

	switch (k->type) {
	case PK_STRING:
		if (strlen(val) >= PROFILE_TEXT_LEN)
			return -EINVAL;
		strcpy(field, val);
		return 0;
	case PK_BOOL:
		return units_parse_bool(val, field);
	case PK_UINT:
		if (units_parse_u64(val, &u) || u > pkey_max(k) || u < k->min)
			return -EINVAL;
		*(unsigned *)field = (unsigned)u;
		return 0;
	case PK_U64:
		return units_parse_u64(val, field);
	case PK_SIZE:
		return units_parse_size(val, field);
	case PK_DURATION:
		return units_parse_duration_ns(val, field);
	case PK_RATE:
		return parse_rate(val, field);
	case PK_PERCENT:
		return parse_percent(val, field);
	case PK_DECIMAL:
		return parse_decimal(val, field);
	default:
		return -EINVAL;
	}
}

int pkey_set(struct pstate *st, const struct pkey *k, unsigned slot,
	     void *field, const char *val)
{
	if (k->type == PK_ENUM)
		return set_enum(st, k, slot, field, val);
	if (k->type == PK_LINK)
		return set_link(st, k, slot, field, val);
	if (k->type == PK_DIST)
		return set_dist(st, k, slot, field, val);
	if (set_scalar(k, field, val) == 0)
		return 0;
	if (k->type == PK_UINT)
		pstate_error(st, st->line, k->sec, slot, k->key,
			     "'%s' is not a whole number from %u to %u", val,
			     k->min, pkey_max(k));
	else if (k->type == PK_STRING)
		pstate_error(st, st->line, k->sec, slot, k->key,
			     "longer than %d characters", PROFILE_TEXT_LEN - 1);
	else
		pstate_error(st, st->line, k->sec, slot, k->key,
			     "'%s' is not %s", val, type_word(k->type));
	return -EINVAL;
}

void *pkey_field(struct profile *p, const struct pkey *k, unsigned slot)
{
	if (k->sec == PSEC_TIER)
		return (char *)&p->tier[slot] + k->offset;
	return (char *)p + k->offset;
}

int pkey_find(enum psec sec, const char *key)
{
	if (!key)
		return -1; /* an error about a whole section */
	for (unsigned i = 0; i < n_pkeys; i++)
		if (pkeys[i].sec == sec && !strcmp(pkeys[i].key, key))
			return (int)i;
	return -1;
}
