/* A mounted array's metrics exposition, rendered once: what a Prometheus
 * scrape (fs/metrics_http.c) and a Graphite push (fs/graphite_push.c)
 * both send, so the two can never disagree on a series. */
#ifndef ARRAYSIM_FS_METRICS_RENDER_H
#define ARRAYSIM_FS_METRICS_RENDER_H

#include <stdio.h>

#include "fs/fs.h"
#include "tiers/array_snapshot.h"

/* The exposition of @fs's counters, the store's gauges and one snapshot of
 * the array model onto @out. @scratch holds the snapshot while it renders:
 * one per calling thread (it is large, and filled under the model's lock
 * in one pass). */
void metrics_render(struct fs *fs, struct array_snapshot *scratch, FILE *out);

#endif
