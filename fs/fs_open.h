/* Opening the front end's state (fs/fs.h): the store, then what fs/
 * keeps on top of it. */
#ifndef ARRAYSIM_FS_FS_OPEN_H
#define ARRAYSIM_FS_FS_OPEN_H

#include <stddef.h>

#include "fs/fs.h"

/* Open the store and everything on top of it. 0 or -errno, with a
 * one-line reason in @err. */
int fs_open(struct fs *fs, const struct fs_config *cfg, char *err,
	    size_t errlen);
/* Stop the scenario runner and the fault gate (replies it delays are sent
 * first), then sync and close the store. */
void fs_close(struct fs *fs);

#endif
