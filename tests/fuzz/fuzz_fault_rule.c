/* libFuzzer harness for the fault grammar of the control protocol
 * (faults/rule.c), the text after "fault inject" on the control socket.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_fault_rule
 *   ./build-fuzz/tests/fuzz/fuzz_fault_rule -max_len=256
 *
 * Beyond "does not crash": a rejected input leaves the output untouched
 * and says why; an accepted rule prints as text that parses to the same
 * rule, and printing that prints the same text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "faults/rule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	struct fault_rule r, canary;
	memset(&r, 0x5a, sizeof(r));
	memcpy(&canary, &r, sizeof(r));
	char err[256] = "";
	int rc = fault_rule_parse(s, &r, err, sizeof(err));
	if (rc != 0 && rc != -EINVAL)
		abort();
	if (rc) {
		if (!err[0] || memcmp(&r, &canary, sizeof(r)))
			abort(); /* no reason, or output touched */
		free(s);
		return 0;
	}
	char a[FAULT_PATH_MAX + 512], b[FAULT_PATH_MAX + 512];
	fault_rule_format(&r, a, sizeof(a));
	struct fault_rule again;
	if (fault_rule_parse(a, &again, err, sizeof(err)))
		abort(); /* printed a rule it cannot read back */
	fault_rule_format(&again, b, sizeof(b));
	if (strcmp(a, b))
		abort();
	free(s);
	return 0;
}
