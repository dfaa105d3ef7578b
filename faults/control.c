/* Parsing control commands; see faults/control.h. */
#include "faults/control.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char known[] =
    "status, stats [json|reset|mark|array [since-mark] [json]], sync, "
    "fault inject|list|clear, scenario run|status|stop, model pause|resume";

static const struct {
	const char *line;
	enum control_verb verb;
} fixed[] = {
    {"status", CONTROL_STATUS},
    {"stats", CONTROL_STATS},
    {"stats json", CONTROL_STATS_JSON},
    {"stats reset", CONTROL_STATS_RESET},
    {"stats array", CONTROL_STATS_ARRAY},
    {"stats array json", CONTROL_STATS_ARRAY_JSON},
    {"stats mark", CONTROL_STATS_MARK},
    {"stats array since-mark", CONTROL_STATS_ARRAY_MARK},
    {"stats array since-mark json", CONTROL_STATS_ARRAY_MARK_JSON},
    {"model pause", CONTROL_MODEL_PAUSE},
    {"model resume", CONTROL_MODEL_RESUME},
    {"sync", CONTROL_SYNC},
    {"fault list", CONTROL_FAULT_LIST},
    {"scenario status", CONTROL_SCENARIO_STATUS},
    {"scenario stop", CONTROL_SCENARIO_STOP},
};

static int parse_clear(const char *arg, struct control_cmd *c, char *err,
		       size_t errlen)
{
	c->id = 0;
	if (!strcmp(arg, "all"))
		return 0;
	char *end;
	errno = 0;
	unsigned long long id = strtoull(arg, &end, 10);
	if (!*arg || *arg == '-' || *end || errno || !id) {
		snprintf(err, errlen,
			 "fault clear takes a fault id or 'all', not '%.32s'",
			 arg);
		return -EINVAL;
	}
	c->id = id;
	return 0;
}

static int parse_scale(const char *s, double *out, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v) || v <= 0 || v > 1e6) {
		snprintf(err, errlen,
			 "time-scale: '%.32s' is not a number in (0, 1e6]", s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* "FILE [time-scale=F]" */
static int parse_run(const char *args, struct control_cmd *c, char *err,
		     size_t errlen)
{
	const char *sp = strchr(args, ' ');
	size_t n = sp ? (size_t)(sp - args) : strlen(args);
	if (!n || n >= sizeof(c->path) || args[0] != '/') {
		snprintf(err, errlen, "scenario run takes an absolute FILE");
		return -EINVAL;
	}
	memcpy(c->path, args, n);
	c->path[n] = '\0';
	c->time_scale = 1;
	if (!sp)
		return 0;
	if (strncmp(sp + 1, "time-scale=", 11)) {
		snprintf(err, errlen,
			 "scenario run FILE [time-scale=F], not '%.32s'",
			 sp + 1);
		return -EINVAL;
	}
	return parse_scale(sp + 12, &c->time_scale, err, errlen);
}

static int parse_args(const char *line, struct control_cmd *c, char *err,
		      size_t errlen)
{
	if (!strncmp(line, "fault inject ", 13)) {
		c->verb = CONTROL_FAULT_INJECT;
		return fault_rule_parse(line + 13, &c->rule, err, errlen);
	}
	if (!strncmp(line, "fault clear ", 12)) {
		c->verb = CONTROL_FAULT_CLEAR;
		return parse_clear(line + 12, c, err, errlen);
	}
	if (!strncmp(line, "scenario run ", 13)) {
		c->verb = CONTROL_SCENARIO_RUN;
		return parse_run(line + 13, c, err, errlen);
	}
	if (!strncmp(line, "fault ", 6))
		snprintf(err, errlen,
			 "unknown fault command '%.64s' (inject KIND ..., "
			 "list, clear ID|all)",
			 line + 6);
	else if (!strncmp(line, "scenario ", 9))
		snprintf(err, errlen,
			 "unknown scenario command '%.64s' (run FILE "
			 "[time-scale=F], status, stop)",
			 line + 9);
	else
		snprintf(err, errlen, "unknown command '%.64s' (known: %s)",
			 line, known);
	return -EINVAL;
}

int control_parse(const char *line, struct control_cmd *out, char *err,
		  size_t errlen)
{
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcmp(line, fixed[i].line)) {
			out->verb = fixed[i].verb;
			return 0;
		}
	/* Parsed aside: a rejected line leaves @out as it was. */
	static _Thread_local struct control_cmd c;
	memset(&c, 0, sizeof(c));
	int r = parse_args(line, &c, err, errlen);
	if (!r)
		memcpy(out, &c, sizeof(c));
	return r;
}
