/* `arraysim run --expect EXPR`: one comparison of a stats figure with a
 * number, e.g. `lost_reads == 0`, `host_bound_ratio < 0.05`,
 * `ops.write.errors<=3`. NAME is a member of `stats --json` (dots reach
 * into nested objects) or host_bound_ratio (late replies / replies, from
 * `stats --array --json`); OP one of == != < <= > >=. Fuzzed by
 * tests/fuzz/fuzz_expect.c. */
#ifndef ARRAYSIM_TOOLS_EXPECT_H
#define ARRAYSIM_TOOLS_EXPECT_H

#include <stdbool.h>
#include <stddef.h>

#define EXPECT_NAME_MAX 64

enum expect_op {
	EXPECT_EQ,
	EXPECT_NE,
	EXPECT_LT,
	EXPECT_LE,
	EXPECT_GT,
	EXPECT_GE
};

struct expect {
	char name[EXPECT_NAME_MAX];
	enum expect_op op;
	double value;
};

/* Parse @s. 0, or -1 with a one-line reason in @err. */
int expect_parse(const char *s, struct expect *out, char *err, size_t errlen);
/* Whether @v satisfies @e. */
bool expect_holds(const struct expect *e, double v);
/* The figure @name in the JSON object @json (dotted: nested). false if
 * absent or not a number. */
bool expect_lookup(const char *json, const char *name, double *out);

#endif
