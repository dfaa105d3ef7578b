/* How many FUSE rings, and how deep (fs/uring.c): one ring per possible
 * CPU, as the kernel asks, each as deep as the caller's default unless
 * ARRAYSIM_URING_DEPTH says otherwise (tests: a shallow ring, to see it
 * fill). */
#ifndef ARRAYSIM_FS_URING_SIZE_H
#define ARRAYSIM_FS_URING_SIZE_H

/* The deepest ring: its submission queue (twice the entries, one fetch
 * and one commit each) stays under io_uring's 32768. */
#define URING_DEPTH_MAX 8192

/* The kernel's num_possible_cpus(), or -errno. */
int uring_possible_cpus(void);
/* ARRAYSIM_URING_DEPTH when it is a number in 1..URING_DEPTH_MAX, else
 * (said once on the log when set but not such a number) @dflt. */
unsigned uring_depth_wanted(unsigned dflt);

#endif
