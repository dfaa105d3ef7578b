/* Array profiles: the INI parser (the key table is profile_keys.c, one
 * value's parsing profile_value.c).
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
#include "tiers/profile_check_i.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/units.h"

#define PROFILE_MAX_FILE (1u << 20)

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
			     "[dedupe], [nodes], [replication])",
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
	    nano > 1000 * NS_PER_SEC)
		return -EINVAL;
	*out = (double)nano / (double)NS_PER_SEC;
	return 0;
}
