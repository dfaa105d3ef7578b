/* libFuzzer harness for the control protocol (faults/control.c): any line
 * a client could send on the control socket.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_control
 *   ./build-fuzz/tests/fuzz/fuzz_control -max_len=512
 *
 * Beyond "does not crash": a rejected line says why and leaves the output
 * alone; an accepted one has its arguments in range.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "faults/control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	struct control_cmd c, canary;
	memset(&c, 0xa5, sizeof(c));
	memcpy(&canary, &c, sizeof(c));
	char err[256] = "";
	int rc = control_parse(line, &c, err, sizeof(err));
	if (rc != 0 && rc != -EINVAL)
		abort();
	if (rc && (!err[0] || memcmp(&c, &canary, sizeof(c))))
		abort();
	if (!rc && c.verb == CONTROL_SCENARIO_RUN &&
	    (c.path[0] != '/' || !(c.time_scale > 0 && c.time_scale <= 1e6)))
		abort();
	free(line);
	return 0;
}
