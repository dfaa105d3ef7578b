/* Array profiles: the key table and the INI parser.
 *
 *   text ──> reader (one line at a time: counts lines, strips indentation,
 *   │        checks [section] headers, refuses over-long lines)
 *   └──> libinih ──> handler (section + key looked up in pkeys[], the value
 *                     parsed by its type into struct profile, line kept)
 *   ──> profile_resolve() (profile_check.c: defaults, cross-key checks)
 *
 * Why one table (pkeys[]): the parser, the defaults, the error messages
 * and `profile show` all read it, so a key cannot be parsed one way and
 * printed another. Why our own reader around libinih: inih's handler is
 * not told the line number in Debian's build, and errors must name it;
 * stripping indentation also keeps inih from reading an indented key as
 * the continuation of the previous value.
 */
#include "tiers/profile_i.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/units.h"

#define PROFILE_MAX_LINE 200 /* INI_MAX_LINE of Debian's libinih */
#define PROFILE_MAX_FILE (1u << 20)
#define NS_PER_S 1000000000ull

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
 * and SAS figures; SATA is half duplex in truth, modelled as full). */
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
    {"SAS-12G", 1200000000ull},
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
	if (units_parse_duration_ns(num, &nano) != 0 || nano > 100 * NS_PER_S)
		return -EINVAL;
	*out = (double)nano / (double)NS_PER_S;
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

/* ---- sections ---------------------------------------------------------- */

/* "controllers" or "tier cache" into (section, slot). 0 or -EINVAL. */
static int section_lookup(const char *name, enum psec *sec, unsigned *slot)
{
	*slot = 0;
	if (!strncmp(name, "tier", 4) && (name[4] == ' ' || name[4] == '\t')) {
		const char *t = name + 5;

		while (*t == ' ' || *t == '\t')
			t++;
		for (unsigned i = 0; i < PROFILE_TIER_COUNT; i++)
			if (!strcmp(t, ptier_names[i])) {
				*sec = PSEC_TIER;
				*slot = i;
				return 0;
			}
		return -EINVAL;
	}
	for (unsigned i = 0; i < PSEC_COUNT; i++)
		if (i != PSEC_TIER && !strcmp(name, psec_names[i])) {
			*sec = (enum psec)i;
			return 0;
		}
	return -EINVAL;
}

/* A "[name]" line: known, and not given twice. */
static void section_header(struct pstate *st, const char *line)
{
	const char *end = strchr(line, ']');
	char name[64];
	enum psec sec;
	unsigned slot;

	if (!end || (size_t)(end - line) >= sizeof(name))
		return; /* inih reports the syntax error */
	snprintf(name, sizeof(name), "%.*s", (int)(end - line - 1), line + 1);
	if (section_lookup(name, &sec, &slot)) {
		pstate_error(st, st->line, PSEC_COUNT, 0, NULL,
			     "unknown section [%s] (known: [array], "
			     "[controllers], [frontend], [tier flash], "
			     "[tier cache], [tier backing], [cache], "
			     "[dedupe])",
			     name);
		return;
	}
	if (st->sec_line[sec][slot])
		pstate_error(st, st->line, sec, slot, NULL,
			     "section given twice (first on line %d)",
			     st->sec_line[sec][slot]);
	else
		st->sec_line[sec][slot] = st->line;
}

/* ---- reader and handler ------------------------------------------------ */

struct preader {
	struct pstate *st;
	const char *next; /* rest of the text */
};

/* inih's reader: one line into @buf, indentation stripped. Stops the
 * parse (NULL) at the end or at a line longer than inih's buffer. */
static char *reader_line(char *buf, int size, void *stream)
{
	struct preader *r = stream;
	const char *s = r->next, *nl;
	size_t n;

	if (!*s || r->st->err_line)
		return NULL;
	nl = strchr(s, '\n');
	n = nl ? (size_t)(nl - s + 1) : strlen(s);
	r->next = s + n;
	r->st->line++;
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (n >= (size_t)size || memchr(s, '\0', n)) {
		pstate_error(r->st, r->st->line, PSEC_COUNT, 0, NULL,
			     "line longer than %d characters", size - 2);
		return NULL;
	}
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (buf[0] == '[')
		section_header(r->st, buf);
	return buf;
}

static int handler(void *user, const char *section, const char *name,
		   const char *value)
{
	struct pstate *st = user;
	enum psec sec;
	unsigned slot;
	int i;

	if (st->err_line)
		return 0;
	if (section_lookup(section, &sec, &slot)) {
		pstate_error(st, st->line, PSEC_COUNT, 0, name,
			     "key outside any known section");
		return 0;
	}
	i = pkey_find(sec, name);
	if (i < 0) {
		pstate_error(st, st->line, sec, slot, name, "unknown key");
		return 0;
	}
	if (st->key_line[i][slot]) {
		pstate_error(st, st->line, sec, slot, name,
			     "given twice (first on line %d)",
			     st->key_line[i][slot]);
		return 0;
	}
	st->key_line[i][slot] = st->line;
	return pkey_set(st, &pkeys[i], slot, pkey_field(st->p, &pkeys[i], slot),
			value) == 0;
}

/* ---- public ------------------------------------------------------------ */

static void profile_name_from(const char *file, char *name, size_t len)
{
	const char *base = strrchr(file, '/');
	size_t n;

	base = base ? base + 1 : file;
	n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".ini"))
		n -= 4;
	snprintf(name, len, "%.*s", (int)n, base);
}

int profile_parse_string(const char *text, const char *file,
			 struct profile *out, char *err, size_t errlen)
{
	struct pstate *st = calloc(1, sizeof(*st));
	struct preader r = {.st = st, .next = text};
	int line, rc = 0;

	if (!st)
		return -ENOMEM;
	memset(out, 0, sizeof(*out));
	st->file = file;
	st->p = out;
	st->err = err;
	st->errlen = errlen;
	line = ini_parse_stream(reader_line, &r, handler, st);
	/* inih returns the first bad line: ours if we flagged it, else a
	 * line it could not read as [section] or key = value. */
	if (line > 0 && (!st->err_line || line < st->err_line)) {
		st->err_line = 0;
		pstate_error(st, line, PSEC_COUNT, 0, NULL,
			     "expected [section] or key = value");
	} else if (line < 0 && !st->err_line) {
		rc = -ENOMEM;
	}
	if (!rc && !st->err_line)
		profile_resolve(st);
	if (!rc && st->err_line)
		rc = -EINVAL;
	profile_name_from(file, out->name, sizeof(out->name));
	free(st);
	return rc;
}

/* The line number of byte @off of @text (1-based). */
static int line_of(const char *text, size_t off)
{
	int line = 1;

	for (size_t i = 0; i < off; i++)
		line += text[i] == '\n';
	return line;
}

/* The whole of @path, NUL-terminated, in a malloc'd buffer. */
static int read_text(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t n;
	char *buf;

	if (!f)
		return -errno;
	buf = malloc(PROFILE_MAX_FILE + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, PROFILE_MAX_FILE + 1, f);
	if (ferror(f) || n > PROFILE_MAX_FILE) {
		int e = ferror(f) ? EIO : EFBIG;

		fclose(f);
		free(buf);
		return -e;
	}
	fclose(f);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

int profile_parse_file(const char *path, struct profile *out, char *err,
		       size_t errlen)
{
	char *text = NULL;
	size_t text_len = 0;
	int rc = read_text(path, &text, &text_len);

	if (rc) {
		snprintf(err, errlen, "profile %s: %s", path, strerror(-rc));
		return rc;
	}
	if (strlen(text) != text_len) {
		/* The parser reads a C string: say so rather than read half. */
		snprintf(err, errlen, "%s:%d: not a text file (a NUL byte)",
			 path, line_of(text, strlen(text)));
		free(text);
		return -EINVAL;
	}
	rc = profile_parse_string(text, path, out, err, errlen);
	free(text);
	return rc;
}

int profile_load(const char *name_or_path, struct profile *out, char *err,
		 size_t errlen)
{
	const struct profile_builtin *b;

	for (b = profile_builtins(); b->name; b++)
		if (!strcmp(b->name, name_or_path)) {
			char file[80];

			snprintf(file, sizeof(file), "%s.ini", b->name);
			return profile_parse_string(b->text, file, out, err,
						    errlen);
		}
	if (!strchr(name_or_path, '/') && !strstr(name_or_path, ".ini") &&
	    access(name_or_path, F_OK) != 0) {
		snprintf(err, errlen,
			 "unknown profile '%s' (see: arraysim profiles; a "
			 "file needs a '/' or .ini)",
			 name_or_path);
		return -ENOENT;
	}
	return profile_parse_file(name_or_path, out, err, errlen);
}

int profile_parse_scale(const char *s, double *out)
{
	uint64_t nano;
	char num[40];

	/* A decimal read exactly, as in parse_percent(). */
	if (!s || !*s || strlen(s) >= sizeof(num) - 1 ||
	    s[strlen(s) - 1] < '0' || s[strlen(s) - 1] > '9')
		return -EINVAL;
	snprintf(num, sizeof(num), "%ss", s);
	if (units_parse_duration_ns(num, &nano) || nano == 0 ||
	    nano > 1000 * NS_PER_S)
		return -EINVAL;
	*out = (double)nano / (double)NS_PER_S;
	return 0;
}
