/* A JSON-lines writer: one object a line, members appended in order.
 *
 *   struct jsonl j;
 *   jsonl_begin(&j, out);            {
 *   jsonl_str(&j, "ts", ts);         "ts":"..."       (escaped)
 *   jsonl_double(&j, "t", 3, t);     ,"t":1.000       (fixed decimals)
 *   jsonl_u64(&j, "errors", n);      ,"errors":0
 *   jsonl_end(&j);                   }\n
 *
 * Members may also be written straight to j.out as ",\"key\":value" in
 * between (a callback that adds its own), once one member is written.
 * Only what a sample or an event line needs: no nesting, no arrays. */
#ifndef ARRAYSIM_COMMON_JSONL_H
#define ARRAYSIM_COMMON_JSONL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct jsonl {
	FILE *out;
	bool any; /* a member was written: the next needs a comma */
};

/* Start an object line on @out. */
void jsonl_begin(struct jsonl *j, FILE *out);
/* A member with a string value, escaped as JSON requires. */
void jsonl_str(struct jsonl *j, const char *key, const char *val);
void jsonl_u64(struct jsonl *j, const char *key, uint64_t val);
/* A number with @decimals digits after the point ("%.*f"). */
void jsonl_double(struct jsonl *j, const char *key, int decimals, double val);
/* End the object and the line. */
void jsonl_end(struct jsonl *j);
/* @s as a JSON string, quotes included. */
void jsonl_escape(FILE *out, const char *s);

#endif
