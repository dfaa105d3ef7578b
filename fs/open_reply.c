/* FOPEN_PARALLEL_DIRECT_WRITES in open replies (fs/open_reply.h). */
#include "fs/open_reply.h"

#include <linux/fuse.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#ifndef FOPEN_PARALLEL_DIRECT_WRITES
#define FOPEN_PARALLEL_DIRECT_WRITES (1 << 6) /* protocol 7.36 */
#endif

/* The uniques of OPEN and CREATE requests not yet answered; 0: free. As
 * many opens are in flight as worker threads at most; with the table full
 * an open just goes without the flag. */
#define SLOTS 128
static _Atomic uint64_t pending[SLOTS];
/* How many are noted: every reply of every request passes through
 * open_reply_patch, and with none noted (nearly always: opens are rare
 * beside reads and writes) it must cost one load, not a probe of the
 * table. */
static _Atomic unsigned noted;

/* The kill flag of the request this thread is about to process: both
 * transports note a request then hand it to libfuse on the same thread,
 * and every request overwrites it. */
static _Thread_local bool kill_suidgid;

/* FUSE_HANDLE_KILLPRIV_V2's flag in a request (protocol 7.33), which
 * libfuse 3.14 drops. */
static bool kill_flag(const struct fuse_in_header *in, size_t len)
{
	const void *arg = in + 1;
	size_t n = len - sizeof(*in);
	switch (in->opcode) {
	case FUSE_WRITE:
		return n >= sizeof(struct fuse_write_in) &&
		       (((const struct fuse_write_in *)arg)->write_flags &
			FUSE_WRITE_KILL_SUIDGID);
	case FUSE_SETATTR:
		return n >= sizeof(struct fuse_setattr_in) &&
		       (((const struct fuse_setattr_in *)arg)->valid &
			FATTR_KILL_SUIDGID);
	case FUSE_OPEN:
		return n >= sizeof(struct fuse_open_in) &&
		       (((const struct fuse_open_in *)arg)->open_flags &
			FUSE_OPEN_KILL_SUIDGID);
	case FUSE_CREATE:
		return n >= sizeof(struct fuse_create_in) &&
		       (((const struct fuse_create_in *)arg)->open_flags &
			FUSE_OPEN_KILL_SUIDGID);
	default:
		return false;
	}
}

bool open_reply_kill_suidgid(void)
{
	return kill_suidgid;
}

void open_reply_note(const void *req, size_t len)
{
	const struct fuse_in_header *in = req;
	if (len < sizeof(*in))
		return;
	kill_suidgid = kill_flag(in, len);
	if (in->opcode != FUSE_OPEN && in->opcode != FUSE_CREATE)
		return;
	for (unsigned i = 0; i < SLOTS; i++) {
		uint64_t free_slot = 0;
		unsigned s = (unsigned)(in->unique + i) % SLOTS;
		if (atomic_compare_exchange_strong(&pending[s], &free_slot,
						   in->unique)) {
			atomic_fetch_add_explicit(&noted, 1,
						  memory_order_release);
			return;
		}
	}
}

/* Forget @unique; whether it was noted. */
static int take(uint64_t unique)
{
	for (unsigned i = 0; i < SLOTS; i++) {
		uint64_t want = unique;
		unsigned s = (unsigned)(unique + i) % SLOTS;
		if (atomic_compare_exchange_strong(&pending[s], &want, 0)) {
			atomic_fetch_sub_explicit(&noted, 1,
						  memory_order_relaxed);
			return 1;
		}
	}
	return 0;
}

void open_reply_patch(struct iovec *iov, int count)
{
	if (count < 1 || iov[0].iov_len < sizeof(struct fuse_out_header))
		return;
	const struct fuse_out_header *out = iov[0].iov_base;
	if (!atomic_load_explicit(&noted, memory_order_acquire) ||
	    !out->unique || !take(out->unique) || out->error || count != 2 ||
	    iov[1].iov_len < sizeof(struct fuse_open_out))
		return;
	/* libfuse sends an open's reply in one piece, a create's as the
	 * entry then the open: fuse_open_out ends the payload either way. */
	struct fuse_open_out *o =
	    (void *)((char *)iov[1].iov_base + iov[1].iov_len - sizeof(*o));
	o->open_flags |= FOPEN_PARALLEL_DIRECT_WRITES;
}
