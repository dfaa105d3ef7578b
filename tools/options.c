/* Option parsing from declarative tables. */
#include "tools/options.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/units.h"
#include "tools/commands.h"

const struct opt_def *opts_find_long(const struct opt_def *d, const char *name,
				     size_t len)
{
	for (; d->name; d++)
		if (strlen(d->name) == len && !strncmp(d->name, name, len))
			return d;
	return NULL;
}

const struct opt_def *opts_find_short(const struct opt_def *d, char c)
{
	for (; d->name; d++)
		if (d->short_name == c)
			return d;
	return NULL;
}

static const char *type_word(enum opt_type t)
{
	switch (t) {
	case OPT_U64:
		return "a whole number";
	case OPT_BOOL:
		return "on or off";
	case OPT_SIZE:
		return "a size (4096, 4K, 1G)";
	case OPT_DURATION:
		return "a duration (250ms, 5s)";
	default:
		return "a value";
	}
}

static int store_value(const char *cmd, const struct opt_def *d, void *out,
		       const char *val)
{
	char *field = (char *)out + d->offset;
	int r = 0;
	switch (d->type) {
	case OPT_FLAG:
		*(bool *)field = true;
		return 0;
	case OPT_STRING:
		*(const char **)field = val;
		return 0;
	case OPT_U64:
		r = units_parse_u64(val, (uint64_t *)field);
		break;
	case OPT_BOOL:
		r = units_parse_bool(val, (bool *)field);
		break;
	case OPT_SIZE:
		r = units_parse_size(val, (uint64_t *)field);
		break;
	case OPT_DURATION:
		r = units_parse_duration_ns(val, (uint64_t *)field);
		break;
	}
	if (r) {
		tool_error("%s: --%s: '%s' is not %s", cmd, d->name, val,
			   type_word(d->type));
		return -1;
	}
	return 0;
}

/* The value of option @d at argv[*i]: inline (--x=v) or the next word. */
static int take_value(const char *cmd, const struct opt_def *d,
		      const char *inline_val, int argc, char **argv, int *i,
		      const char **val)
{
	if (d->type == OPT_FLAG) {
		if (inline_val) {
			tool_error("%s: --%s takes no value", cmd, d->name);
			return -1;
		}
		return 0;
	}
	if (inline_val) {
		*val = inline_val;
		return 0;
	}
	if (*i + 1 >= argc) {
		tool_error("%s: --%s needs %s", cmd, d->name,
			   d->metavar ? d->metavar : "a value");
		return -1;
	}
	*val = argv[++*i];
	return 0;
}

static int parse_one(const char *cmd, const struct opt_def *defs, void *out,
		     int argc, char **argv, int *i)
{
	const char *a = argv[*i], *inline_val = NULL, *val = NULL;
	const struct opt_def *d;
	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		d = opts_find_long(defs, a + 2, len);
		inline_val = eq ? eq + 1 : NULL;
	} else {
		d = a[2] ? NULL : opts_find_short(defs, a[1]);
	}
	if (!d) {
		tool_error("%s: unknown option '%s' (try: arraysim %s --help)",
			   cmd, a, cmd);
		return -1;
	}
	if (take_value(cmd, d, inline_val, argc, argv, i, &val))
		return -1;
	return store_value(cmd, d, out, val);
}

int opts_parse(const char *cmd, const char *synopsis,
	       const struct opt_def *defs, void *out, int argc, char **argv,
	       const char **pos, int max_pos, int *npos)
{
	*npos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			opts_usage(stdout, cmd, synopsis, defs);
			return 1;
		}
		if (a[0] == '-' && a[1]) {
			if (parse_one(cmd, defs, out, argc, argv, &i))
				return -1;
			continue;
		}
		if (*npos == max_pos) {
			tool_error("%s: unexpected argument '%s'", cmd, a);
			return -1;
		}
		pos[(*npos)++] = a;
	}
	return 0;
}

/* Set by `arraysim --man` and `--completion`: --help then prints the
 * same table as roff, or as bare words. */
static enum opts_format usage_format;

void opts_usage_format(enum opts_format f)
{
	usage_format = f;
}

void opts_roff_text(FILE *f, const char *s)
{
	bool line_start = true;
	for (; *s; s++) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		line_start = *s == '\n';
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

static void usage_roff(FILE *f, const char *cmd, const char *synopsis,
		       const struct opt_def *defs)
{
	fprintf(f, ".SH SYNOPSIS\n.B arraysim %s\n", cmd);
	opts_roff_text(f, synopsis);
	fputs("\n", f);
	if (!defs->name)
		return;
	fputs(".SH OPTIONS\n", f);
	for (const struct opt_def *d = defs; d->name; d++) {
		fputs(".TP\n", f);
		if (d->short_name)
			fprintf(f, "\\fB\\-%c\\fR, ", d->short_name);
		fputs("\\fB\\-\\-", f);
		opts_roff_text(f, d->name);
		fputs("\\fR", f);
		if (d->metavar) {
			fputs(" \\fI", f);
			opts_roff_text(f, d->metavar);
			fputs("\\fR", f);
		}
		fputs("\n", f);
		opts_roff_text(f, d->help);
		fputs("\n", f);
	}
}

void opts_usage(FILE *f, const char *cmd, const char *synopsis,
		const struct opt_def *defs)
{
	if (usage_format == OPTS_FORMAT_ROFF) {
		usage_roff(f, cmd, synopsis, defs);
		return;
	}
	if (usage_format == OPTS_FORMAT_WORDS) {
		for (const struct opt_def *d = defs; d->name; d++)
			fprintf(f, "%s--%s", d == defs ? "" : " ", d->name);
		fputs("\n", f);
		return;
	}
	fprintf(f, "usage: arraysim %s %s\n\noptions:\n", cmd, synopsis);
	for (const struct opt_def *d = defs; d->name; d++) {
		char left[64];
		snprintf(left, sizeof(left), "%s%c%s--%s%s%s",
			 d->short_name ? "-" : "",
			 d->short_name ? d->short_name : ' ',
			 d->short_name ? ", " : "  ", d->name,
			 d->metavar ? " " : "", d->metavar ? d->metavar : "");
		fprintf(f, "  %-28s %s\n", left, d->help);
	}
}
