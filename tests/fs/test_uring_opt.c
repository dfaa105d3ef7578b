/* mount -o io_uring=... and -o writeback_cache: what fs/uring_opt.c
 * takes out of the -o string and what it leaves for FUSE. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fs/uring_opt.h"

struct taken {
	int r;
	enum channel_uring mode;
	const char *rest;
	char buf[64];
	char err[128];
};

static void take(const char *opts, struct taken *t)
{
	t->mode = CHANNEL_URING_ON; /* must be overwritten */
	t->r = uring_opt_take(opts, t->buf, sizeof(t->buf), &t->rest, &t->mode,
			      t->err, sizeof(t->err));
}

static void test_default_is_off(void **state)
{
	struct taken t;
	take(NULL, &t);
	assert_int_equal(t.r, 0);
	assert_int_equal(t.mode, CHANNEL_URING_OFF);
	assert_null(t.rest);
	take("allow_other", &t);
	assert_int_equal(t.mode, CHANNEL_URING_OFF);
	assert_string_equal(t.rest, "allow_other");
}

static void test_taken_out_of_fuse_options(void **state)
{
	struct taken t;
	take("io_uring=on", &t);
	assert_int_equal(t.r, 0);
	assert_int_equal(t.mode, CHANNEL_URING_ON);
	assert_null(t.rest);
	take("allow_other,io_uring=auto,default_permissions", &t);
	assert_int_equal(t.mode, CHANNEL_URING_AUTO);
	assert_string_equal(t.rest, "allow_other,default_permissions");
	take("io_uring=on,,ro,io_uring=off", &t); /* the last one counts */
	assert_int_equal(t.mode, CHANNEL_URING_OFF);
	assert_string_equal(t.rest, "ro");
}

static void test_bad_values_refused(void **state)
{
	static const char *const bad[] = {"io_uring=", "io_uring=ON",
					  "io_uring=autox", "io_uring=1",
					  "ro,io_uring=yes-please-always"};
	struct taken t;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		take(bad[i], &t);
		assert_int_equal(t.r, -EINVAL);
		assert_non_null(
		    strstr(t.err, "io_uring is one of off, auto, on"));
		assert_null(strchr(t.err, '\n'));
	}
	/* Not our key: left for FUSE to judge. */
	take("io_uringx=on", &t);
	assert_int_equal(t.r, 0);
	assert_string_equal(t.rest, "io_uringx=on");
}

static void test_too_long_refused(void **state)
{
	char opts[128];
	memset(opts, 'a', sizeof(opts) - 1);
	opts[sizeof(opts) - 1] = '\0';
	struct taken t;
	take(opts, &t);
	assert_int_equal(t.r, -EINVAL);
	assert_non_null(strstr(t.err, "longer than"));
}

/* writeback_cache: exact items only, every one taken, the rest kept in
 * order; none left: NULL. */
static void test_flag_taken(void **state)
{
	char a[] = "ro,writeback_cache,allow_other,writeback_cache";
	bool set = false;
	assert_string_equal(uring_opt_take_flag(a, "writeback_cache", &set),
			    "ro,allow_other");
	assert_true(set);
	char b[] = "writeback_cache";
	assert_null(uring_opt_take_flag(b, "writeback_cache", &set));
	assert_true(set);
	char c[] = "writeback_cachex,,writeback_cach";
	assert_string_equal(uring_opt_take_flag(c, "writeback_cache", &set),
			    "writeback_cachex,writeback_cach");
	assert_false(set);
	assert_null(uring_opt_take_flag(NULL, "writeback_cache", &set));
	assert_false(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_is_off),
	    cmocka_unit_test(test_taken_out_of_fuse_options),
	    cmocka_unit_test(test_bad_values_refused),
	    cmocka_unit_test(test_too_long_refused),
	    cmocka_unit_test(test_flag_taken),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
