/* The /dev/fuse channel of a session: libfuse's reads and writes, the INIT
 * reply's additions, and the transport (classic, or FUSE over io_uring:
 * fs/uring.h). See channel.c. */
#ifndef ARRAYSIM_FS_CHANNEL_H
#define ARRAYSIM_FS_CHANNEL_H

#include <fuse_lowlevel.h>
#include <stdbool.h>

#include "fs/uring_opt.h"

/* Take over the I/O of mounted session @se. 0 or -errno. */
int channel_attach(struct fuse_session *se, enum channel_uring mode);
/* Answer the kernel's INIT (the first request after the mount) and start
 * the transport: the rings when asked for and the kernel agrees. 0, or
 * -errno with the one-line reason in @err (io_uring=on without rings). */
int channel_handshake(struct fuse_session *se, char *err, size_t errlen);
/* Whether the INIT reply took FUSE_HANDLE_KILLPRIV_V2: the kill flags of
 * requests (fs/open_reply.h) then say when set-ID bits go. */
bool channel_killpriv_v2(void);
/* The transport in use, for status and the log: "classic (...)" or
 * "io_uring (...)". */
const char *channel_transport(void);
/* Requests that came on the rings so far (0: classic). */
unsigned long long channel_ring_requests(void);
/* Stop the rings, if any: after the unmount, before the session goes. */
void channel_detach(void);
/* Free what the rings leave after channel_detach: after the store is
 * closed, since a read the array model held may reply from it. */
void channel_free(void);

#endif
