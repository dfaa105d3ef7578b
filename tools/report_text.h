/* The one escape of text in the report's page, HTML and SVG alike. */
#ifndef ARRAYSIM_TOOLS_REPORT_TEXT_H
#define ARRAYSIM_TOOLS_REPORT_TEXT_H

#include <stdio.h>

/* @s with &<>"' escaped. */
void report_html_text(FILE *out, const char *s);

#endif
