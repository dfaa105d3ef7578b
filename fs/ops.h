/* The FUSE low-level operations table of arraysim (fs/ops.c). The session
 * userdata is the struct fs. */
#ifndef ARRAYSIM_FS_OPS_H
#define ARRAYSIM_FS_OPS_H

#include <fuse_lowlevel.h>

#include "fs/fs.h"

/* Background requests (readahead, writeback, asynchronous direct I/O)
 * the kernel may have in the daemon at once: what a real array's queues
 * take from many hosts (the Infinidat report's load kept about 1200
 * outstanding: tiers/profiles/infinidat-6303.ini). A request waits in the
 * array model, not in a thread, so the count costs memory only. The FUSE
 * rings take as many a ring (fs/uring.c). */
#define FS_MAX_BACKGROUND 2048

extern const struct fuse_lowlevel_ops fs_ops;

#endif
