/* The drive kinds' table (tiers/drive.c): sorted by name with no name
 * twice, every profile kind in it, and every kind that
 * tiers/profiles/README.md names for the `kind` key in it. The README is
 * read at test time from SRC_DIR (the source root, from meson). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tiers/drive.h"

#ifndef SRC_DIR
#error "SRC_DIR: the source root, set by tests/tiers/meson.build"
#endif

static void test_sorted_unique(void **state)
{
	assert_true(drive_n_kinds > 0);
	for (size_t i = 1; i < drive_n_kinds; i++)
		if (strcmp(drive_kinds[i - 1].name, drive_kinds[i].name) >= 0)
			fail_msg("drive_kinds[] not sorted or a name twice: "
				 "'%s' before '%s'",
				 drive_kinds[i - 1].name, drive_kinds[i].name);
	for (size_t i = 0; i < drive_n_kinds; i++) {
		assert_ptr_equal(drive_kind_find(drive_kinds[i].name),
				 &drive_kinds[i]);
		assert_non_null(drive_kinds[i].ops);
		assert_non_null(drive_kinds[i].ops->check);
		assert_non_null(drive_kinds[i].ops->engine_conf);
	}
	assert_null(drive_kind_find("tape"));
}

/* Every enum profile_kind has its entry, once. */
static void test_every_profile_kind(void **state)
{
	static const enum profile_kind kinds[] = {
	    PROFILE_KIND_NVME, PROFILE_KIND_SSD, PROFILE_KIND_HDD};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		unsigned n = 0;

		for (size_t i = 0; i < drive_n_kinds; i++)
			n += drive_kinds[i].kind == kinds[k];
		assert_int_equal(n, 1);
	}
}

/* The kinds the README's key table gives for `kind`: the backquoted
 * words of the third column of the row whose second is `kind`. */
static unsigned t_readme_kinds(char names[][32], unsigned max)
{
	FILE *f = fopen(SRC_DIR "/tiers/profiles/README.md", "r");
	char line[1024];
	unsigned n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *col = strstr(line, "| `kind` |"), *p;

		if (!col)
			continue;
		for (p = col + strlen("| `kind` |"); (p = strchr(p, '`'));) {
			char *end = strchr(p + 1, '`');

			assert_non_null(end);
			assert_true(n < max && end - p - 1 < 32);
			snprintf(names[n++], 32, "%.*s", (int)(end - p - 1),
				 p + 1);
			p = end + 1;
		}
	}
	fclose(f);
	return n;
}

static void test_readme_kinds_listed(void **state)
{
	char names[16][32];
	unsigned n = t_readme_kinds(names, 16);

	assert_true(n >= 3); /* nvme, ssd, hdd when this was written */
	for (unsigned i = 0; i < n; i++)
		if (!drive_kind_find(names[i]))
			fail_msg("README names drive kind '%s', not in "
				 "drive_kinds[]",
				 names[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sorted_unique),
	    cmocka_unit_test(test_every_profile_kind),
	    cmocka_unit_test(test_readme_kinds_listed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
