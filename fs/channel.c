/* The /dev/fuse channel, read and written as libfuse would, with one
 * change: the INIT reply also asks for FUSE_DIRECT_IO_ALLOW_MMAP.
 *
 * Why: arraysim opens files with direct I/O so that every read and write
 * reaches the array model. Without that flag the kernel refuses shared
 * mmap on such files (ENODEV), which breaks programs that map their files
 * (SQLite's -shm, many build tools). Kernels since 6.6 accept the flag;
 * libfuse 3.14 (Debian 12) cannot express it, because its capability
 * mask is 32 bits and the flag lives in the second flags word. So the
 * request is noted on its way in, and the flag is set in the reply on its
 * way out, only when the kernel offered it.
 *
 * One session per process: the state is file-static.
 */
#include "fs/channel.h"

#include <errno.h>
#include <linux/fuse.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

#ifndef FUSE_DIRECT_IO_ALLOW_MMAP
#define FUSE_DIRECT_IO_ALLOW_MMAP (1ULL << 36) /* protocol 7.39 */
#endif
#define ALLOW_MMAP_FLAGS2 ((uint32_t)(FUSE_DIRECT_IO_ALLOW_MMAP >> 32))

static _Atomic uint64_t init_unique; /* 0: INIT answered or not seen */
static atomic_bool kernel_offers;

static void note_init(const void *buf, size_t len)
{
	const struct fuse_in_header *in = buf;
	if (len < sizeof(*in) || in->opcode != FUSE_INIT)
		return;
	const struct fuse_init_in *init = (const void *)(in + 1);
	if (len < sizeof(*in) + offsetof(struct fuse_init_in, flags2) +
		      sizeof(init->flags2))
		return; /* an old kernel: no second flags word */
	bool offered =
	    (init->flags & FUSE_INIT_EXT) && (init->flags2 & ALLOW_MMAP_FLAGS2);
	atomic_store(&kernel_offers, offered);
	atomic_store(&init_unique, in->unique);
}

static ssize_t ch_read(int fd, void *buf, size_t len, void *userdata)
{
	ssize_t n = read(fd, buf, len);
	if (n > 0)
		note_init(buf, (size_t)n);
	return n;
}

static void patch_init_reply(struct iovec *iov, int count)
{
	uint64_t unique = atomic_load(&init_unique);
	if (!unique || count < 2 ||
	    iov[0].iov_len < sizeof(struct fuse_out_header))
		return;
	const struct fuse_out_header *out = iov[0].iov_base;
	if (out->unique != unique)
		return;
	atomic_store(&init_unique, 0);
	struct fuse_init_out *init = iov[1].iov_base;
	if (out->error || !atomic_load(&kernel_offers) ||
	    iov[1].iov_len <
		offsetof(struct fuse_init_out, flags2) + sizeof(init->flags2) ||
	    !(init->flags & FUSE_INIT_EXT))
		return;
	init->flags2 |= ALLOW_MMAP_FLAGS2;
}

static ssize_t ch_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	patch_init_reply(iov, count);
	return writev(fd, iov, count);
}

int channel_attach(struct fuse_session *se)
{
	static const struct fuse_custom_io io = {
	    .read = ch_read,
	    .writev = ch_writev,
	};
	return fuse_session_custom_io(se, &io, fuse_session_fd(se));
}
