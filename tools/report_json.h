/* A small reader for the JSON lines of samples.jsonl and events.jsonl.
 *
 * One line is one object. rj_parse() checks the whole line against the
 * JSON grammar (nested values are checked and skipped) and records where
 * each top-level member's value lies, so that a torn last line, a line of
 * another format or garbage is refused as a whole (and counted by the
 * caller) rather than half read. Fuzzed by tests/fuzz/fuzz_report_json.c.
 */
#ifndef ARRAYSIM_TOOLS_REPORT_JSON_H
#define ARRAYSIM_TOOLS_REPORT_JSON_H

#include <stdbool.h>
#include <stddef.h>

/* Members past this many are checked but not recorded: the formats have
 * about twenty. */
#define RJ_MAX_MEMBERS 64

struct rj_span {
	const char *p;
	size_t len;
};

struct rj_obj {
	struct rj_span key[RJ_MAX_MEMBERS]; /* without the quotes, escaped */
	struct rj_span val[RJ_MAX_MEMBERS]; /* as written */
	unsigned n;
};

/* Parse @line (@len bytes; NUL not needed) as one JSON object, optionally
 * surrounded by white space. 0, or -1 if it is not one. */
int rj_parse(const char *line, size_t len, struct rj_obj *o);

/* The number under @key into @out. false if absent or not a number. */
bool rj_num(const struct rj_obj *o, const char *key, double *out);
/* The string under @key, unescaped into @buf (NUL-terminated, cut to
 * fit; \u escapes outside ASCII become '?'). false if absent or not a
 * string. */
bool rj_str(const struct rj_obj *o, const char *key, char *buf, size_t len);
/* Whether some key starts with @prefix. */
bool rj_has_prefix(const struct rj_obj *o, const char *prefix);

#endif
