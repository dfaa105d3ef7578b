/* The rings' count and depth (fs/uring_size.h). */
#include "fs/uring_size.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"

/* /sys/devices/system/cpu/possible is a list of ranges ("0-1",
 * "0,2-5"): the kernel makes one queue per possible CPU, not online. */
int uring_possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "re");
	if (!f)
		return -errno;
	int n = 0;
	unsigned a, b;
	char sep;
	while (fscanf(f, "%u", &a) == 1) {
		b = a;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-' &&
		    fscanf(f, "%u%c", &b, &sep) < 1)
			break;
		n += (int)(b - a + 1);
		if (sep != ',')
			break;
	}
	fclose(f);
	return n > 0 ? n : -EINVAL;
}

unsigned uring_depth_wanted(unsigned dflt)
{
	const char *v = getenv("ARRAYSIM_URING_DEPTH");
	if (!v || !*v)
		return dflt;
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (*end || !n || n > URING_DEPTH_MAX) {
		log_error("fuse",
			  "ARRAYSIM_URING_DEPTH=%s: not 1..%u; using %u", v,
			  URING_DEPTH_MAX, dflt);
		return dflt;
	}
	return (unsigned)n;
}
