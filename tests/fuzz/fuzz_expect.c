/* libFuzzer harness for `arraysim run --expect` (tools/expect.c): the
 * first byte picks an expression or a JSON document. Whatever the input,
 * no crash; a parsed expression has a non-empty name, a known operator
 * and a finite number, and exactly one of OP and its opposite holds. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/expect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	char *s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] & 1) {
		double v;
		(void)expect_lookup(s, "lost_reads", &v);
		(void)expect_lookup(s, "ops.write.count", &v);
	} else {
		struct expect e;
		char err[512];
		if (!expect_parse(s, &e, err, sizeof(err))) {
			if (!e.name[0] || (unsigned)e.op > EXPECT_GE ||
			    !isfinite(e.value))
				abort();
			struct expect ne = e;
			ne.op = e.op == EXPECT_EQ ? EXPECT_NE : EXPECT_EQ;
			if (expect_holds(&e, 1.5) == expect_holds(&ne, 1.5) &&
			    (e.op == EXPECT_EQ || e.op == EXPECT_NE))
				abort();
		}
	}
	free(s);
	return 0;
}
