/* `mount --graphite HOST:PORT[,prefix=P]`: the metrics pushed to a Carbon
 * server once a second, as the seed evaluations fed Graphite/Grafana. */
#ifndef ARRAYSIM_FS_GRAPHITE_PUSH_H
#define ARRAYSIM_FS_GRAPHITE_PUSH_H

#include <stddef.h>

#include "common/graphite.h"
#include "fs/fs.h"

struct graphite_push;

/* Push @fs's exposition (fs/metrics_render.h) to @t every second from a
 * thread of its own, and once more when stopped. A server that is down or
 * goes away is logged once and tried again each second; it never stops
 * the mount. 0, or -errno with a reason in @err. */
int graphite_push_start(struct fs *fs, const struct graphite_target *t,
			struct graphite_push **out, char *err, size_t errlen);
/* The last push, then stop; NULL is a no-op. */
void graphite_push_stop(struct graphite_push *g);

#endif
