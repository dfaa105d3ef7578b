/* The replication messages' codec (replication/wire.h): what is put is
 * read back, little-endian; a message shorter than what is read is bad,
 * and reads zeros rather than past its end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "replication/wire.h"

static void test_round_trip(void **state)
{
	(void)state;
	struct wbuf b = {0};
	wbuf_u8(&b, 0xab);
	wbuf_u32(&b, 0x01020304u);
	wbuf_u64(&b, 0x1122334455667788ull);
	wbuf_put(&b, "xyz", 3);
	assert_false(b.oom);
	assert_int_equal(b.len, 1 + 4 + 8 + 3);
	assert_int_equal(b.p[1], 0x04); /* little-endian */
	struct rbuf r = {b.p, b.len, 0, false};
	assert_int_equal(rbuf_u8(&r), 0xab);
	assert_int_equal(rbuf_u32(&r), 0x01020304u);
	assert_true(rbuf_u64(&r) == 0x1122334455667788ull);
	assert_memory_equal(rbuf_take(&r, 3), "xyz", 3);
	assert_false(r.bad);
	assert_int_equal(r.at, r.len);
	wbuf_free(&b);
}

static void test_short_message_is_bad(void **state)
{
	(void)state;
	uint8_t three[3] = {1, 2, 3};
	struct rbuf r = {three, sizeof(three), 0, false};
	assert_int_equal(rbuf_u32(&r), 0);
	assert_true(r.bad);
	assert_int_equal(rbuf_u8(&r), 0); /* stays bad */
	assert_null(rbuf_take(&r, 4096));
}

static void test_grows_past_first_page(void **state)
{
	(void)state;
	struct wbuf b = {0};
	for (unsigned i = 0; i < 10000; i++)
		wbuf_u64(&b, i);
	assert_int_equal(b.len, 80000);
	struct rbuf r = {b.p, b.len, 79992, false};
	assert_int_equal(rbuf_u64(&r), 9999);
	wbuf_reset(&b);
	assert_int_equal(b.len, 0);
	wbuf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_short_message_is_bad),
	    cmocka_unit_test(test_grows_past_first_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
