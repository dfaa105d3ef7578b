/* Declarative command-line options: one table per subcommand drives the
 * parser, the error messages and --help alike (fio's option tables, in
 * small). */
#ifndef ARRAYSIM_TOOLS_OPTIONS_H
#define ARRAYSIM_TOOLS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPT_FLAG,     /* bool, no value */
	OPT_STRING,   /* const char * */
	OPT_U64,      /* uint64_t */
	OPT_BOOL,     /* bool: on/off, yes/no, true/false, 1/0 */
	OPT_SIZE,     /* uint64_t bytes: 4K, 1G */
	OPT_DURATION, /* uint64_t ns: 250ms, 5s */
};

struct opt_def {
	const char *name; /* long name without "--" */
	char short_name;  /* 0 if none */
	enum opt_type type;
	size_t offset;	     /* of the field in the options struct */
	const char *metavar; /* NULL for flags */
	const char *help;    /* one line; the default is said here */
};

/* The option of table @d named by the @len bytes at @name, or NULL. */
const struct opt_def *opts_find_long(const struct opt_def *d, const char *name,
				     size_t len);
/* The option of table @d with short name @c, or NULL. */
const struct opt_def *opts_find_short(const struct opt_def *d, char c);
/* Parse @argv (argv[0] is the subcommand) into @out. Non-option words go
 * to @pos (at most @max_pos). Returns 0, 1 for --help (usage printed to
 * stdout), or -1 after one "arraysim: ..." line on stderr. */
int opts_parse(const char *cmd, const char *synopsis,
	       const struct opt_def *defs, void *out, int argc, char **argv,
	       const char **pos, int max_pos, int *npos);
void opts_usage(FILE *f, const char *cmd, const char *synopsis,
		const struct opt_def *defs);
enum opts_format {
	OPTS_FORMAT_TEXT,  /* --help as users read it */
	OPTS_FORMAT_ROFF,  /* a man page's SYNOPSIS and OPTIONS */
	OPTS_FORMAT_WORDS, /* "--a --b": the long names, for completion */
};
/* How opts_usage prints from now on. */
void opts_usage_format(enum opts_format f);
/* @s as roff text: backslashes, dashes and leading dots escaped. */
void opts_roff_text(FILE *f, const char *s);

#endif
