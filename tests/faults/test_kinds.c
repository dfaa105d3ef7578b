/* fault_kinds[] (faults/kinds.c): sorted by name and unique, so that
 * fault_kind_find's binary search finds every kind; and the same set of
 * kinds as `arraysim ctl --help` prints and faults/README.md's kinds table
 * documents, both ways.
 *
 * Arguments: the built arraysim binary and faults/README.md (meson passes
 * them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "faults/kind.h"

#define MAX_NAMES 64

static const char *arraysim_bin, *readme_path;

struct names {
	char name[MAX_NAMES][32];
	unsigned n;
};

static void add(struct names *s, const char *w, size_t n)
{
	assert_true(s->n < MAX_NAMES && n > 0 && n < sizeof(s->name[0]));
	memcpy(s->name[s->n], w, n);
	s->name[s->n++][n] = '\0';
}

static bool has(const struct names *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return true;
	return false;
}

/* The two lists name the same kinds as fault_kinds[]. */
static void same_as_table(const struct names *s, const char *where)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!fault_kind_find(s->name[i]))
			fail_msg("%s names kind '%s', not in fault_kinds[]",
				 where, s->name[i]);
	for (size_t i = 0; i < fault_kind_count; i++)
		if (!has(s, fault_kinds[i]->name))
			fail_msg("%s does not name kind '%s'", where,
				 fault_kinds[i]->name);
	assert_int_equal(s->n, fault_kind_count);
}

static void test_sorted_unique(void **state)
{
	(void)state;
	assert_true(fault_kind_count >= 11);
	for (size_t i = 1; i < fault_kind_count; i++)
		if (strcmp(fault_kinds[i - 1]->name, fault_kinds[i]->name) >= 0)
			fail_msg("fault_kinds[]: '%s' before '%s'",
				 fault_kinds[i - 1]->name,
				 fault_kinds[i]->name);
	for (size_t i = 0; i < fault_kind_count; i++)
		assert_ptr_equal(fault_kind_find(fault_kinds[i]->name),
				 fault_kinds[i]);
	assert_null(fault_kind_find("melt"));
	assert_null(fault_kind_find(""));
}

/* Every kind line of the help: two spaces, a name, then its keys, between
 * "fault kinds and keys" and "op LIST:". */
static void test_ctl_help(void **state)
{
	char cmd[4200], line[512];
	struct names s = {.n = 0};
	bool in = false;

	(void)state;
	snprintf(cmd, sizeof(cmd), "'%s' ctl --help", arraysim_bin);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		if (!strncmp(line, "fault kinds and keys", 20))
			in = true;
		else if (!strncmp(line, "op LIST:", 8))
			in = false;
		else if (in && line[0] == ' ' && line[1] == ' ' &&
			 line[2] != ' ')
			add(&s, line + 2, strcspn(line + 2, " \n"));
	}
	assert_int_equal(pclose(p), 0);
	same_as_table(&s, "arraysim ctl --help");
}

/* Every row of the table under "Kinds": "| `name` | keys |". */
static void test_readme(void **state)
{
	char line[2048];
	struct names s = {.n = 0};
	bool in = false;

	(void)state;
	FILE *f = fopen(readme_path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Kinds (", 7))
			in = true;
		else if (in && s.n && line[0] != '|')
			break;
		else if (in && !strncmp(line, "| `", 3))
			add(&s, line + 3, strcspn(line + 3, "`"));
	}
	fclose(f);
	same_as_table(&s, "faults/README.md");
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_kinds ARRAYSIM README\n");
		return 2;
	}
	arraysim_bin = argv[1];
	readme_path = argv[2];
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sorted_unique),
	    cmocka_unit_test(test_ctl_help),
	    cmocka_unit_test(test_readme),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
