/* The /dev/fuse channel, read and written as libfuse would, with three
 * additions to the INIT reply and the choice of transport.
 *
 * FUSE_DIRECT_IO_ALLOW_MMAP: arraysim opens files with direct I/O so that
 * every read and write reaches the array model. Without that flag the
 * kernel refuses shared mmap on such files (ENODEV), which breaks
 * programs that map their files (SQLite's -shm, many build tools).
 * Kernels since 6.6 accept the flag.
 *
 * FUSE_OVER_IO_URING (fs/uring.h): requests on io_uring rings, one
 * syscall per request instead of a read and a write.
 *
 * FUSE_HANDLE_KILLPRIV_V2 (first flags word, protocol 7.33; libfuse 3.14
 * has v1 only): the daemon clears set-ID bits and file capabilities on
 * write, truncate and chown, told by a flag in each request whether the
 * caller lacks CAP_FSETID (fs/open_reply.h), and the kernel stops asking
 * for security.capability before every write (SB_NOSEC; fs/README.md).
 * Taken whenever offered: the daemon does what the VFS would, on every
 * mount, so no mount needs the kernel's per-write question.
 *
 * libfuse 3.14 (Debian 12) can express none of them: its capability mask
 * is 32 bits, the first two live in the second flags word, and it knows
 * no KILLPRIV_V2. So the kernel's offer is noted as the INIT request
 * comes in, and a flag is set in the reply on its way out only when the
 * kernel offered it. The INIT is
 * answered here, before the mount is reported up (channel_handshake), so
 * that the transport is known and `io_uring=on` can refuse the mount.
 *
 * One session per process: the state is file-static.
 */
#include "fs/channel.h"

#include <errno.h>
#include <linux/fuse.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fs/fuse_uring_abi.h"
#include "fs/open_reply.h"
#include "fs/uring.h"

#ifndef FUSE_DIRECT_IO_ALLOW_MMAP
#define FUSE_DIRECT_IO_ALLOW_MMAP (1ULL << 36) /* protocol 7.39 */
#endif
#define ALLOW_MMAP_FLAGS2 ((uint32_t)(FUSE_DIRECT_IO_ALLOW_MMAP >> 32))
#define ENABLE_URING_PARAM "/sys/module/fuse/parameters/enable_uring"

static _Atomic uint64_t init_unique;   /* 0: INIT answered or not seen */
static _Atomic uint32_t kernel_flags2; /* the INIT request's second word */
static _Atomic uint32_t kernel_flags;  /* and its first */
static atomic_bool killpriv_v2;	       /* the INIT reply took it */
static enum channel_uring mode;
static bool rings_ready;     /* uring_open done: the reply may ask */
static bool uring_asked;     /* the INIT reply asked for io_uring */
static size_t uring_payload; /* from the INIT reply */
static char transport[160] = "classic";

static void note_init(const void *buf, size_t len)
{
	const struct fuse_in_header *in = buf;
	if (len < sizeof(*in) || in->opcode != FUSE_INIT)
		return;
	const struct fuse_init_in *init = (const void *)(in + 1);
	atomic_store(&init_unique, in->unique);
	if (len >= sizeof(*in) + offsetof(struct fuse_init_in, flags) +
		       sizeof(init->flags))
		atomic_store(&kernel_flags, init->flags);
	if (len < sizeof(*in) + offsetof(struct fuse_init_in, flags2) +
		      sizeof(init->flags2))
		return; /* an old kernel: no second flags word */
	if (init->flags & FUSE_INIT_EXT)
		atomic_store(&kernel_flags2, init->flags2);
}

static ssize_t ch_read(int fd, void *buf, size_t len, void *userdata)
{
	ssize_t n = read(fd, buf, len);
	if (n > 0) {
		note_init(buf, (size_t)n);
		open_reply_note(buf, (size_t)n);
	}
	return n;
}

/* What the rings need: the kernel's max_payload_sz, from the reply. */
static size_t payload_of(const struct fuse_init_out *init)
{
	size_t p = init->max_write;
	if ((init->flags & FUSE_MAX_PAGES) &&
	    (size_t)init->max_pages * 4096 > p)
		p = (size_t)init->max_pages * 4096;
	return p > ABI_URING_MIN_PAYLOAD ? p : ABI_URING_MIN_PAYLOAD;
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
	uint32_t offered = atomic_load(&kernel_flags2);
	if (out->error ||
	    iov[1].iov_len <
		offsetof(struct fuse_init_out, flags) + sizeof(init->flags))
		return;
	if (atomic_load(&kernel_flags) & FUSE_HANDLE_KILLPRIV_V2) {
		init->flags |= FUSE_HANDLE_KILLPRIV_V2;
		atomic_store(&killpriv_v2, true);
	}
	if (iov[1].iov_len <
		offsetof(struct fuse_init_out, flags2) + sizeof(init->flags2) ||
	    !(init->flags & FUSE_INIT_EXT))
		return;
	init->flags2 |= offered & ALLOW_MMAP_FLAGS2;
	if (rings_ready && (offered & ABI_OVER_IO_URING_FLAGS2)) {
		init->flags2 |= ABI_OVER_IO_URING_FLAGS2;
		uring_asked = true;
		uring_payload = payload_of(init);
	}
}

static ssize_t ch_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	ssize_t n;
	open_reply_patch(iov, count);
	if (uring_reply(iov, count, &n))
		return n;
	patch_init_reply(iov, count);
	return writev(fd, iov, count);
}

int channel_attach(struct fuse_session *se, enum channel_uring m)
{
	static const struct fuse_custom_io io = {
	    .read = ch_read,
	    .writev = ch_writev,
	};
	mode = m;
	return fuse_session_custom_io(se, &io, fuse_session_fd(se));
}

/* Why the kernel did not offer io_uring, for the log and `io_uring=on`. */
static const char *why_not_offered(void)
{
	char c = 0;
	FILE *f = fopen(ENABLE_URING_PARAM, "re");
	if (!f)
		return "this kernel has no FUSE over io_uring "
		       "(no " ENABLE_URING_PARAM ")";
	if (fscanf(f, " %c", &c) != 1)
		c = 0;
	fclose(f);
	return c == 'Y' ? "the kernel did not offer it in INIT"
			: ENABLE_URING_PARAM " is N";
}

/* Read the kernel's INIT and answer it through libfuse (op_init). */
static int answer_init(struct fuse_session *se, bool want_rings, char *err,
		       size_t errlen)
{
	struct fuse_buf buf = {.mem = NULL};
	int r;
	do
		r = fuse_session_receive_buf(se, &buf);
	while (r == -EINTR);
	if (r <= 0) {
		snprintf(err, errlen, "no INIT from the kernel: %s",
			 strerror(r ? -r : EIO));
		free(buf.mem);
		return r ? r : -EIO;
	}
	uint32_t offered = atomic_load(&kernel_flags2);
	if (want_rings && (offered & ABI_OVER_IO_URING_FLAGS2))
		rings_ready = !uring_open();
	fuse_session_process_buf(se, &buf);
	free(buf.mem);
	return 0;
}

/* The transport after INIT: rings when asked for and registered. */
static int start_rings(struct fuse_session *se, char *err, size_t errlen)
{
	char why[256];
	if (mode == CHANNEL_URING_OFF) {
		snprintf(transport, sizeof(transport),
			 "classic (io_uring=off)");
		return 0;
	}
	if (!uring_asked) {
		if (rings_ready)
			uring_close();
		snprintf(why, sizeof(why), "%s",
			 atomic_load(&kernel_flags2) & ABI_OVER_IO_URING_FLAGS2
			     ? "cannot make the rings (io_uring_setup)"
			     : why_not_offered());
	} else if (!uring_start(se, fuse_session_fd(se), uring_payload, why,
				sizeof(why))) {
		snprintf(transport, sizeof(transport),
			 "io_uring (%u rings x %u entries, %zu KiB payload)",
			 uring_queues(), uring_depth(), uring_payload >> 10);
		return 0;
	}
	snprintf(transport, sizeof(transport), "classic (no io_uring: %.120s)",
		 why);
	if (mode != CHANNEL_URING_ON)
		return 0;
	snprintf(err, errlen,
		 "io_uring=on, but FUSE over io_uring is not "
		 "available: %s",
		 why);
	return -EOPNOTSUPP;
}

int channel_handshake(struct fuse_session *se, char *err, size_t errlen)
{
	int r = answer_init(se, mode != CHANNEL_URING_OFF, err, errlen);
	return r ? r : start_rings(se, err, errlen);
}

bool channel_killpriv_v2(void)
{
	return atomic_load_explicit(&killpriv_v2, memory_order_relaxed);
}

const char *channel_transport(void)
{
	return transport;
}

unsigned long long channel_ring_requests(void)
{
	return uring_served();
}

void channel_detach(void)
{
	uring_stop();
}

void channel_free(void)
{
	uring_close();
}
