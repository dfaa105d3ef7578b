/* An option table with one option of every type, for the unit test of
 * tools/options.c (tests/tools/test_options.c) and its fuzz harness
 * (tests/fuzz/fuzz_options.c). Included once per program. */
#ifndef ARRAYSIM_TESTS_TOOLS_T_OPTS_H
#define ARRAYSIM_TESTS_TOOLS_T_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/options.h"

struct t_opts {
	bool flag;
	const char *str;
	uint64_t num, size, dur;
	bool on;
};

#define T_O(f) offsetof(struct t_opts, f)
static const struct opt_def t_defs[] = {
    {"flag", 'f', OPT_FLAG, T_O(flag), NULL, "a flag"},
    {"str", 'o', OPT_STRING, T_O(str), "S", "a string"},
    {"num", 0, OPT_U64, T_O(num), "N", "a number"},
    {"size", 0, OPT_SIZE, T_O(size), "SIZE", "a size"},
    {"dur", 0, OPT_DURATION, T_O(dur), "TIME", "a duration"},
    {"on", 0, OPT_BOOL, T_O(on), "on|off", "a boolean"},
    {0},
};
#undef T_O

#endif
