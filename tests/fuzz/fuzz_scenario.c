/* libFuzzer harness for scenario files (faults/scenario.c, through
 * libinih).
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_scenario
 *   ./build-fuzz/tests/fuzz/fuzz_scenario -max_len=2048
 *
 * Beyond "does not crash": a rejected file says why, naming the source; an
 * accepted one has steps in time order, every clear of a label after an
 * inject of it, and rules that print and parse back.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "faults/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct scenario *s)
{
	if (!s->n)
		abort();
	for (unsigned i = 0; i < s->n; i++) {
		const struct scenario_step *st = &s->steps[i];
		if (i && st->at_ns < s->steps[i - 1].at_ns)
			abort();
		/* A replication step is one of the verbs, nothing else. */
		if (st->action == SCENARIO_REPLICATION &&
		    (!st->verb[0] ||
		     strspn(st->verb, "abcdefghijklmnopqrstuvwxyz") !=
			 strlen(st->verb)))
			abort();
		if (st->action == SCENARIO_REPLICATION &&
		    !scenario_replicates(s))
			abort();
		if (st->action != SCENARIO_INJECT)
			continue;
		char text[FAULT_PATH_MAX + 512], err[256];
		struct fault_rule back;
		fault_rule_format(&st->rule, text, sizeof(text));
		if (fault_rule_parse(text, &back, err, sizeof(err)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 16384)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	struct scenario s;
	char err[512] = "";
	int rc = scenario_parse_string(text, "fuzz.ini", &s, err, sizeof(err));
	if (rc != 0 && rc != -EINVAL)
		abort();
	if (rc && strncmp(err, "fuzz.ini", 8))
		abort(); /* a reason that does not name the source */
	if (!rc) {
		check(&s);
		scenario_free(&s);
	}
	free(text);
	return 0;
}
