/* `arraysim --man PAGE`: the man pages, written at build time from the
 * tables the parsers use: each command's page from its --help (the option
 * table, printed as roff by tools/options.c), arraysim-profile(5) from the
 * profile key table (tiers/profile_keys.c), arraysim-scenario(5) from the
 * fault kinds (faults/kinds.c). Nothing here lists an option by hand, so
 * the pages cannot drift from the parsers. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "faults/kind.h"
#include "tiers/profile_i.h"
#include "tools/commands.h"
#include "tools/options.h"

static void th(FILE *out, const char *name, int section, const char *what)
{
	fputs(".TH \"", out);
	for (const char *p = name; *p; p++)
		fputc(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, out);
	fprintf(out, "\" %d \"\" \"arraysim %s\" \"arraysim\"\n.SH NAME\n",
		section, ARRAYSIM_VERSION);
	opts_roff_text(out, name);
	fputs(" \\- ", out);
	opts_roff_text(out, what);
	fputs("\n", out);
}

char *command_help(const struct subcommand *c, int fmt)
{
	FILE *tmp = tmpfile();
	char *argv[] = {(char *)c->name, "--help", NULL}, *text = NULL;
	if (!tmp)
		return NULL;
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) {
		fclose(tmp);
		return NULL;
	}
	opts_usage_format((enum opts_format)fmt);
	int rc = c->run(2, argv);
	opts_usage_format(OPTS_FORMAT_TEXT);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	long n = ftell(tmp);
	if (rc == 0 && n >= 0 && (text = calloc(1, (size_t)n + 1))) {
		rewind(tmp);
		if (fread(text, 1, (size_t)n, tmp) != (size_t)n) {
			free(text);
			text = NULL;
		}
	}
	fclose(tmp);
	return text;
}

static int command_page(FILE *out, const struct subcommand *c)
{
	char *help = command_help(c, OPTS_FORMAT_ROFF);
	if (!help) {
		tool_error("--man: no help from command %s", c->name);
		return 2;
	}
	char name[64];
	snprintf(name, sizeof(name), "arraysim-%s", c->name);
	th(out, name, 1, c->summary);
	if (!strncmp(help, ".SH", 3)) {
		fputs(help, out);
	} else { /* free text (ctl): kept as it is laid out */
		fputs(".SH DESCRIPTION\n.nf\n", out);
		opts_roff_text(out, help);
		fputs(".fi\n", out);
	}
	if (!strcmp(c->name, "mount"))
		fputs(
		    ".SH FSTAB\nEach option above without its dashes, with "
		    "\\fB_\\fR or \\fB\\-\\fR alike, is an \\fB\\-o\\fR option "
		    "of \\fBmount \\-t fuse.arraysim\\fR \\fISTORE "
		    "MOUNTPOINT\\fR and of an fstab line:\n.PP\n.nf\n"
		    "/srv/store /mnt/array fuse.arraysim "
		    "profile=tintri\\-t540,scale=0.2,allow_other 0 0\n.fi\n"
		    ".PP\nFUSE's own options (allow_other, ro, ...) pass "
		    "through; any other is refused.\n",
		    out);
	fputs(".SH SEE ALSO\n\\fBarraysim\\fR(1)\n", out);
	free(help);
	return 0;
}

static void main_page(FILE *out)
{
	th(out, "arraysim", 1, "a FUSE-mounted virtual storage array");
	fputs(".SH SYNOPSIS\n.B arraysim\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n"
	      ".br\n.B arraysim \\-\\-version\n.br\n"
	      ".B mount \\-t fuse.arraysim\n\\fISTORE MOUNTPOINT\\fR "
	      "[\\fB\\-o\\fR \\fIOPTS\\fR]\n.SH COMMANDS\n",
	      out);
	for (const struct subcommand *c = subcommands; c->name; c++) {
		fprintf(out, ".TP\n\\fB%s\\fR\n", c->name);
		opts_roff_text(out, c->summary);
		fprintf(out, "; see \\fBarraysim\\-%s\\fR(1).\n", c->name);
	}
	fputs(".SH EXIT STATUS\n0 success, 1 the command ran and found a "
	      "problem, 2 it could not run (one line on stderr says why).\n"
	      ".SH SEE ALSO\n\\fBarraysim\\-profile\\fR(5), "
	      "\\fBarraysim\\-scenario\\fR(5)\n",
	      out);
}

static const char *const pk_type_words[] = {
    [PK_STRING] = "text",
    [PK_BOOL] = "yes|no",
    [PK_UINT] = "a whole number",
    [PK_U64] = "a count per second",
    [PK_SIZE] = "a size (480G)",
    [PK_DURATION] = "a duration (100us)",
    [PK_RATE] = "a rate (550MiB/s)",
    [PK_PERCENT] = "a percentage (8%)",
    [PK_DECIMAL] = "a decimal number (1.25)",
    [PK_ENUM] = "one of",
    [PK_LINK] = "a link speed (10GbE)",
    [PK_DIST] = "a latency, or p50:90us p99:1ms",
};

static void profile_key(FILE *out, const struct pkey *k)
{
	fputs(".TP\n\\fB", out);
	opts_roff_text(out, k->key);
	fputs("\\fR = ", out);
	opts_roff_text(out, pk_type_words[k->type]);
	for (const char *const *n = k->names; n && *n; n++) {
		fputs(n == k->names ? " " : "|", out);
		opts_roff_text(out, *n);
	}
	fputs("\n", out);
	if (k->help) {
		opts_roff_text(out, k->help);
		fputs(". ", out);
	}
	if (k->deflt) {
		fputs("Default: ", out);
		opts_roff_text(out, *k->deflt ? k->deflt : "empty");
	} else {
		fputs("Required", out);
	}
	fputs(".\n", out);
}

static void profile_page(FILE *out)
{
	th(out, "arraysim-profile", 5, "array profiles of arraysim");
	fputs(".SH DESCRIPTION\nAn array profile is an INI file given to "
	      "\\fBarraysim mount \\-\\-profile\\fR \\fIFILE\\fR; "
	      "\\fBarraysim profiles\\fR lists the built\\-in ones and "
	      "\\fBarraysim profile show\\fR prints one resolved. Sections "
	      "and keys:\n",
	      out);
	int sec = -1;
	for (unsigned i = 0; i < n_pkeys; i++) {
		const struct pkey *k = &pkeys[i];
		if ((int)k->sec != sec) {
			sec = (int)k->sec;
			fprintf(out, ".SS [%s%s]\n", psec_names[sec],
				sec == PSEC_TIER ? " NAME" : "");
			if (sec == PSEC_TIER)
				fprintf(out, "NAME is %s, %s or %s.\n",
					ptier_names[0], ptier_names[1],
					ptier_names[2]);
		}
		profile_key(out, k);
	}
	fputs(".SH SEE ALSO\n\\fBarraysim\\-mount\\fR(1)\n", out);
}

static void scenario_page(FILE *out)
{
	th(out, "arraysim-scenario", 5, "fault timelines of arraysim");
	fputs(".SH DESCRIPTION\nA scenario is an INI file run by "
	      "\\fBarraysim ctl\\fR \\fIMOUNTPOINT\\fR \\fBscenario run\\fR "
	      "\\fIFILE\\fR. Section \\fB[scenario]\\fR has \\fBname\\fR and "
	      "\\fBdescription\\fR. Each section \\fB[at\\fR \\fITIME\\fR\\fB]"
	      "\\fR holds the steps taken TIME after the start (divided by "
	      "the run's time scale):\n.TP\n\\fBinject\\fR = \\fIRULE\\fR, "
	      "\\fBinject.\\fR\\fILABEL\\fR = \\fIRULE\\fR\nstart a fault "
	      "(RULE as after \\fBfault inject\\fR, below).\n.TP\n"
	      "\\fBclear\\fR = \\fILABEL\\fR|\\fBall\\fR\nstop a fault this "
	      "scenario injected under LABEL, or every active one.\n.PP\n"
	      "Steps run in time order, and in file order at one time.\n"
	      ".SH FAULT RULES\n.nf\n",
	      out);
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (m) {
		fault_kinds_help(m);
		fclose(m);
		opts_roff_text(out, text);
		free(text);
	}
	fputs(".fi\n.SH SEE ALSO\n\\fBarraysim\\-ctl\\fR(1)\n", out);
}

/* The page of mount.fuse.arraysim(8): mount's, which says how its
 * options become -o options. */
static void helper_page(FILE *out)
{
	fputs(".so man1/arraysim-mount.1\n", out);
}

int man_page(FILE *out, const char *page)
{
	/* PAGE or PAGE.SECTION: arraysim-profile is the command's page (1),
	 * arraysim-profile.5 the file format's. */
	static const struct {
		const char *name;
		void (*print)(FILE *out);
	} pages[] = {
	    {"arraysim", main_page},
	    {"arraysim.1", main_page},
	    {"arraysim-profile.5", profile_page},
	    {"arraysim-scenario", scenario_page},
	    {"arraysim-scenario.5", scenario_page},
	    {"mount.fuse.arraysim.8", helper_page},
	};
	for (size_t i = 0; i < sizeof(pages) / sizeof(*pages); i++)
		if (!strcmp(page, pages[i].name)) {
			pages[i].print(out);
			return 0;
		}
	char name[64];
	snprintf(name, sizeof(name), "%s", page);
	size_t n = strlen(name);
	if (n > 2 && !strcmp(name + n - 2, ".1"))
		name[n - 2] = '\0';
	if (!strncmp(name, "arraysim-", 9))
		for (const struct subcommand *c = subcommands; c->name; c++)
			if (!strcmp(name + 9, c->name))
				return command_page(out, c);
	tool_error("--man: no page '%s' (arraysim, arraysim-COMMAND, "
		   "arraysim-profile.5, arraysim-scenario.5, "
		   "mount.fuse.arraysim.8)",
		   page);
	return 2;
}
