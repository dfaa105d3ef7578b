/* Text in the report's page, HTML and SVG alike: the one escape both use,
 * so the page and its charts never call each other. */
#include <stdio.h>

#include "tools/report_text.h"

void report_html_text(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(*s, out);
		}
}
