/* io_uring instances set up and torn down one at a time, process-wide.
 *
 * A ring's queues are memory the kernel maps into the process, and the
 * addresses a torn-down ring leaves are often where the next ring lands.
 * liburing maps and unmaps them with raw syscalls, which ThreadSanitizer
 * does not intercept: to it, the first writes of a new ring's owner race
 * with the last writes of the old ring's owner (a thread frees its ring
 * as it exits, and another thread's new ring lands there). One lock
 * around every setup and teardown gives it the order the kernel keeps
 * anyway. Rings are set up once per thread, scan worker or mount, so the
 * lock is never on a request's path.
 */
#ifndef ARRAYSIM_COMMON_RING_SETUP_H
#define ARRAYSIM_COMMON_RING_SETUP_H

#include <liburing.h>

/* io_uring_queue_init, under the lock: 0 or -errno. */
int ring_setup(unsigned entries, struct io_uring *ring, unsigned flags);
/* io_uring_queue_exit, under the lock. */
void ring_teardown(struct io_uring *ring);

#endif
