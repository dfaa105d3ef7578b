/* The /dev/fuse channel of a session: libfuse's reads and writes, plus
 * one addition to the INIT reply (see channel.c). */
#ifndef ARRAYSIM_FS_CHANNEL_H
#define ARRAYSIM_FS_CHANNEL_H

#include <fuse_lowlevel.h>

/* Take over the I/O of mounted session @se. 0 or -errno. */
int channel_attach(struct fuse_session *se);

#endif
