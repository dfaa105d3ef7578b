/* arraysim profiles and arraysim profile show: the array profiles. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "tiers/profile.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/profile_fit.h"

static const struct opt_def no_defs[] = {{0}};

int cmd_profiles(int argc, char **argv)
{
	const char *pos[1];
	int npos, r = opts_parse("profiles", "", no_defs, NULL, argc, argv, pos,
				 0, &npos);

	if (r)
		return r > 0 ? 0 : 2;
	for (const struct profile_builtin *b = profile_builtins(); b->name;
	     b++) {
		struct profile p;
		char err[PROFILE_ERR_LEN];

		/* A built-in that does not parse is a build bug; say so
		 * rather than list it. */
		if (profile_parse_string(b->text, b->name, &p, err,
					 sizeof(err))) {
			tool_error("profiles: built-in %s", err);
			return 1;
		}
		printf("%-26s %s\n", b->name, p.description);
	}
	return 0;
}

struct profile_opts {
	const char *ceiling;
};

static const struct opt_def profile_defs[] = {
    {"ceiling", 0, OPT_STRING, offsetof(struct profile_opts, ceiling), "FILE",
     "this host's ceiling (bench/ceiling.sh): add, as comments, the --scale "
     "at which the profile's peak fits under it (an estimate from the model)"},
    {0},
};

int cmd_profile(int argc, char **argv)
{
	static const char synopsis[] = "show NAME|FILE [--ceiling FILE]";
	const char *pos[2];
	char err[PROFILE_ERR_LEN];
	struct profile p;
	struct profile_opts o = {0};
	struct fit_ceiling ceil;
	int npos, r = opts_parse("profile", synopsis, profile_defs, &o, argc,
				 argv, pos, 2, &npos);

	if (r)
		return r > 0 ? 0 : 2;
	if (npos != 2 || strcmp(pos[0], "show")) {
		tool_error("profile: usage: arraysim profile %s", synopsis);
		return 2;
	}
	if (profile_load(pos[1], &p, err, sizeof(err)) ||
	    (o.ceiling &&
	     fit_ceiling_load(o.ceiling, &ceil, err, sizeof(err)))) {
		tool_error("%s", err);
		return 2;
	}
	profile_print(stdout, &p);
	if (o.ceiling)
		fit_print(stdout, &p, &ceil);
	return 0;
}
