/* libFuzzer harness for the command-line option parser (tools/options.c):
 * the input is split at NUL bytes into argv words and parsed against a
 * table with one option of every type (tests/tools/t_opts.h). It must never
 * crash, whatever the words; errors are one line on stderr (silenced here). */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/commands.h"
#include "tools/options.h"
#include "tests/tools/t_opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

void tool_error(const char *fmt, ...)
{
	(void)fmt; /* the parser's error line is not under test here */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *argv[17] = {"cmd"};
	int argc = 1;
	for (char *p = buf; p < buf + size && argc < 16; p += strlen(p) + 1)
		argv[argc++] = p;
	struct t_opts o = {0};
	const char *pos[2];
	int npos;
	FILE *devnull = fopen("/dev/null", "w");
	FILE *saved = stdout;
	if (devnull)
		stdout = devnull; /* --help prints usage */
	opts_parse("cmd", "[OPTIONS] ARG", t_defs, &o, argc, argv, pos, 2,
		   &npos);
	stdout = saved;
	if (devnull)
		fclose(devnull);
	free(buf);
	return 0;
}
