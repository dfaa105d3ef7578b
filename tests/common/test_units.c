/* units: size, duration, bool and integer grammars, and size formatting. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/units.h"

#define KiB 1024ULL
#define MiB (1024ULL * KiB)
#define GiB (1024ULL * MiB)
#define TiB (1024ULL * GiB)
#define PiB (1024ULL * TiB)

static void t_size_ok(const char *s, uint64_t want)
{
	uint64_t v = 12345;

	if (units_parse_size(s, &v) != 0)
		fail_msg("units_parse_size(\"%s\") failed", s);
	if (v != want)
		fail_msg("units_parse_size(\"%s\") = %llu, want %llu", s,
			 (unsigned long long)v, (unsigned long long)want);
}

static void t_size_bad(const char *s, int want_rc)
{
	uint64_t v = 12345;
	int rc = units_parse_size(s, &v);

	if (rc != want_rc)
		fail_msg("units_parse_size(\"%s\") = %d, want %d", s, rc,
			 want_rc);
	assert_int_equal(v, 12345); /* untouched on error */
}

static void test_size_accepts(void **state)
{
	t_size_ok("0", 0);
	t_size_ok("4096", 4096);
	t_size_ok("4096B", 4096);
	t_size_ok("4k", 4 * KiB);
	t_size_ok("4K", 4 * KiB);
	t_size_ok("4KiB", 4 * KiB);
	t_size_ok("4kib", 4 * KiB);
	t_size_ok("4KB", 4 * KiB);
	t_size_ok("4Ki", 4 * KiB);
	t_size_ok("1M", MiB);
	t_size_ok("1MiB", MiB);
	t_size_ok("2G", 2 * GiB);
	t_size_ok("1T", TiB);
	t_size_ok("3P", 3 * PiB);
	t_size_ok("1.5G", GiB + GiB / 2);
	t_size_ok("0.5K", 512);
	t_size_ok("4.0 KiB", 4 * KiB); /* what units_format_size prints */
	t_size_ok("512 B", 512);
	t_size_ok("15E", 15ULL << 60);
	t_size_ok("18446744073709551615", UINT64_MAX);
}

static void test_size_rejects(void **state)
{
	t_size_bad("", -EINVAL);
	t_size_bad(NULL, -EINVAL);
	t_size_bad("-1", -EINVAL);
	t_size_bad("-4K", -EINVAL);
	t_size_bad("+4K", -EINVAL);
	t_size_bad(" 4K", -EINVAL);
	t_size_bad("4K ", -EINVAL);
	t_size_bad("4 ", -EINVAL);
	t_size_bad("4X", -EINVAL);
	t_size_bad("4KX", -EINVAL);
	t_size_bad("4KiBB", -EINVAL);
	t_size_bad("4iB", -EINVAL);
	t_size_bad("K", -EINVAL);
	t_size_bad("1.", -EINVAL);
	t_size_bad(".5K", -EINVAL);
	t_size_bad("1.5", -EINVAL); /* fractional bytes */
	t_size_bad("0x10", -EINVAL);
	t_size_bad("1e3", -EINVAL);
}

static void test_size_overflow(void **state)
{
	t_size_bad("18446744073709551616", -ERANGE);
	t_size_bad("99999999999999999999999", -ERANGE);
	t_size_bad("16E", -ERANGE);
	t_size_bad("16384P", -ERANGE);
	t_size_bad("17179869184G", -ERANGE);
}

static void t_dur_ok(const char *s, uint64_t want)
{
	uint64_t v = 12345;

	if (units_parse_duration_ns(s, &v) != 0)
		fail_msg("units_parse_duration_ns(\"%s\") failed", s);
	if (v != want)
		fail_msg("units_parse_duration_ns(\"%s\") = %llu, want %llu", s,
			 (unsigned long long)v, (unsigned long long)want);
}

static void t_dur_bad(const char *s, int want_rc)
{
	uint64_t v = 12345;
	int rc = units_parse_duration_ns(s, &v);

	if (rc != want_rc)
		fail_msg("units_parse_duration_ns(\"%s\") = %d, want %d", s, rc,
			 want_rc);
	assert_int_equal(v, 12345);
}

static void test_duration(void **state)
{
	t_dur_ok("0", 0);
	t_dur_ok("5", 5000000000ULL);
	t_dur_ok("100ns", 100);
	t_dur_ok("250us", 250000);
	t_dur_ok("10ms", 10000000);
	t_dur_ok("10MS", 10000000);
	t_dur_ok("5s", 5000000000ULL);
	t_dur_ok("2m", 120000000000ULL);
	t_dur_ok("1h", 3600000000000ULL);
	t_dur_ok("1.5s", 1500000000ULL);
	t_dur_ok("0.25ms", 250000);
	t_dur_ok("1.0000000001s", 1000000000ULL); /* below 1 ns: dropped */
	t_dur_ok("10 ms", 10000000);

	t_dur_bad("", -EINVAL);
	t_dur_bad(NULL, -EINVAL);
	t_dur_bad("-1s", -EINVAL);
	t_dur_bad("1x", -EINVAL);
	t_dur_bad("1msx", -EINVAL);
	t_dur_bad("ms", -EINVAL);
	t_dur_bad("1s ", -EINVAL);
	t_dur_bad("5 ", -EINVAL);
	t_dur_bad("1.s", -EINVAL);
	t_dur_bad("18446744073709551616ns", -ERANGE);
	t_dur_bad("18446744074s", -ERANGE); /* 2^64 ns is ~18446744073.7 s */
	t_dur_bad("5124096h", -ERANGE);
}

static void test_bool(void **state)
{
	static const char *const yes[] = {"1",	"on",  "yes", "true",
					  "ON", "Yes", "TRUE"};
	static const char *const no[] = {"0",	"off", "no",   "false",
					 "OFF", "No",  "False"};
	static const char *const bad[] = {"",	 "2",	"y",	 "n",
					  "onn", " on", "true ", "enable"};
	bool b;

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		b = false;
		assert_int_equal(units_parse_bool(yes[i], &b), 0);
		assert_true(b);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		b = true;
		assert_int_equal(units_parse_bool(no[i], &b), 0);
		assert_false(b);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = true;
		assert_int_equal(units_parse_bool(bad[i], &b), -EINVAL);
		assert_true(b);
	}
	assert_int_equal(units_parse_bool(NULL, &b), -EINVAL);
}

static void test_u64(void **state)
{
	uint64_t v = 7;

	assert_int_equal(units_parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(units_parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	assert_int_equal(units_parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(units_parse_u64("", &v), -EINVAL);
	assert_int_equal(units_parse_u64("-1", &v), -EINVAL);
	assert_int_equal(units_parse_u64("1K", &v), -EINVAL);
	assert_int_equal(units_parse_u64("1.5", &v), -EINVAL);
	assert_int_equal(units_parse_u64("12 ", &v), -EINVAL);
	assert_int_equal(v, 7);
}

static void test_format_size(void **state)
{
	char buf[32];

	assert_string_equal(units_format_size(0, buf, sizeof(buf)), "0 B");
	assert_string_equal(units_format_size(512, buf, sizeof(buf)), "512 B");
	assert_string_equal(units_format_size(1023, buf, sizeof(buf)),
			    "1023 B");
	assert_string_equal(units_format_size(4096, buf, sizeof(buf)),
			    "4.0 KiB");
	assert_string_equal(units_format_size(GiB + GiB / 2, buf, sizeof(buf)),
			    "1.5 GiB");
	assert_string_equal(units_format_size(MiB - 1, buf, sizeof(buf)),
			    "1.0 MiB");
	assert_string_equal(units_format_size(UINT64_MAX, buf, sizeof(buf)),
			    "16.0 EiB");
	/* Truncates rather than overflowing a small buffer. */
	assert_string_equal(units_format_size(4096, buf, 4), "4.0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_size_accepts),
	    cmocka_unit_test(test_size_rejects),
	    cmocka_unit_test(test_size_overflow),
	    cmocka_unit_test(test_duration),
	    cmocka_unit_test(test_bool),
	    cmocka_unit_test(test_u64),
	    cmocka_unit_test(test_format_size),
	};

	return cmocka_run_group_tests_name("units", tests, NULL, NULL);
}
