/* A few worker threads beside the ring threads (fs/uring.c): when a ring
 * thread reaps a burst, it serves one request itself and offers the others
 * here. Only idle workers take a job; uring_pool_offer returns false when
 * none is idle and the caller serves the job itself. */
#ifndef ARRAYSIM_FS_URING_POOL_H
#define ARRAYSIM_FS_URING_POOL_H

#include <stdbool.h>

/* Start @n workers (0: none, every offer fails). 0 or -1. */
int uring_pool_start(unsigned n);
/* Run fn(arg) on an idle worker: true, or false if none is idle. */
bool uring_pool_offer(void (*fn)(void *), void *arg);
/* Wait for the workers' jobs to end and join them. */
void uring_pool_stop(void);
/* Jobs the workers have run since the process started. */
unsigned long long uring_pool_served(void);

#endif
