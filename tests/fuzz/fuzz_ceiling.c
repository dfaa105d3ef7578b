/* libFuzzer harness for the ceiling file of `arraysim profile show
 * --ceiling` (tools/profile_fit.c, written by bench/ceiling.sh).
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_ceiling
 *   ./build-fuzz/tests/fuzz/fuzz_ceiling -max_len=1024
 *
 * Beyond "does not crash": on success at least one rate is set and every
 * rate is 0 or in (0, 1e12]; on error the message is one line.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/profile_fit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fit_ceiling c;
	char err[256] = "";
	int rc = fit_ceiling_parse((const char *)data, size, "fuzz", &c, err,
				   sizeof(err));
	if (rc && (rc != -EINVAL || !err[0] || strchr(err, '\n')))
		abort();
	if (!rc) {
		int set = 0;
		for (int w = 0; w < FIT_WORKLOADS; w++) {
			double v = c.iops[w];
			if (!(v == 0 || (isfinite(v) && v > 0 && v <= 1e12)))
				abort();
			set += v > 0;
		}
		if (!set)
			abort();
	}
	return 0;
}
