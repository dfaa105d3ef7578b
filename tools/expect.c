/* The --expect comparisons of `arraysim run` (tools/expect.h). */
#include "tools/expect.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report_json.h"

static const struct {
	const char *word;
	enum expect_op op;
} ops[] = {
    /* Two-character operators first: "<=" is not "<" then "=". */
    {"==", EXPECT_EQ}, {"!=", EXPECT_NE}, {"<=", EXPECT_LE},
    {">=", EXPECT_GE}, {"<", EXPECT_LT},  {">", EXPECT_GT},
};

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static size_t name_len(const char *s)
{
	size_t n = 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.')
		n++;
	return n;
}

static int parse_op(const char **s, enum expect_op *op)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(*ops); i++)
		if (!strncmp(*s, ops[i].word, strlen(ops[i].word))) {
			*op = ops[i].op;
			*s += strlen(ops[i].word);
			return 0;
		}
	return -1;
}

int expect_parse(const char *s, struct expect *out, char *err, size_t errlen)
{
	struct expect e = {0};
	const char *p = skip_space(s);
	size_t n = name_len(p);
	if (!n || !isalpha((unsigned char)*p) || n >= sizeof(e.name)) {
		snprintf(err, errlen,
			 "--expect '%.200s': not NAME OP NUMBER (a stats "
			 "name first, e.g. 'lost_reads == 0')",
			 s);
		return -1;
	}
	memcpy(e.name, p, n);
	p = skip_space(p + n);
	if (parse_op(&p, &e.op)) {
		snprintf(err, errlen,
			 "--expect '%.200s': no operator after %s (one of == "
			 "!= < <= > >=)",
			 s, e.name);
		return -1;
	}
	p = skip_space(p);
	char *end;
	e.value = strtod(p, &end);
	if (end == p || *skip_space(end) || !isfinite(e.value)) {
		snprintf(err, errlen,
			 "--expect '%.200s': '%.40s' is not a number", s, p);
		return -1;
	}
	*out = e;
	return 0;
}

bool expect_holds(const struct expect *e, double v)
{
	switch (e->op) {
	case EXPECT_EQ:
		return v == e->value;
	case EXPECT_NE:
		return v != e->value;
	case EXPECT_LT:
		return v < e->value;
	case EXPECT_LE:
		return v <= e->value;
	case EXPECT_GT:
		return v > e->value;
	case EXPECT_GE:
		return v >= e->value;
	}
	return false;
}

/* One level: @name's first part in @o, then the rest in that member. */
static bool lookup_in(const char *text, size_t len, const char *name,
		      double *out, int depth)
{
	struct rj_obj o;
	if (depth > 8 || rj_parse(text, len, &o))
		return false;
	const char *dot = strchr(name, '.');
	if (!dot)
		return rj_num(&o, name, out);
	size_t n = (size_t)(dot - name);
	for (unsigned i = 0; i < o.n; i++)
		if (o.key[i].len == n && !memcmp(o.key[i].p, name, n))
			return lookup_in(o.val[i].p, o.val[i].len, dot + 1, out,
					 depth + 1);
	return false;
}

bool expect_lookup(const char *json, const char *name, double *out)
{
	return lookup_in(json, strlen(json), name, out, 0);
}
