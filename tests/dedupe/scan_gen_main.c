/* scan_gen DIR [--special]: write the generated tree of scan_gen.h into
 * the empty directory DIR and print what dedupe-scan must report, one
 * JSON object a block size (4K, 8K, 16K, 32K) per line:
 *   {"block_size":4096,"files":..,"logical_bytes":..,"blocks":..,
 *    "zero_blocks":..,"data_blocks":..,"unique_blocks":..}
 * Used by tests/integration/dedupe_scan_mount.sh. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "scan_gen.h"

int main(int argc, char **argv)
{
	static const uint32_t bs[] = {4096, 8192, 16384, 32768};
	struct gen_expect e[4];
	struct gen_opts o = {0};
	if (argc < 2 || argc > 3 ||
	    (argc == 3 && strcmp(argv[2], "--special"))) {
		fprintf(stderr, "usage: scan_gen DIR [--special]\n");
		return 2;
	}
	o.special = argc == 3;
	int r = gen_tree(argv[1], &o, bs, 4, e);
	if (r) {
		fprintf(stderr, "scan_gen: %s: %s\n", argv[1], strerror(-r));
		return 1;
	}
	for (int i = 0; i < 4; i++)
		printf("{\"block_size\":%" PRIu32 ",\"files\":%" PRIu64
		       ",\"logical_bytes\":%" PRIu64 ",\"blocks\":%" PRIu64
		       ",\"zero_blocks\":%" PRIu64 ",\"data_blocks\":%" PRIu64
		       ",\"unique_blocks\":%" PRIu64 "}\n",
		       e[i].block_size, e[i].files, e[i].logical_bytes,
		       e[i].blocks, e[i].zero_blocks, e[i].data_blocks,
		       e[i].unique_blocks);
	return 0;
}
