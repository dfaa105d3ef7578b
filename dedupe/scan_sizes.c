/* The --block list of dedupe-scan: "4K,8K,16K". Its own file so that the
 * fuzz harness (tests/fuzz/fuzz_scan_sizes.c) needs only it and units.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "dedupe/scan.h"

static int insert_sorted(uint32_t *out, int *n, uint32_t bs)
{
	int i = *n;
	while (i > 0 && out[i - 1] > bs)
		i--;
	if (i > 0 && out[i - 1] == bs)
		return 0; /* "4K,4K" means 4K */
	if (*n == SCAN_MAX_SIZES)
		return -EINVAL;
	memmove(out + i + 1, out + i, (size_t)(*n - i) * sizeof(*out));
	out[i] = bs;
	(*n)++;
	return 0;
}

int scan_parse_block_sizes(const char *s, uint32_t out[SCAN_MAX_SIZES], int *n)
{
	uint32_t tmp[SCAN_MAX_SIZES];
	int count = 0;
	char word[32];
	for (const char *p = s;;) {
		size_t len = strcspn(p, ",");
		if (!len || len >= sizeof(word))
			return -EINVAL;
		memcpy(word, p, len);
		word[len] = '\0';
		uint64_t v;
		if (units_parse_size(word, &v) || v < SCAN_MIN_BLOCK ||
		    v > SCAN_MAX_BLOCK || (v & (v - 1)) ||
		    insert_sorted(tmp, &count, (uint32_t)v))
			return -EINVAL;
		if (!p[len])
			break;
		p += len + 1;
	}
	memcpy(out, tmp, (size_t)count * sizeof(*out));
	*n = count;
	return 0;
}
