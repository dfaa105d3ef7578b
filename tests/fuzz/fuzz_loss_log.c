/* libFuzzer harness for the lost-blocks log (store/loss_log.c), which a
 * mount reads from STORE/lost.blocks.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_loss_log
 *   ./build-fuzz/tests/fuzz/fuzz_loss_log
 *
 * Beyond "does not crash": a parsed set is sorted by block with no block
 * twice and no forget mark left, no longer than the records; written back
 * as a log of its own it parses to the same set, exactly (nothing to
 * compact).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/loss_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_set(const struct loss_rec *v, size_t n, size_t records)
{
	if (n > records)
		abort();
	for (size_t i = 0; i < n; i++) {
		if (v[i].pblk & LOSS_LOG_FORGET)
			abort();
		if (i && v[i - 1].pblk >= v[i].pblk)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct loss_rec *v, *again;
	size_t n, n2;
	bool exact, exact2;
	int rc = loss_log_parse((const char *)data, size, &v, &n, &exact);

	if (rc == -EBADMSG || rc == -ENOMEM) {
		if (v || n)
			abort();
		return 0;
	}
	if (rc)
		abort();
	check_set(v, n, size > 8 ? (size - 8) / sizeof(*v) : 0);
	if (exact && size != 8 + n * sizeof(*v))
		abort();
	char *log = malloc(8 + n * sizeof(*v));
	if (!log)
		abort();
	memcpy(log, "ARSLOST1", 8);
	if (n)
		memcpy(log + 8, v, n * sizeof(*v));
	if (loss_log_parse(log, 8 + n * sizeof(*v), &again, &n2, &exact2))
		abort();
	if (n2 != n || !exact2 || (n && memcmp(again, v, n * sizeof(*v))))
		abort();
	free(again);
	free(log);
	free(v);
	return 0;
}
