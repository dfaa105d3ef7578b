/* fingerprint: SHA-1, XXH3-64 and the zero test of 4 KiB blocks.
 *
 * SHA-1 is checked two ways: against a digest computed outside this code
 * (sha1sum) and against OpenSSL's one-shot SHA1() over random blocks. The
 * SHAttered blocks (tests/integration/data/sha1-collision) pin the case the
 * whole verify-on-match design exists for: same SHA-1, different bytes,
 * told apart by XXH3.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/sha.h>
#include <xxhash.h>

#include "common/block.h"
#include "common/prng.h"
#include "dedupe/chunker.h"
#include "dedupe/fingerprint.h"

#ifndef TEST_DATA_DIR
#error "TEST_DATA_DIR must name tests/integration/data"
#endif

static uint8_t blk_a[BLOCK_BYTES] __attribute__((aligned(64)));
static uint8_t blk_b[BLOCK_BYTES] __attribute__((aligned(64)));

/* Deterministic filler (common/prng.h), so a failure reproduces. */
static uint64_t t_rng = PRNG_GOLDEN;
static uint64_t t_rand(void)
{
	return prng_next(&t_rng);
}

static void t_fill_random(uint8_t *b)
{
	for (size_t i = 0; i < BLOCK_BYTES; i += 8) {
		uint64_t v = t_rand();
		memcpy(b + i, &v, 8);
	}
}

static void t_read_file(const char *name, uint8_t *out)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/sha1-collision/%s", TEST_DATA_DIR,
		 name);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	ssize_t n = read(fd, out, BLOCK_BYTES);
	close(fd);
	if (n != (ssize_t)BLOCK_BYTES)
		fail_msg("%s: read %zd bytes, want %u", path, n, BLOCK_BYTES);
}

static void test_sha1_known_digest(void **state)
{
	/* `head -c 4096 /dev/zero | tr '\0' a | sha1sum` */
	static const char want[] = "8c51fb6a0b587ec95ca74acfa43df7539b486297";
	struct fingerprint fp;
	char hex[2 * FINGERPRINT_SHA1_LEN + 1];

	memset(blk_a, 'a', BLOCK_BYTES);
	assert_int_equal(fingerprint_block(blk_a, &fp), 0);
	assert_false(fp.zero);
	fingerprint_hex(fp.sha1, hex);
	assert_string_equal(hex, want);
	assert_int_equal(fp.xxh3, XXH3_64bits(blk_a, BLOCK_BYTES));
}

static void test_sha1_matches_openssl(void **state)
{
	for (int i = 0; i < 64; i++) {
		uint8_t want[SHA_DIGEST_LENGTH];
		struct fingerprint fp;

		t_fill_random(blk_a);
		SHA1(blk_a, BLOCK_BYTES, want);
		assert_int_equal(fingerprint_block(blk_a, &fp), 0);
		assert_false(fp.zero);
		assert_memory_equal(fp.sha1, want, sizeof(want));
		assert_int_equal(fp.xxh3, XXH3_64bits(blk_a, BLOCK_BYTES));
	}
}

/* Other block sizes (dedupe-scan): the same SHA-1 as OpenSSL's one-shot,
 * and the zero test sees the last byte of a 1 MiB block. */
static void test_sha1_any_length(void **state)
{
	static const size_t lens[] = {1, 64, 4095, 4096, 8192, 32768, 1 << 20};
	uint8_t *buf = malloc(1 << 20);
	assert_non_null(buf);
	for (size_t i = 0; i < (1u << 20); i += 8) {
		uint64_t v = t_rand();
		memcpy(buf + i, &v, 8);
	}
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		uint8_t want[SHA_DIGEST_LENGTH], got[FINGERPRINT_SHA1_LEN];
		SHA1(buf, lens[i], want);
		assert_int_equal(fingerprint_sha1(buf, lens[i], got), 0);
		assert_memory_equal(got, want, sizeof(want));
	}
	memset(buf, 0, 1 << 20);
	assert_true(fingerprint_is_zero_len(buf, 1 << 20));
	buf[(1 << 20) - 1] = 1;
	assert_false(fingerprint_is_zero_len(buf, 1 << 20));
	assert_true(fingerprint_is_zero_len(buf, 8192));
	free(buf);
}

static void test_hex(void **state)
{
	static const uint8_t sha1[FINGERPRINT_SHA1_LEN] = {
	    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc,
	    0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x00, 0x0f, 0xf0, 0xff};
	char hex[2 * FINGERPRINT_SHA1_LEN + 1];

	memset(hex, 'X', sizeof(hex));
	fingerprint_hex(sha1, hex);
	assert_string_equal(hex, "0123456789abcdeffedcba9876543210000ff0ff");
}

static void test_zero_detection(void **state)
{
	static const size_t positions[] = {0,  1,  7,	 8,    63,
					   64, 65, 2048, 4094, 4095};
	struct fingerprint fp;

	memset(blk_a, 0, BLOCK_BYTES);
	assert_true(fingerprint_is_zero(blk_a));
	memset(&fp, 0xff, sizeof(fp));
	assert_int_equal(fingerprint_block(blk_a, &fp), 0);
	assert_true(fp.zero);

	for (size_t i = 0; i < sizeof(positions) / sizeof(positions[0]); i++) {
		size_t p = positions[i];
		for (int v = 1; v <= 0x80; v <<= 1) {
			memset(blk_a, 0, BLOCK_BYTES);
			blk_a[p] = (uint8_t)v;
			if (fingerprint_is_zero(blk_a))
				fail_msg("byte %zu = 0x%02x called zero", p, v);
			assert_int_equal(fingerprint_block(blk_a, &fp), 0);
			if (fp.zero)
				fail_msg("fingerprint_block: byte %zu = 0x%02x "
					 "called zero",
					 p, v);
		}
	}
}

static void test_xxh3_covers_block(void **state)
{
	t_fill_random(blk_a);
	uint64_t h = fingerprint_xxh3(blk_a);
	assert_int_equal(h, XXH3_64bits(blk_a, BLOCK_BYTES));
	/* Every byte counts, the last one included. */
	static const size_t positions[] = {0, 63, 64, 4095};
	for (size_t i = 0; i < sizeof(positions) / sizeof(positions[0]); i++) {
		memcpy(blk_b, blk_a, BLOCK_BYTES);
		blk_b[positions[i]] ^= 1;
		assert_int_not_equal(fingerprint_xxh3(blk_b), h);
	}
}

static void test_different_blocks_differ(void **state)
{
	struct fingerprint fa, fb;

	t_fill_random(blk_a);
	memcpy(blk_b, blk_a, BLOCK_BYTES);
	blk_b[BLOCK_BYTES - 1] ^= 0x80;
	assert_int_equal(fingerprint_block(blk_a, &fa), 0);
	assert_int_equal(fingerprint_block(blk_b, &fb), 0);
	assert_memory_not_equal(fa.sha1, fb.sha1, FINGERPRINT_SHA1_LEN);
	assert_int_not_equal(fa.xxh3, fb.xxh3);

	/* Same bytes, same fingerprint: a second call does not depend on
	 * leftover context state. */
	memcpy(blk_b, blk_a, BLOCK_BYTES);
	assert_int_equal(fingerprint_block(blk_b, &fb), 0);
	assert_memory_equal(fa.sha1, fb.sha1, FINGERPRINT_SHA1_LEN);
	assert_int_equal(fa.xxh3, fb.xxh3);
}

static void test_sha1_collision_blocks(void **state)
{
	struct fingerprint fa, fb;
	char hex[2 * FINGERPRINT_SHA1_LEN + 1];

	t_read_file("block-a.bin", blk_a);
	t_read_file("block-b.bin", blk_b);
	assert_memory_not_equal(blk_a, blk_b, BLOCK_BYTES);
	assert_int_equal(fingerprint_block(blk_a, &fa), 0);
	assert_int_equal(fingerprint_block(blk_b, &fb), 0);
	assert_false(fa.zero);
	assert_false(fb.zero);
	/* The published SHAttered prefix digest (see the data README). */
	fingerprint_hex(fa.sha1, hex);
	assert_string_equal(hex, "9db5416ecbd32b6c624e3d7f8c4586df195e234a");
	assert_memory_equal(fa.sha1, fb.sha1, FINGERPRINT_SHA1_LEN);
	assert_int_not_equal(fa.xxh3, fb.xxh3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sha1_known_digest),
	    cmocka_unit_test(test_sha1_matches_openssl),
	    cmocka_unit_test(test_sha1_any_length),
	    cmocka_unit_test(test_hex),
	    cmocka_unit_test(test_zero_detection),
	    cmocka_unit_test(test_xxh3_covers_block),
	    cmocka_unit_test(test_different_blocks_differ),
	    cmocka_unit_test(test_sha1_collision_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
