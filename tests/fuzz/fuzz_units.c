/* libFuzzer harness for the value grammars in common/units.c.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_units
 *   ./build-fuzz/tests/fuzz/fuzz_units -max_len=64
 *
 * Beyond "does not crash", it checks what the grammar promises: -EINVAL or
 * -ERANGE and an untouched output on error, plain integers parse the same
 * as sizes, and a formatted size parses back to within its rounding.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"

#define FUZZ_CANARY 0x5a5a5a5a5a5a5a5aULL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check_rc(int rc, uint64_t v)
{
	if (rc != 0 && rc != -EINVAL && rc != -ERANGE)
		abort();
	if (rc != 0 && v != FUZZ_CANARY)
		abort(); /* output touched on error */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t size_v = FUZZ_CANARY, dur_v = FUZZ_CANARY, u64_v = FUZZ_CANARY;
	char *s, buf[32];
	int size_rc, u64_rc;
	bool b = true;

	if (size > 256)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	size_rc = units_parse_size(s, &size_v);
	fuzz_check_rc(size_rc, size_v);
	fuzz_check_rc(units_parse_duration_ns(s, &dur_v), dur_v);
	u64_rc = units_parse_u64(s, &u64_v);
	fuzz_check_rc(u64_rc, u64_v);
	if (units_parse_bool(s, &b) != 0 && !b)
		abort();

	/* A plain integer is a size in bytes. */
	if (u64_rc == 0 && (size_rc != 0 || size_v != u64_v))
		abort();

	/* Format, parse back: within the 0.05-unit rounding of "%.1f". */
	if (size_rc == 0) {
		uint64_t back = FUZZ_CANARY;
		int rc;

		units_format_size(size_v, buf, sizeof(buf));
		rc = units_parse_size(buf, &back);
		if (rc == 0) {
			uint64_t d =
			    back > size_v ? back - size_v : size_v - back;

			if ((double)d > (double)size_v * 0.05 + 1)
				abort();
		} else if (rc != -ERANGE) { /* "16.0 EiB" is 2^64 */
			abort();
		}
	}
	free(s);
	return 0;
}
