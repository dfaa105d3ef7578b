/* FUSE ops of extended attributes: setxattr, getxattr, listxattr,
 * removexattr, in the user., trusted. and security. namespaces. */
#include "fs/ops_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/attrs.h"
#include "store/datapath.h"
#include "fs/fault_gate.h"
#include "store/namespace.h"

/* The namespaces a local filesystem stores. Not system.*: permission
 * checks are the kernel's, on mode bits alone, and storing an ACL nobody
 * enforces would be a lie. */
static int xattr_supported(const char *name)
{
	static const char *const prefixes[] = {"user.", "trusted.",
					       "security."};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 0;
	return -EOPNOTSUPP;
}

void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		 const char *value, size_t size, int flags)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct store_txn t;
	int r = xattr_supported(name);
	if (!r)
		r = fault_gate_meta(fs, 0, ino, 0, NULL); /* power loss only */
	if (!r)
		r = store_txn_begin(fs->st, &t);
	if (r)
		return ops_reply_err(req, STATS_OP_XATTR, t0, r);
	r = ops_txn_end(&t, attrs_xattr_set(&t, ino, name, value, size, flags));
	ops_reply_err(req, STATS_OP_XATTR, t0, r);
}

void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	MDB_txn *txn;
	int r = xattr_supported(name);
	if (r)
		return ops_reply_err(req, STATS_OP_XATTR, t0, -ENODATA);
	r = metastore_txn_begin(store_ms(fs->st), false, &txn);
	if (r)
		return ops_reply_err(req, STATS_OP_XATTR, t0, r);
	const void *v;
	size_t vsize;
	r = ns_xattr_get(store_ms(fs->st), txn, ino, name, &v, &vsize);
	if (!r && size && vsize > size)
		r = -ERANGE;
	if (!r) {
		ops_account(req, STATS_OP_XATTR, t0, 0, 0);
		if (size)
			fuse_reply_buf(req, v, vsize);
		else
			fuse_reply_xattr(req, vsize);
	}
	metastore_txn_abort(txn);
	if (r)
		ops_reply_err(req, STATS_OP_XATTR, t0, r);
}

void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	MDB_txn *txn;
	char *buf = size ? malloc(size) : NULL;
	int r = size && !buf
		    ? -ENOMEM
		    : metastore_txn_begin(store_ms(fs->st), false, &txn);
	if (r) {
		free(buf);
		return ops_reply_err(req, STATS_OP_XATTR, t0, r);
	}
	size_t need = 0;
	r = ns_xattr_list(store_ms(fs->st), txn, ino, buf, size, &need);
	metastore_txn_abort(txn);
	if (!r) {
		ops_account(req, STATS_OP_XATTR, t0, 0, 0);
		if (size)
			fuse_reply_buf(req, buf, need);
		else
			fuse_reply_xattr(req, need);
	} else {
		ops_reply_err(req, STATS_OP_XATTR, t0, r);
	}
	free(buf);
}

void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct store_txn t;
	int r = xattr_supported(name);
	if (r)
		return ops_reply_err(req, STATS_OP_XATTR, t0, -ENODATA);
	r = fault_gate_meta(fs, 0, ino, 0, NULL); /* power loss only */
	if (!r)
		r = store_txn_begin(fs->st, &t);
	if (r)
		return ops_reply_err(req, STATS_OP_XATTR, t0, r);
	r = ops_txn_end(&t, attrs_xattr_del(&t, ino, name));
	ops_reply_err(req, STATS_OP_XATTR, t0, r);
}
