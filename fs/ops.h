/* The FUSE low-level operations table of arraysim (fs/ops.c). The session
 * userdata is the struct fs. */
#ifndef ARRAYSIM_FS_OPS_H
#define ARRAYSIM_FS_OPS_H

#include <fuse_lowlevel.h>

#include "fs/fs.h"

extern const struct fuse_lowlevel_ops fs_ops;

#endif
