/* Test devices behind struct backing_ops (tiers/backing.h), the seam the
 * data path reads and writes the store through:
 *
 *   t_mem     an in-memory store: the contract of tiers/backing.c (pblk 0
 *             is -EINVAL before any I/O, unwritten blocks read as zeros)
 *             without files
 *   t_faulty  a wrapper that fails its Nth call (reads, writes and syncs
 *             counted together, from 1) with a chosen -errno, once or
 *             from then on, as SQLite's counted fault injection does; a
 *             failed call never reaches the device below
 */
#ifndef ARRAYSIM_TESTS_TIERS_T_BACKING_H
#define ARRAYSIM_TESTS_TIERS_T_BACKING_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/backing.h"

struct t_mem;

/* An empty in-memory store, and its device view. */
struct t_mem *t_mem_new(void);
void t_mem_free(struct t_mem *m);
struct backing_dev t_mem_dev(struct t_mem *m);
/* Calls of each kind that reached @m (0 read, 1 write, 2 sync). */
unsigned t_mem_calls(const struct t_mem *m, unsigned kind);

struct t_faulty {
	struct backing_dev lower; /* where calls that pass go */
	unsigned nth;		  /* the call that fails, from 1; 0: none */
	bool persist;		  /* and every call after it */
	int err;		  /* what it returns: -EIO, -ENOSPC, ... */
	unsigned calls;		  /* calls so far */
	unsigned failed;	  /* calls failed so far */
};

/* The device view of @f (set its fields first; calls counts from 0). */
struct backing_dev t_faulty_dev(struct t_faulty *f);

#endif
