/* The FUSE low-level operations table of arraysim: where every request
 * enters. One file per family of ops (fs/ops_entry.c, ops_names.c,
 * ops_io.c, ops_dir.c, ops_xattr.c); each op decodes its request, calls
 * the datastore, accounts and replies. The shared reply helpers are here
 * (fs/ops_i.h). */
#include "fs/ops_i.h"

#include <errno.h>
#include <string.h>

#include "store/datapath.h"
#include "fs/inode_table.h"
#include "store/namespace.h"

void ops_account(fuse_req_t req, enum stats_op op, uint64_t t0, int err,
		 uint64_t bytes)
{
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
	 * a host reaches an array: no page cache unless asked for. */
	fi->direct_io = !fs->cfg.kernel_cache;
	fi->keep_cache = fs->cfg.kernel_cache;
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	conn->want &= ~(unsigned)FUSE_CAP_READDIRPLUS;
	if (conn->capable & FUSE_CAP_ASYNC_DIO)
		conn->want |= FUSE_CAP_ASYNC_DIO;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	/* Large requests: a 1 MiB write is one request, as it is to an array
	 * on the other end of a SCSI or NFS link. */
	conn->max_write = 1u << 20;
	conn->max_readahead = 1u << 20;
	/* Asynchronous direct I/O counts as background requests, which the
	 * kernel holds to 12 in flight by default: a timed array would never
	 * see fio's iodepth=32. Allow what a real array's queues take from
	 * many hosts (the Infinidat report's load kept about 1200
	 * outstanding: tiers/profiles/infinidat-6303.ini). A request waits
	 * in the array model, not in a thread, so the count costs memory
	 * only. */
	conn->max_background = 2048;
	conn->congestion_threshold = 1536;
}

const struct fuse_lowlevel_ops fs_ops = {
    .init = op_init,
    .lookup = op_lookup,
    .forget = op_forget,
    .forget_multi = op_forget_multi,
    .getattr = op_getattr,
    .setattr = op_setattr,
    .readlink = op_readlink,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_rmdir,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .open = op_open,
    .read = op_read,
    .write = op_write,
    .flush = op_flush,
    .release = op_release,
    .fsync = op_fsync,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .releasedir = op_releasedir,
    .fsyncdir = op_fsyncdir,
    .statfs = op_statfs,
    .setxattr = op_setxattr,
    .getxattr = op_getxattr,
    .listxattr = op_listxattr,
    .removexattr = op_removexattr,
    .create = op_create,
    .fallocate = op_fallocate,
};
