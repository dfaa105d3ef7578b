/* The Prometheus endpoint of a mounted array: see fs/metrics_http.c. */
#ifndef ARRAYSIM_FS_METRICS_HTTP_H
#define ARRAYSIM_FS_METRICS_HTTP_H

#include <netinet/in.h>
#include <stddef.h>

#include "fs/fs.h"

struct metrics_http;

/* "PORT" (on 127.0.0.1) or "ADDR:PORT" into @out. 0, or -EINVAL with a
 * one-line reason in @err. */
int metrics_parse_addr(const char *spec, struct sockaddr_in *out, char *err,
		       size_t errlen);
/* Serve GET /metrics on @addr from a thread of its own. 0, or -errno with
 * a reason in @err. */
int metrics_http_start(struct fs *fs, const struct sockaddr_in *addr,
		       struct metrics_http **out, char *err, size_t errlen);
/* Stop serving; NULL is a no-op. */
void metrics_http_stop(struct metrics_http *m);

#endif
