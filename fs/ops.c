/* The FUSE low-level operations table of arraysim: where every request
 * enters. One file per family of ops (fs/ops_entry.c, ops_names.c,
 * ops_io.c, ops_dir.c, ops_xattr.c); each op decodes its request, calls
 * the datastore, accounts and replies, through the shared reply helpers of
 * fs/ops_reply.c (declared in fs/ops_i.h). Here: what the session asks of
 * the kernel (op_init) and the table. */
#include "fs/ops_i.h"

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	struct fs *fs = userdata;
	/* A client's page cache (a guest's, an NFS client's): buffered
	 * writes reach the array coalesced, as pages written back. Every
	 * kernel since 3.15 offers it; without it the mount says off. */
	fs->cfg.writeback_cache &=
	    (conn->capable & FUSE_CAP_WRITEBACK_CACHE) != 0;
	if (fs->cfg.writeback_cache)
		conn->want |= FUSE_CAP_WRITEBACK_CACHE;
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
	 * see fio's iodepth=32 (fs/ops.h says why this many). */
	conn->max_background = FS_MAX_BACKGROUND;
	conn->congestion_threshold = FS_MAX_BACKGROUND * 3 / 4;
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
