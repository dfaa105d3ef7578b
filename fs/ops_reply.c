/* The reply helpers every FUSE op ends in (declared in fs/ops_i.h): each
 * accounts the op (common/stats.h), then replies. And the small checks the
 * ops share: a name's length, a transaction's end, the open flags. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "fs/inode_table.h"
#include "fs/ops_i.h"
#include "store/datapath.h"
#include "store/namespace.h"

/* "No such name" to a lookup and "no such attribute" to a getxattr are
 * answers, not failures: `cp -a` asks for every ACL of every file, and a
 * shell's PATH search looks up names that are not there. */
static bool is_miss(enum stats_op op, int err)
{
	return (op == STATS_OP_LOOKUP && err == ENOENT) ||
	       (op == STATS_OP_XATTR && err == ENODATA);
}

void ops_account(fuse_req_t req, enum stats_op op, uint64_t t0, int err,
		 uint64_t bytes)
{
	if (is_miss(op, err))
		err = 0;
	stats_op_record(&fs_of(req)->stats, op, stats_now_ns() - t0, err,
			bytes);
}

void ops_reply_err(fuse_req_t req, enum stats_op op, uint64_t t0, int r)
{
	ops_account(req, op, t0, -r, 0);
	fuse_reply_err(req, -r);
}

/* Reply with @ino, reached as @name in @parent. */
void ops_reply_entry(fuse_req_t req, enum stats_op op, uint64_t t0,
		     uint64_t parent, const char *name, uint64_t ino,
		     const struct ms_inode *in)
{
	struct fuse_entry_param e = {
	    .ino = ino,
	    .attr_timeout = ATTR_TIMEOUT,
	    .entry_timeout = ENTRY_TIMEOUT,
	};
	ns_fill_stat(ino, in, &e.attr);
	inode_table_ref_named(fs_of(req)->itab, ino, parent, name);
	ops_account(req, op, t0, 0, 0);
	fuse_reply_entry(req, &e);
}

void ops_reply_attr(fuse_req_t req, enum stats_op op, uint64_t t0, uint64_t ino,
		    const struct ms_inode *in)
{
	struct stat st;
	ns_fill_stat(ino, in, &st);
	ops_account(req, op, t0, 0, 0);
	fuse_reply_attr(req, &st, ATTR_TIMEOUT);
}

int ops_check_name(const char *name)
{
	return strlen(name) > NS_NAME_MAX ? -ENAMETOOLONG : 0;
}

int ops_txn_end(struct store_txn *t, int r)
{
	return r ? (store_txn_abort(t), r) : store_txn_commit(t);
}

void ops_set_open_flags(struct fs *fs, struct fuse_file_info *fi)
{
	/* Every read and write must reach the array model, as every I/O of
	 * a host reaches an array: no page cache unless asked for. With the
	 * writeback cache the page cache is the client's: what is cached
	 * stays cached across opens (only this mount changes the data). */
	bool cached = fs->cfg.kernel_cache || fs->cfg.writeback_cache;
	fi->direct_io = !cached;
	fi->keep_cache = cached;
}
