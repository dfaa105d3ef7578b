/* Parsing scenario files; see faults/scenario.h.
 *
 * libinih calls us once per key; it numbers lines itself and reports the
 * line of the first handler call that returns 0, so a handler that fails
 * keeps its reason and returns 0, and later calls are ignored. */
#include "faults/scenario.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

struct parse {
	struct scenario *s;
	unsigned cap;
	unsigned keys; /* keys seen: file order */
	char why[256]; /* the first problem; "" = none yet */
};

static int problem(struct parse *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int problem(struct parse *p, const char *fmt, ...)
{
	if (p->why[0])
		return 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	return 0;
}

static int scenario_key(struct parse *p, const char *name, const char *value)
{
	if (!strcmp(name, "name")) {
		if (strlen(value) >= sizeof(p->s->name))
			return problem(p, "[scenario] name: longer than %zu",
				       sizeof(p->s->name) - 1);
		strcpy(p->s->name, value);
		return 1;
	}
	if (!strcmp(name, "description")) {
		snprintf(p->s->description, sizeof(p->s->description), "%s",
			 value);
		return 1;
	}
	return problem(p, "[scenario] has no key '%.32s' (name, description)",
		       name);
}

static struct scenario_step *new_step(struct parse *p, uint64_t at)
{
	if (p->s->n == SCENARIO_MAX_STEPS) {
		problem(p, "more than %d steps", SCENARIO_MAX_STEPS);
		return NULL;
	}
	if (p->s->n == p->cap) {
		unsigned cap = p->cap ? 2 * p->cap : 16;
		void *g = realloc(p->s->steps, cap * sizeof(*p->s->steps));
		if (!g) {
			problem(p, "out of memory");
			return NULL;
		}
		p->s->steps = g;
		p->cap = cap;
	}
	struct scenario_step *st = &p->s->steps[p->s->n++];
	memset(st, 0, sizeof(*st));
	st->at_ns = at;
	st->order = p->keys;
	return st;
}

static int label_ok(struct parse *p, const char *label)
{
	size_t n = strlen(label);
	if (!n || n >= SCENARIO_LABEL_MAX ||
	    strspn(label, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXY"
			  "Z0123456789-_") != n ||
	    !strcmp(label, "all"))
		return problem(p,
			       "label '%.40s': 1-%d letters, digits, '-' or "
			       "'_', and not 'all'",
			       label, SCENARIO_LABEL_MAX - 1);
	return 1;
}

static int replication_key(struct parse *p, uint64_t at, const char *value)
{
	static const char *const verbs[] = {"start", "stop", "pause", "resume",
					    "sync"};
	for (unsigned i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(value, verbs[i])) {
			struct scenario_step *st = new_step(p, at);
			if (!st)
				return 0;
			st->action = SCENARIO_REPLICATION;
			snprintf(st->verb, sizeof(st->verb), "%s", verbs[i]);
			return 1;
		}
	return problem(p,
		       "replication = '%.32s': not start, stop, pause, resume "
		       "or sync",
		       value);
}

static int step_key(struct parse *p, uint64_t at, const char *name,
		    const char *value)
{
	if (!strcmp(name, "replication"))
		return replication_key(p, at, value);
	bool inject = !strcmp(name, "inject") || !strncmp(name, "inject.", 7);
	if (!inject && strcmp(name, "clear"))
		return problem(p,
			       "[at] has no key '%.32s' (inject, inject.LABEL, "
			       "clear, replication)",
			       name);
	const char *label = inject ? (name[6] ? name + 7 : "") : value;
	bool clear_all = !inject && !strcmp(label, "all");
	if ((*label || !inject) && !clear_all && !label_ok(p, label))
		return 0;
	struct scenario_step *st = new_step(p, at);
	if (!st)
		return 0;
	st->action = inject ? SCENARIO_INJECT : SCENARIO_CLEAR;
	snprintf(st->label, sizeof(st->label), "%s", label);
	char why[200];
	if (inject && fault_rule_parse(value, &st->rule, why, sizeof(why)))
		return problem(p, "%s: %s", name, why);
	return 1;
}

static int on_key(void *user, const char *section, const char *name,
		  const char *value)
{
	struct parse *p = user;
	p->keys++;
	if (p->why[0])
		return 1; /* report the first problem only */
	if (!strcmp(section, "scenario"))
		return scenario_key(p, name, value);
	uint64_t at;
	if (strncmp(section, "at ", 3) ||
	    units_parse_duration_ns(section + 3, &at))
		return problem(p,
			       "section [%.40s]: not [scenario] or [at TIME] "
			       "(TIME like 30s, 5m)",
			       section);
	return step_key(p, at, name, value);
}

static int by_time(const void *a, const void *b)
{
	const struct scenario_step *x = a, *y = b;
	if (x->at_ns != y->at_ns)
		return x->at_ns < y->at_ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Every clear names a label injected before it (or all). */
static int check_labels(const struct scenario *s, char *why, size_t len)
{
	for (unsigned i = 0; i < s->n; i++) {
		const struct scenario_step *c = &s->steps[i];
		if (c->action != SCENARIO_CLEAR || !strcmp(c->label, "all"))
			continue;
		bool found = false;
		for (unsigned j = 0; j < i && !found; j++)
			found = s->steps[j].action == SCENARIO_INJECT &&
				!strcmp(s->steps[j].label, c->label);
		if (!found) {
			snprintf(why, len,
				 "clear = %s: no fault labelled '%s' is "
				 "injected before it",
				 c->label, c->label);
			return -EINVAL;
		}
	}
	return 0;
}

static int finish(struct parse *p, int rc, const char *source, char *err,
		  size_t errlen)
{
	struct scenario *s = p->s;
	if (rc > 0 && p->why[0])
		snprintf(err, errlen, "%s:%d: %s", source, rc, p->why);
	else if (rc > 0)
		snprintf(err, errlen,
			 "%s:%d: not 'key = value' or '[section]' (or longer "
			 "than 200 characters)",
			 source, rc);
	else if (rc < 0)
		snprintf(err, errlen, "%s: out of memory", source);
	if (rc)
		return -EINVAL;
	if (s->n)
		qsort(s->steps, s->n, sizeof(*s->steps), by_time);
	char why[256];
	if (check_labels(s, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", source, why);
		return -EINVAL;
	}
	if (!s->n) {
		snprintf(err, errlen, "%s: no steps (add [at TIME] sections)",
			 source);
		return -EINVAL;
	}
	return 0;
}

int scenario_parse_string(const char *text, const char *source,
			  struct scenario *out, char *err, size_t errlen)
{
	struct scenario s = {0};
	struct parse p = {.s = &s};
	int rc = ini_parse_string(text, on_key, &p);
	int r = finish(&p, rc, source, err, errlen);
	if (r)
		scenario_free(&s);
	else
		*out = s;
	return r;
}

int scenario_parse_file(const char *path, struct scenario *out, char *err,
			size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	struct scenario s = {0};
	struct parse p = {.s = &s};
	int rc = ini_parse_file(f, on_key, &p);
	fclose(f);
	int r = finish(&p, rc, path, err, errlen);
	if (r)
		scenario_free(&s);
	else
		*out = s;
	return r;
}

void scenario_free(struct scenario *s)
{
	free(s->steps);
	s->steps = NULL;
	s->n = 0;
}

const char *scenario_action_name(enum scenario_action a)
{
	return a == SCENARIO_INJECT  ? "inject"
	       : a == SCENARIO_CLEAR ? "clear"
				     : "replication";
}

bool scenario_replicates(const struct scenario *s)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->steps[i].action == SCENARIO_REPLICATION)
			return true;
	return false;
}
