/* FOPEN_PARALLEL_DIRECT_WRITES in the replies to OPEN and CREATE.
 *
 * arraysim opens every file with direct I/O, and the kernel then writes
 * one file one request at a time (its inode lock, held exclusive) unless
 * the open reply says the daemon takes concurrent writes to one file: we
 * do (the store's data lock is held only while a write is decided and
 * queued, store/group_commit.h). libfuse 3.14 cannot set the flag
 * (fuse_file_info has no bit for it), so the transports note the unique of
 * each OPEN and CREATE as it arrives and set the flag in its reply on the
 * way out.
 */
#ifndef ARRAYSIM_FS_OPEN_REPLY_H
#define ARRAYSIM_FS_OPEN_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

/* A request's bytes as read (fuse_in_header first), on the thread that
 * processes it next. */
void open_reply_note(const void *req, size_t len);
/* Whether the request this thread processes carries the kernel's
 * FUSE_WRITE_KILL_SUIDGID, FATTR_KILL_SUIDGID or FUSE_OPEN_KILL_SUIDGID
 * (sent only under FUSE_HANDLE_KILLPRIV_V2, fs/channel.h): the caller
 * lacks CAP_FSETID, or (a SETATTR) changes a file's owner. */
bool open_reply_kill_suidgid(void);
/* A reply about to be sent (fuse_out_header in iov[0]). */
void open_reply_patch(struct iovec *iov, int count);

#endif
