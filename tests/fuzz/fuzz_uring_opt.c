/* libFuzzer harness for mount's -o io_uring=... and writeback_cache
 * parsers (fs/uring_opt.c):
 * whatever the -o string, no crash, and on success what is left for FUSE
 * is the input's items minus ours, never longer than the input. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs/uring_opt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *opts = malloc(size + 1);
	if (!opts)
		return 0;
	memcpy(opts, data, size);
	opts[size] = '\0';
	char buf[256], err[128];
	const char *rest;
	enum channel_uring mode;
	int r = uring_opt_take(opts, buf, sizeof(buf), &rest, &mode, err,
			       sizeof(err));
	if (!r && rest && strlen(rest) > strlen(opts))
		abort();
	if (!r && (unsigned)mode > CHANNEL_URING_ON)
		abort();
	if (r && r != -EINVAL)
		abort();
	/* -o writeback_cache, taken in place: never longer, and no item
	 * left that is exactly the key. */
	size_t len = strlen(opts);
	bool set;
	char *left = uring_opt_take_flag(opts, "writeback_cache", &set);
	if (left && (strlen(left) > len || !strcmp(left, "writeback_cache") ||
		     !strncmp(left, "writeback_cache,", 16)))
		abort();
	free(opts);
	return 0;
}
