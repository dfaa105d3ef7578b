/* faults/rule.c: the fault grammar. Every rule kind with its defaults,
 * every kind of mistake with its message, and printing that parses back to
 * the same rule. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "faults/rule.h"

static struct fault_rule parse_ok(const char *s)
{
	struct fault_rule r;
	char err[256] = "";
	if (fault_rule_parse(s, &r, err, sizeof(err)))
		fail_msg("'%s' rejected: %s", s, err);
	return r;
}

static void expect_error(const char *s, const char *want)
{
	struct fault_rule r;
	memset(&r, 0xa5, sizeof(r));
	struct fault_rule before = r;
	char err[256] = "";
	assert_int_equal(fault_rule_parse(s, &r, err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fail_msg("'%s': error '%s' does not say '%s'", s, err, want);
	assert_memory_equal(&r, &before, sizeof(r)); /* untouched */
}

static void test_error_defaults(void **state)
{
	struct fault_rule r = parse_ok("error");
	assert_string_equal(r.kind->name, "error");
	assert_int_equal(r.ops, FOP_ANY);
	assert_int_equal(r.err, EIO);
	assert_string_equal(r.path, "");
	assert_true(r.prob == 1);
	assert_int_equal(r.count, 0);
}

static void test_error_all_keys(void **state)
{
	struct fault_rule r = parse_ok(
	    "error op=write,fsync errno=ENOSPC path=/db/*.log prob=0.25 "
	    "count=3");
	assert_int_equal(r.ops, FOP_WRITE | FOP_FSYNC);
	assert_int_equal(r.err, ENOSPC);
	assert_string_equal(r.path, "/db/*.log");
	assert_true(r.prob == 0.25);
	assert_int_equal(r.count, 3);
}

static void test_other_kinds(void **state)
{
	struct fault_rule r = parse_ok("latency latency=5ms op=read");
	assert_string_equal(r.kind->name, "latency");
	assert_int_equal(r.latency_ns, 5000000);
	assert_int_equal(r.ops, FOP_READ);
	r = parse_ok("torn-write path=/x");
	assert_string_equal(r.kind->name, "torn-write");
	assert_int_equal(r.ops, FOP_WRITE);
	assert_int_equal(r.count, 1);
	r = parse_ok("thin capacity=1G");
	assert_int_equal(r.capacity_bytes, 1ull << 30);
	r = parse_ok("bitrot");
	assert_int_equal(r.blocks, 1);
	assert_false(r.has_offset);
	r = parse_ok("bitrot path=/a offset=8K");
	assert_true(r.has_offset);
	assert_int_equal(r.offset, 8192);
	r = parse_ok("bitrot blocks=7");
	assert_int_equal(r.blocks, 7);
}

static void test_array_kinds(void **state)
{
	struct fault_rule r = parse_ok("controller id=1");
	assert_string_equal(r.kind->name, "controller");
	assert_int_equal(r.id, 1);
	assert_true(fault_rule_is_array(&r));
	r = parse_ok("path id=0");
	assert_string_equal(r.kind->name, "path");
	r = parse_ok("drive id=7");
	assert_string_equal(r.kind->name, "drive");
	assert_int_equal(r.tier, FAULT_TIER_AUTO);
	r = parse_ok("drive tier=backing id=479");
	assert_int_equal(r.tier, 2);
	assert_int_equal(r.id, 479);
	r = parse_ok("drive-slow tier=cache id=3 factor=2.5");
	assert_string_equal(r.kind->name, "drive-slow");
	assert_int_equal(r.tier, 1);
	assert_true(r.factor == 2.5);
	assert_false(fault_rule_is_array(
	    &(struct fault_rule){.kind = fault_kind_find("thin")}));
	r = parse_ok("cache-device");
	assert_string_equal(r.kind->name, "cache-device");
	assert_false(fault_rule_is_array(&r));
	expect_error("cache-device id=1", "cache-device takes no key 'id'");
	expect_error("controller", "controller needs id=N");
	expect_error("controller id=-1", "not a number from 0 to 1023");
	expect_error("controller id=1024", "not a number from 0 to 1023");
	expect_error("controller id=1 tier=flash",
		     "controller takes no key 'tier'");
	expect_error("drive tier=disk id=1", "not flash, cache or backing");
	expect_error("drive-slow id=1", "drive-slow needs factor=F");
	expect_error("drive-slow id=1 factor=1", "not a number above 1");
	expect_error("drive-slow id=1 factor=inf", "not a number above 1");
	expect_error("drive-slow id=1 factor=1001", "not a number above 1");
	expect_error("path", "path needs id=N");
	(void)state;
}

static void test_errors(void **state)
{
	expect_error("", "needs a kind");
	expect_error("melt", "unknown fault kind 'melt'");
	expect_error("error op=chew", "unknown operation 'chew'");
	expect_error("error op=", "op: empty list");
	expect_error("error errno=EPERM", "is not EIO, ENOSPC or EROFS");
	expect_error("error prob=0", "not a probability");
	expect_error("error prob=1.5", "not a probability");
	expect_error("error prob=nan", "not a probability");
	expect_error("error count=0", "whole number >= 1");
	expect_error("error latency=5ms", "error takes no key 'latency'");
	expect_error("error op=read op=write", "op: given twice");
	expect_error("error nokey", "'nokey' is not key=value");
	expect_error("error =x", "is not key=value");
	expect_error("latency", "latency needs latency=DURATION");
	expect_error("latency latency=0", "duration > 0");
	expect_error("latency latency=fast", "duration > 0");
	expect_error("thin", "thin needs capacity=SIZE");
	expect_error("thin capacity=lots", "not a size");
	expect_error("bitrot path=/a", "path= and offset= together");
	expect_error("bitrot blocks=2 path=/a offset=0", "not both");
	expect_error("torn-write errno=EIO", "torn-write takes no key");
	expect_error("error path=", "path: empty or too long");
}

/* format(parse(s)) parses back to the same rule. */
static void test_format_round_trip(void **state)
{
	static const char *const rules[] = {
	    "error",
	    "error op=read,unlink errno=EROFS path=/a/* prob=0.5 count=2",
	    "latency latency=250us op=any",
	    "torn-write prob=0.125 count=9",
	    "thin capacity=123456789",
	    "bitrot blocks=3",
	    "bitrot path=/f offset=4096",
	    "controller id=2",
	    "path id=7",
	    "drive id=3",
	    "drive tier=cache id=0",
	    "drive-slow tier=backing id=5 factor=3.3333333333333335",
	};
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		struct fault_rule a = parse_ok(rules[i]);
		char buf[2048];
		fault_rule_format(&a, buf, sizeof(buf));
		struct fault_rule b = parse_ok(buf);
		if (memcmp(&a, &b, sizeof(a)))
			fail_msg("'%s' printed as '%s' parses differently",
				 rules[i], buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_error_defaults),
	    cmocka_unit_test(test_error_all_keys),
	    cmocka_unit_test(test_other_kinds),
	    cmocka_unit_test(test_array_kinds),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_format_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
