/* FUSE over io_uring (kernel 6.14+, protocol 7.42): requests arrive on one
 * ring per possible CPU instead of read(2) on /dev/fuse, and each reply is
 * committed to the ring entry its request came in, together with the
 * fetch of the next request (one syscall per request instead of two).
 * FORGET, INTERRUPT and notifications stay on /dev/fuse: the classic
 * loop keeps running beside the rings.
 *
 * One set of rings per process (one session): the state is file-static.
 * Order: uring_open before the INIT reply (so that the daemon only asks
 * for rings it has), uring_start after it, uring_stop after the unmount. */
#ifndef ARRAYSIM_FS_URING_H
#define ARRAYSIM_FS_URING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

struct fuse_session;

/* Make one io_uring (SQE128) per possible CPU. 0 or -errno. */
int uring_open(void);
/* Register every ring's entries (payload buffers of @payload bytes) on
 * /dev/fuse @fd, each ring served by its own thread that hands requests
 * to @se. On failure the kernel has been told to stay classic and the
 * rings are closed. 0 or -errno, with a reason in @err. */
int uring_start(struct fuse_session *se, int fd, size_t payload, char *err,
		size_t errlen);
/* Close the rings and unmap their buffers: rings opened but not started
 * (the kernel did not agree), or after uring_stop, once nothing can
 * reply from a ring's buffer (the store closed). */
void uring_close(void);
/* A reply libfuse is writing: when its unique is a ring request's, commit
 * it there, set *@ret as writev(2) would, and return true; false: not
 * ours, write it to /dev/fuse. Any thread. */
bool uring_reply(const struct iovec *iov, int count, ssize_t *ret);
/* Whether the request this thread is serving came in on a ring: its
 * bytes then stay in the ring's entry until its reply is committed, so a
 * write may reply after its handler returned without copying them. */
bool uring_serving(void);
/* Where the reply of the ring request this thread is serving will be
 * copied: a handler that builds @size bytes of reply data there (a
 * read's blocks) saves that copy. NULL when not serving a ring request
 * or @size exceeds the payload. Valid until the request is replied to
 * and, after the unmount, until uring_free. */
void *uring_reply_space(size_t size);
/* Stop the ring threads and close the rings (after the unmount); their
 * buffers stay until uring_close. */
void uring_stop(void);
/* Rings and entries per ring; 0 when not serving. */
unsigned uring_queues(void);
unsigned uring_depth(void);
/* How full the rings have been: the most entries one ring's requests
 * held at once, and how many times a ring had every entry in the daemon
 * (its CPU's next requests then waited in the kernel, unseen by the
 * model's clock). */
struct uring_use {
	unsigned peak;
	unsigned long long full;
};
struct uring_use uring_use(void);
/* Requests served on the rings so far. */
unsigned long long uring_served(void);
/* Of those, requests a pool worker served (a burst's, fs/uring_pool.h). */
unsigned long long uring_pool_requests(void);

#endif
