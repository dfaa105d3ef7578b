/* libFuzzer harness for the compressed-size records fsck reads from a
 * store's `meta` table (dedupe_csize_parse, dedupe/csize.c).
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_csize
 *   ./build-fuzz/tests/fuzz/fuzz_csize
 *
 * Input: one byte, the key's length; the key; the rest is the value.
 * Beyond "does not crash": a record read as sizes has the key the store
 * would write for its first block (a multiple of 80) and a value of 80
 * sizes and a seal; a total has a value of the total and a seal; a key
 * not starting "csize:" is never anything but OTHER.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dedupe/csize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || data[0] > size - 1)
		return 0;
	size_t klen = data[0];
	MDB_val k = {klen, (void *)(data + 1)};
	MDB_val v = {size - 1 - klen, (void *)(data + 1 + klen)};
	uint64_t first = UINT64_MAX;
	uint16_t sizes[MS_BLOCK_EXTENT];
	struct dedupe_csize_total t;
	const size_t plen = sizeof(DEDUPE_CSIZE_PREFIX) - 1;
	bool prefixed =
	    klen >= plen && !memcmp(data + 1, DEDUPE_CSIZE_PREFIX, plen);
	char want[64];

	switch (dedupe_csize_parse(&k, &v, &first, sizes, &t)) {
	case DEDUPE_CSIZE_OTHER:
		if (prefixed)
			abort();
		break;
	case DEDUPE_CSIZE_SIZES:
		if (!prefixed || first % MS_BLOCK_EXTENT ||
		    v.mv_size != sizeof(sizes) + MS_SEAL_LEN)
			abort();
		snprintf(want, sizeof(want), DEDUPE_CSIZE_PREFIX "%016llx",
			 (unsigned long long)(first / MS_BLOCK_EXTENT));
		if (strlen(want) != klen || memcmp(want, data + 1, klen))
			abort();
		break;
	case DEDUPE_CSIZE_TOTAL:
		if (!prefixed || v.mv_size != sizeof(t) + MS_SEAL_LEN)
			abort();
		break;
	case DEDUPE_CSIZE_BROKEN:
		if (!prefixed)
			abort();
		break;
	default:
		abort();
	}
	return 0;
}
