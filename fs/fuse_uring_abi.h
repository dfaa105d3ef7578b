/* The part of the FUSE protocol 7.42 that FUSE over io_uring needs, which
 * the system's <linux/fuse.h> (7.38, Debian 12) does not have. Layouts as
 * the kernel's include/uapi/linux/fuse.h defines them; the asserts below
 * hold us to them. */
#ifndef ARRAYSIM_FS_FUSE_URING_ABI_H
#define ARRAYSIM_FS_FUSE_URING_ABI_H

#include <stdint.h>

/* INIT flag: the daemon serves requests on io_uring rings (flags2 bit 9,
 * valid only with FUSE_INIT_EXT). */
#define ABI_FUSE_OVER_IO_URING (1ULL << 41)
#define ABI_OVER_IO_URING_FLAGS2 ((uint32_t)(ABI_FUSE_OVER_IO_URING >> 32))

#define ABI_URING_IN_OUT_HEADER_SZ 128
#define ABI_URING_OP_IN_OUT_SZ 128

/* The kernel's minimum payload buffer (FUSE_MIN_READ_BUFFER). */
#define ABI_URING_MIN_PAYLOAD 8192u

struct abi_uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;  /* the request's unique: echo it on commit */
	uint32_t payload_sz; /* valid bytes of the payload, either way */
	uint32_t padding;
	uint64_t reserved;
};

/* One entry's header buffer (iov[0] of REGISTER). */
struct abi_uring_req_header {
	/* fuse_in_header on fetch, fuse_out_header on commit */
	char in_out[ABI_URING_IN_OUT_HEADER_SZ];
	/* the op's fixed header (fuse_write_in, ...); may be empty */
	char op_in[ABI_URING_OP_IN_OUT_SZ];
	struct abi_uring_ent_in_out ring_ent_in_out;
};

enum abi_uring_cmd {
	ABI_URING_CMD_REGISTER = 1,
	ABI_URING_CMD_COMMIT_AND_FETCH = 2,
};

/* In the 80-byte command area of an SQE128. */
struct abi_uring_cmd_req {
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
};

_Static_assert(sizeof(struct abi_uring_ent_in_out) == 32, "ent_in_out");
_Static_assert(sizeof(struct abi_uring_req_header) == 288, "req_header");
_Static_assert(sizeof(struct abi_uring_cmd_req) == 24, "cmd_req");

#endif
