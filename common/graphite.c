/* Prometheus exposition to Carbon plaintext; see common/graphite.h. */
#include "common/graphite.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PATH_MAX_BYTES 1024
#define PREFIX_MAX_BYTES 200

/* A path being built: bytes so far, and whether it ever overflowed. */
struct path {
	char b[PATH_MAX_BYTES];
	size_t n;
	bool full;
};

static void put(struct path *p, char c)
{
	if (p->n + 1 >= sizeof(p->b)) {
		p->full = true;
		return;
	}
	p->b[p->n++] = c;
}

static bool safe(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* A line being read: [s, e). */
struct cursor {
	const char *s, *e;
};

static bool name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_' || c == ':';
}

static bool name_char(char c)
{
	return name_start(c) || isdigit((unsigned char)c);
}

/* A metric or label name onto @p, after a '.'; ':' (recording rules'
 * separator) is not safe in a path. */
static bool read_name(struct cursor *c, struct path *p)
{
	if (c->s == c->e || !name_start(*c->s))
		return false;
	put(p, '.');
	while (c->s < c->e && name_char(*c->s)) {
		char ch = *c->s++;

		put(p, ch == ':' ? '_' : ch);
	}
	return true;
}

/* A quoted label value, escapes undone, unsafe bytes as '_'. */
static bool read_value(struct cursor *c, struct path *p)
{
	if (c->s == c->e || *c->s++ != '"')
		return false;
	put(p, '.');
	while (c->s < c->e && *c->s != '"') {
		char ch = *c->s++;

		if (ch == '\\') {
			if (c->s == c->e)
				return false;
			ch = *c->s++;
			if (ch == 'n')
				ch = '\n';
		}
		put(p, safe(ch) ? ch : '_');
	}
	if (c->s == c->e)
		return false;
	c->s++;
	return true;
}

/* {k="v",...} (a trailing comma allowed, as the format allows). */
static bool read_labels(struct cursor *c, struct path *p)
{
	if (c->s == c->e || *c->s != '{')
		return true;
	c->s++;
	while (c->s < c->e && *c->s != '}') {
		if (!read_name(c, p) || c->s == c->e || *c->s++ != '=' ||
		    !read_value(c, p))
			return false;
		if (c->s < c->e && *c->s == ',')
			c->s++;
	}
	if (c->s == c->e)
		return false;
	c->s++;
	return true;
}

/* The sample's value: 0 and *@v, 1 when non-finite (skipped, not bad),
 * -1 when it is not a number. */
static int read_number(struct cursor *c, double *v)
{
	char buf[64], *end;
	size_t n;

	while (c->s < c->e && *c->s == ' ')
		c->s++;
	for (n = 0; c->s + n < c->e && c->s[n] != ' ' && n < sizeof(buf) - 1;
	     n++)
		buf[n] = c->s[n];
	buf[n] = '\0';
	if (!n)
		return -1;
	*v = strtod(buf, &end);
	if (*end)
		return -1;
	return isfinite(*v) ? 0 : 1;
}

/* One sample line: 1 written, 0 skipped (non-finite), -1 bad. */
static int one_line(struct cursor c, const char *prefix, uint64_t ts, FILE *out)
{
	struct path p = {.n = 0};
	double v;
	int r;

	if (!read_name(&c, &p) || !read_labels(&c, &p))
		return -1;
	r = read_number(&c, &v);
	if (r)
		return r < 0 ? -1 : 0;
	if (p.full)
		return -1;
	/* read_name put a '.' first: skip it when there is no prefix. */
	fprintf(out, "%s%.*s %.17g %llu\n", prefix,
		*prefix ? (int)p.n : (int)p.n - 1, *prefix ? p.b : p.b + 1, v,
		(unsigned long long)ts);
	return 1;
}

size_t graphite_from_exposition(const char *text, size_t len,
				const char *prefix, uint64_t ts_s, FILE *out,
				size_t *bad)
{
	const char *s = text, *end = text + len;
	size_t written = 0, nbad = 0;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;

		if (e > s && *s != '#') {
			int r =
			    one_line((struct cursor){s, e}, prefix, ts_s, out);

			written += r > 0;
			nbad += r < 0;
		}
		s = nl ? nl + 1 : end;
	}
	if (bad)
		*bad = nbad;
	return written;
}

int graphite_prefix_ok(const char *p)
{
	size_t n = strlen(p), comp = 0;

	if (n > PREFIX_MAX_BYTES)
		return 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || p[i] == '.') {
			if (!comp)
				return n == 0;
			comp = 0;
		} else if (!safe(p[i])) {
			return 0;
		} else {
			comp++;
		}
	}
	return 1;
}

/* "prefix=P" after the comma, the only option there is. */
static int parse_options(const char *opts, struct graphite_target *t, char *err,
			 size_t errlen)
{
	if (strncmp(opts, "prefix=", 7) ||
	    strlen(opts + 7) >= sizeof(t->prefix) ||
	    !graphite_prefix_ok(opts + 7)) {
		snprintf(err, errlen,
			 "--graphite: '%.80s' is not prefix=P (P: dotted names "
			 "of letters, digits, _ and -, at most 200 bytes)",
			 opts);
		return -1;
	}
	strcpy(t->prefix, opts + 7);
	return 0;
}

int graphite_parse_target(const char *spec, struct graphite_target *t,
			  char *err, size_t errlen)
{
	const char *comma = strchr(spec, ','), *hp_end, *colon, *h = spec;
	size_t hn;
	char *end;
	unsigned long port;

	memset(t, 0, sizeof(*t));
	hp_end = comma ? comma : spec + strlen(spec);
	colon = hp_end;
	while (colon > spec && colon[-1] != ':')
		colon--;
	if (colon == spec)
		goto bad;
	hn = (size_t)(colon - 1 - spec);
	if (hn >= 2 && spec[0] == '[' && spec[hn - 1] == ']') {
		h = spec + 1;
		hn -= 2;
	}
	errno = 0;
	port = strtoul(colon, &end, 10);
	if (!hn || hn >= sizeof(t->host) || end != hp_end || colon == hp_end ||
	    errno || port == 0 || port > 65535)
		goto bad;
	memcpy(t->host, h, hn);
	snprintf(t->port, sizeof(t->port), "%lu", port);
	return comma ? parse_options(comma + 1, t, err, errlen) : 0;
bad:
	snprintf(err, errlen, "--graphite: '%.80s' is not HOST:PORT[,prefix=P]",
		 spec);
	return -1;
}
