/* libFuzzer harness for common/graphite.c: any exposition text and any
 * --graphite spec, no crash; every Carbon line written is `path value ts`
 * with a path of safe bytes and dots only, and a parsed target's fields are
 * non-empty and a prefix the prefix check accepts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/graphite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_lines(const char *out, size_t len, size_t n)
{
	size_t lines = 0;

	for (size_t i = 0; i < len; i++) {
		char c = out[i];

		if (c == '\n') {
			abort(); /* a line with no value */
		} else if (c == ' ') {
			while (i < len && out[i] != '\n')
				i++;
			lines++;
		} else if (!(c == '.' || c == '_' || c == '-' ||
			     (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
			     (c >= 'A' && c <= 'Z'))) {
			abort();
		}
	}
	if (lines != n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = malloc(size + 1), *out = NULL, err[256];
	size_t len = 0, n;
	struct graphite_target t;
	FILE *f = open_memstream(&out, &len);

	if (!spec || !f)
		abort();
	memcpy(spec, data, size);
	spec[size] = '\0';
	n = graphite_from_exposition((const char *)data, size, "p", 1, f, NULL);
	fclose(f);
	check_lines(out, len, n);
	if (!graphite_parse_target(spec, &t, err, sizeof(err)) &&
	    (!t.host[0] || !t.port[0] || !graphite_prefix_ok(t.prefix)))
		abort();
	free(out);
	free(spec);
	return 0;
}
