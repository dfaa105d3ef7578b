/* Private to the FUSE ops files (fs/ops*.c): the request's front end, the
 * reply helpers every op ends in (fs/ops_reply.c), and the ops themselves
 * for the table in fs/ops.c. Every reply helper also accounts the op
 * (common/stats.h). */
#ifndef ARRAYSIM_FS_OPS_I_H
#define ARRAYSIM_FS_OPS_I_H

#include <stdbool.h>
#include <sys/stat.h>

#include "fs/channel.h"
#include "fs/open_reply.h"
#include "fs/ops.h"

struct store_txn;

#define ATTR_TIMEOUT 1.0
#define ENTRY_TIMEOUT 1.0

static inline struct fs *fs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/* Record @op, started at @t0, in the counters: @err a positive errno. */
void ops_account(fuse_req_t req, enum stats_op op, uint64_t t0, int err,
		 uint64_t bytes);
/* Reply @r (0 or -errno) with no data. */
void ops_reply_err(fuse_req_t req, enum stats_op op, uint64_t t0, int r);
/* Reply with @ino, reached as @name in @parent: one kernel lookup more. */
void ops_reply_entry(fuse_req_t req, enum stats_op op, uint64_t t0,
		     uint64_t parent, const char *name, uint64_t ino,
		     const struct ms_inode *in);
void ops_reply_attr(fuse_req_t req, enum stats_op op, uint64_t t0, uint64_t ino,
		    const struct ms_inode *in);
/* -ENAMETOOLONG past NS_NAME_MAX. */
int ops_check_name(const char *name);
/* End transaction @t: commit if @r is 0, else abort; the result. */
int ops_txn_end(struct store_txn *t, int r);
/* Direct I/O unless --kernel-cache. */
void ops_set_open_flags(struct fs *fs, struct fuse_file_info *fi);
/* One setattr transaction (fs/ops_entry.c), also an O_TRUNC open's. */
int ops_setattr_txn(struct fs *fs, uint64_t ino, const struct stat *attr,
		    int to_set, struct ms_inode *in);

/* Whether @req's caller must lose set-ID bits it changes (a write, a
 * truncate; a chown always): the kernel's flag under
 * FUSE_HANDLE_KILLPRIV_V2, else (an older kernel, libfuse's v1) a guess
 * from the caller's uid. */
static inline bool ops_kill_suidgid(fuse_req_t req, bool chown)
{
	if (channel_killpriv_v2())
		return open_reply_kill_suidgid();
	return chown || fuse_req_ctx(req)->uid != 0;
}

/* fs/ops_entry.c */
void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void op_forget_multi(fuse_req_t req, size_t count,
		     struct fuse_forget_data *forgets);
void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
		struct fuse_file_info *fi);
void op_statfs(fuse_req_t req, fuse_ino_t ino);

/* fs/ops_names.c */
void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	      dev_t rdev);
void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		const char *name);
void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	       struct fuse_file_info *fi);
void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
	     const char *newname);
void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
	       fuse_ino_t newparent, const char *newname, unsigned int flags);
void op_readlink(fuse_req_t req, fuse_ino_t ino);

/* fs/ops_io.c */
void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
	     struct fuse_file_info *fi);
void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
	      off_t off, struct fuse_file_info *fi);
void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
	      struct fuse_file_info *fi);
void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t off,
		  off_t len, struct fuse_file_info *fi);

/* fs/ops_dir.c */
void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		struct fuse_file_info *fi);
void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		 struct fuse_file_info *fi);

/* fs/ops_xattr.c */
void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		 const char *value, size_t size, int flags);
void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);
void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);

#endif
