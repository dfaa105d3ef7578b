/* `arraysim --completion bash`: bash's completion script, written at build
 * time. Commands and each command's options come from the tables the
 * parsers use; profile names (`arraysim profiles`) and arraysim
 * mountpoints (/proc/mounts) are looked up when completing. */
#include <stdlib.h>
#include <string.h>

#include "tools/commands.h"
#include "tools/options.h"

static const char head[] =
    "# bash completion for arraysim (written by `arraysim --completion "
    "bash`)\n"
    "_arraysim_mounts() {\n"
    "\tawk '$3 == \"fuse.arraysim\" { print $2 }' /proc/mounts 2>/dev/null\n"
    "}\n"
    "_arraysim_profiles() {\n"
    "\t\"${COMP_WORDS[0]}\" profiles 2>/dev/null | awk '{ print $1 }'\n"
    "}\n"
    "_arraysim() {\n"
    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    "\tlocal cmd=${COMP_WORDS[1]} opts=\n"
    "\tCOMPREPLY=()\n";

static const char tail[] =
    "\tcase \"$prev\" in\n"
    "\t--profile)\n"
    "\t\tCOMPREPLY=($(compgen -W \"$(_arraysim_profiles)\" -- \"$cur\") "
    "$(compgen -f -X '!*.ini' -- \"$cur\"))\n"
    "\t\treturn ;;\n"
    "\t--store) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
    "\tesac\n"
    "\tif [[ $cur == -* ]]; then\n"
    "\t\tCOMPREPLY=($(compgen -W \"$opts --help\" -- \"$cur\"))\n"
    "\t\treturn\n"
    "\tfi\n"
    "\tcase \"$cmd\" in\n"
    "\tctl)\n"
    "\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n"
    "\t\t\tCOMPREPLY=($(compgen -W \"$(_arraysim_mounts)\" -- \"$cur\"))\n"
    "\t\telif [ \"$COMP_CWORD\" -eq 3 ]; then\n"
    "\t\t\tCOMPREPLY=($(compgen -W \"status stats sync fault scenario "
    "model\" -- \"$cur\"))\n"
    "\t\tfi ;;\n"
    "\tstats | top | umount)\n"
    "\t\tCOMPREPLY=($(compgen -W \"$(_arraysim_mounts)\" -- \"$cur\")) ;;\n"
    "\tprofile)\n"
    "\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n"
    "\t\t\tCOMPREPLY=($(compgen -W show -- \"$cur\"))\n"
    "\t\telse\n"
    "\t\t\tCOMPREPLY=($(compgen -W \"$(_arraysim_profiles)\" -- "
    "\"$cur\") $(compgen -f -X '!*.ini' -- \"$cur\"))\n"
    "\t\tfi ;;\n"
    "\t*) COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n"
    "\tesac\n"
    "}\n"
    "complete -F _arraysim arraysim\n";

/* One case arm: @c's long options, from its table. */
static int command_case(FILE *out, const struct subcommand *c)
{
	char *words = command_help(c, OPTS_FORMAT_WORDS);
	if (!words) {
		tool_error("--completion: no help from command %s", c->name);
		return -1;
	}
	/* A command without a table prints its free text: no options. */
	if (strncmp(words, "--", 2))
		words[0] = '\0';
	words[strcspn(words, "\n")] = '\0';
	fprintf(out, "\t%s) opts=\"%s\" ;;\n", c->name, words);
	free(words);
	return 0;
}

int completion_bash(FILE *out)
{
	fputs(head, out);
	fputs("\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n\t\tCOMPREPLY=($(compgen "
	      "-W \"--help --version",
	      out);
	for (const struct subcommand *c = subcommands; c->name; c++)
		fprintf(out, " %s", c->name);
	fputs("\" -- \"$cur\"))\n\t\treturn\n\tfi\n\tcase \"$cmd\" in\n", out);
	for (const struct subcommand *c = subcommands; c->name; c++)
		if (command_case(out, c))
			return 2;
	fputs("\tesac\n", out);
	fputs(tail, out);
	return 0;
}
