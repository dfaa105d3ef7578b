/* libFuzzer harness for dedupe-scan's --block list (dedupe/scan_sizes.c).
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_scan_sizes
 *   ./build-fuzz/tests/fuzz/fuzz_scan_sizes -max_len=128
 *
 * Beyond "does not crash": on success the sizes are ascending distinct
 * powers of two within bounds, at most SCAN_MAX_SIZES of them; on error
 * the outputs are untouched.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dedupe/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t out[SCAN_MAX_SIZES];
	int n = -1;
	if (size > 512)
		return 0;
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	memset(out, 0xa5, sizeof(out));
	int rc = scan_parse_block_sizes(s, out, &n);
	if (rc != 0 && (rc != -EINVAL || n != -1 || out[0] != 0xa5a5a5a5u))
		abort();
	if (rc == 0) {
		if (n < 1 || n > SCAN_MAX_SIZES)
			abort();
		for (int i = 0; i < n; i++) {
			uint32_t v = out[i];
			if (v < SCAN_MIN_BLOCK || v > SCAN_MAX_BLOCK ||
			    (v & (v - 1)) || (i && v <= out[i - 1]))
				abort();
		}
	}
	free(s);
	return 0;
}
