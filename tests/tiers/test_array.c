/* tiers/array: the null model completes at once and keeps the result. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tiers/array.h"

static int t_completions;
static struct array_io *t_last;

static void t_complete(struct array_io *io)
{
	t_completions++;
	t_last = io;
}

static void test_null_completes_at_once(void **state)
{
	struct array *a;
	struct array_io io = {
	    .kind = ARRAY_IO_WRITE,
	    .offset = 8192,
	    .length = 4096,
	    .result = -ENOSPC,
	    .complete = t_complete,
	};
	struct array_io ok = {.kind = ARRAY_IO_READ, .complete = t_complete};

	assert_int_equal(array_new("null", 1, &a), 0);
	t_completions = 0;
	array_submit(a, &io);
	/* Completed before array_submit returned, result untouched. */
	assert_int_equal(t_completions, 1);
	assert_ptr_equal(t_last, &io);
	assert_int_equal(io.result, -ENOSPC);
	assert_int_equal(io.length, 4096);

	array_submit(a, &ok);
	assert_int_equal(t_completions, 2);
	assert_int_equal(ok.result, 0);
	array_free(a);
}

static void test_unknown_profile(void **state)
{
	struct array *a = (struct array *)&a;

	assert_int_equal(array_new("tintri-t7000", 1, &a), -EINVAL);
	assert_null(a);
	assert_int_equal(array_new("", 1, &a), -EINVAL);
	array_free(NULL); /* no-op */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_null_completes_at_once),
	    cmocka_unit_test(test_unknown_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
