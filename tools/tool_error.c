/* The one error line of every command: "arraysim: <what>", on stderr.
 * Its own file so that commands reach it without calling back into
 * arraysim.c, which calls them. */
#include <stdarg.h>
#include <stdio.h>

#include "tools/commands.h"

void tool_error(const char *fmt, ...)
{
	va_list ap;
	fputs("arraysim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
