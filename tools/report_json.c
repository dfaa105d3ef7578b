/* The JSON-lines reader of arraysim report; see tools/report_json.h. */
#include "tools/report_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Nesting deeper than this is refused: the formats are flat, and a bound
 * keeps a hostile line from exhausting the stack. */
#define RJ_MAX_DEPTH 32

struct cur {
	const char *p, *end;
};

static void skip_ws(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' ||
				 *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static bool is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
	       (ch >= 'A' && ch <= 'F');
}

/* At the opening quote; leaves @c after the closing one. */
static int scan_string(struct cur *c, struct rj_span *body)
{
	if (c->p >= c->end || *c->p != '"')
		return -1;
	const char *start = ++c->p;
	while (c->p < c->end) {
		unsigned char ch = (unsigned char)*c->p;
		if (ch == '"') {
			body->p = start;
			body->len = (size_t)(c->p - start);
			c->p++;
			return 0;
		}
		if (ch < 0x20)
			return -1;
		if (ch != '\\') {
			c->p++;
			continue;
		}
		if (c->end - c->p < 2)
			return -1;
		char e = c->p[1];
		if (e == 'u') {
			if (c->end - c->p < 6)
				return -1;
			for (int i = 2; i < 6; i++)
				if (!is_hex(c->p[i]))
					return -1;
			c->p += 6;
		} else if (strchr("\"\\/bfnrt", e) && e) {
			c->p += 2;
		} else {
			return -1;
		}
	}
	return -1;
}

static bool is_digit(const struct cur *c)
{
	return c->p < c->end && *c->p >= '0' && *c->p <= '9';
}

static void skip_digits(struct cur *c)
{
	while (is_digit(c))
		c->p++;
}

/* The grammar of RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int scan_number(struct cur *c)
{
	if (c->p < c->end && *c->p == '-')
		c->p++;
	if (!is_digit(c))
		return -1;
	if (*c->p++ != '0')
		skip_digits(c);
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		if (!is_digit(c))
			return -1;
		skip_digits(c);
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (!is_digit(c))
			return -1;
		skip_digits(c);
	}
	return 0;
}

static int scan_literal(struct cur *c, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
		return -1;
	c->p += n;
	return 0;
}

static int scan_value(struct cur *c, int depth);

/* Objects and arrays share the comma-separated walk; @o, when not NULL,
 * records the members (top level only). */
static int scan_members(struct cur *c, int depth, bool object, struct rj_obj *o)
{
	char close = object ? '}' : ']';
	c->p++; /* the opening bracket */
	skip_ws(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		return 0;
	}
	for (;;) {
		struct rj_span key = {0}, val;
		skip_ws(c);
		if (object) {
			if (scan_string(c, &key))
				return -1;
			skip_ws(c);
			if (c->p >= c->end || *c->p++ != ':')
				return -1;
			skip_ws(c);
		}
		val.p = c->p;
		if (scan_value(c, depth + 1))
			return -1;
		val.len = (size_t)(c->p - val.p);
		if (o && o->n < RJ_MAX_MEMBERS) {
			o->key[o->n] = key;
			o->val[o->n++] = val;
		}
		skip_ws(c);
		if (c->p >= c->end)
			return -1;
		char ch = *c->p++;
		if (ch == close)
			return 0;
		if (ch != ',')
			return -1;
	}
}

static int scan_value(struct cur *c, int depth)
{
	struct rj_span s;
	if (depth > RJ_MAX_DEPTH || c->p >= c->end)
		return -1;
	switch (*c->p) {
	case '{':
		return scan_members(c, depth, true, NULL);
	case '[':
		return scan_members(c, depth, false, NULL);
	case '"':
		return scan_string(c, &s);
	case 't':
		return scan_literal(c, "true");
	case 'f':
		return scan_literal(c, "false");
	case 'n':
		return scan_literal(c, "null");
	default:
		return scan_number(c);
	}
}

int rj_parse(const char *line, size_t len, struct rj_obj *o)
{
	struct cur c = {line, line + len};
	o->n = 0;
	skip_ws(&c);
	if (c.p >= c.end || *c.p != '{' || scan_members(&c, 0, true, o)) {
		o->n = 0;
		return -1;
	}
	skip_ws(&c);
	if (c.p != c.end) {
		o->n = 0;
		return -1;
	}
	return 0;
}

/* Keys are compared as written: the formats' keys need no escapes. The
 * last of duplicate keys wins, as in most readers. */
static const struct rj_span *find(const struct rj_obj *o, const char *key)
{
	size_t n = strlen(key);
	for (unsigned i = o->n; i-- > 0;)
		if (o->key[i].len == n && !memcmp(o->key[i].p, key, n))
			return &o->val[i];
	return NULL;
}

bool rj_num(const struct rj_obj *o, const char *key, double *out)
{
	const struct rj_span *v = find(o, key);
	char buf[64];
	if (!v || v->len == 0 || v->len >= sizeof(buf) ||
	    !(v->p[0] == '-' || (v->p[0] >= '0' && v->p[0] <= '9')))
		return false;
	/* A copy: the line is not NUL-terminated, and strtod reads on. */
	memcpy(buf, v->p, v->len);
	buf[v->len] = '\0';
	char *end;
	double d = strtod(buf, &end);
	/* 1e999 is JSON, and infinite: no chart or sum could use it. */
	if (*end || !isfinite(d))
		return false;
	*out = d;
	return true;
}

static unsigned hex4(const char *p)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char ch = p[i];
		v = v * 16 + (unsigned)(ch <= '9'   ? ch - '0'
					: ch <= 'F' ? ch - 'A' + 10
						    : ch - 'a' + 10);
	}
	return v;
}

static char unescape_one(const char *p, size_t *used)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	if (p[1] == 'u') {
		unsigned v = hex4(p + 2);
		*used = 6;
		return v >= 0x20 && v < 0x7f ? (char)v : '?';
	}
	*used = 2;
	return to[strchr(from, p[1]) - from];
}

bool rj_str(const struct rj_obj *o, const char *key, char *buf, size_t len)
{
	const struct rj_span *v = find(o, key);
	if (!v || v->len < 2 || v->p[0] != '"' || len == 0)
		return false;
	/* rj_parse checked the escapes: each is whole and known. */
	const char *p = v->p + 1, *end = v->p + v->len - 1;
	size_t n = 0;
	while (p < end && n + 1 < len) {
		size_t used = 1;
		buf[n++] = *p == '\\' ? unescape_one(p, &used) : *p;
		p += used;
	}
	buf[n] = '\0';
	return true;
}

bool rj_has_prefix(const struct rj_obj *o, const char *prefix)
{
	size_t n = strlen(prefix);
	for (unsigned i = 0; i < o->n; i++)
		if (o->key[i].len >= n && !memcmp(o->key[i].p, prefix, n))
			return true;
	return false;
}
