/* FUSE ops of directories: opendir, readdir (".", ".." and then the
 * entries in readdir-cookie order), releasedir, fsyncdir. */
#include "fs/ops_i.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs/fault_gate.h"
#include "store/namespace.h"

void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_open(req, fi);
}

struct dir_fill {
	fuse_req_t req;
	struct fs *fs;
	MDB_txn *txn;
	char *buf;
	size_t size, used;
	int err;
};

static bool fill_one(struct dir_fill *d, const char *name, uint64_t ino,
		     uint32_t mode, off_t next)
{
	struct stat st = {.st_ino = ino, .st_mode = mode};
	size_t need = fuse_add_direntry(d->req, NULL, 0, name, NULL, 0);
	if (d->used + need > d->size)
		return false;
	fuse_add_direntry(d->req, d->buf + d->used, d->size - d->used, name,
			  &st, next);
	d->used += need;
	return true;
}

static int fill_entry(void *ctx, const char *name, size_t len, uint64_t ino,
		      uint64_t cookie)
{
	struct dir_fill *d = ctx;
	char nm[NS_NAME_MAX + 1];
	struct ms_inode in;
	if (len > NS_NAME_MAX) {
		d->err = -EIO;
		return 1;
	}
	memcpy(nm, name, len);
	nm[len] = '\0';
	d->err = ns_inode_get(store_ms(d->fs->st), d->txn, ino, &in);
	if (d->err)
		return 1;
	return !fill_one(d, nm, ino, in.mode, (off_t)cookie + 1);
}

void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		struct fuse_file_info *fi)
{
	uint64_t t0 = stats_now_ns();
	struct fs *fs = fs_of(req);
	struct dir_fill d = {.req = req, .fs = fs, .size = size};
	int r = fault_gate_meta(fs, FOP_READDIR, ino, 0, NULL);
	if (r)
		return ops_reply_err(req, STATS_OP_READDIR, t0, r);
	d.buf = malloc(size);
	r = d.buf ? metastore_txn_begin(store_ms(fs->st), false, &d.txn)
		  : -ENOMEM;
	struct ms_inode dir;
	if (!r)
		r = ns_inode_get(store_ms(fs->st), d.txn, ino, &dir);
	if (!r && off < 1 && !fill_one(&d, ".", ino, S_IFDIR, 1))
		off = -1;
	if (!r && off >= 0 && off < 2 &&
	    !fill_one(&d, "..", dir.parent, S_IFDIR, 2))
		off = -1;
	if (!r && off >= 0) {
		uint64_t from =
		    off < NS_FIRST_COOKIE ? NS_FIRST_COOKIE : (uint64_t)off;
		r = ns_dir_iterate(store_ms(fs->st), d.txn, ino, from,
				   fill_entry, &d);
		if (!r)
			r = d.err;
	}
	metastore_txn_abort(d.txn);
	if (r) {
		free(d.buf);
		return ops_reply_err(req, STATS_OP_READDIR, t0, r);
	}
	ops_account(req, STATS_OP_READDIR, t0, 0, 0);
	fuse_reply_buf(req, d.buf, d.used);
	free(d.buf);
}

void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	fuse_reply_err(req, 0);
}

void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		 struct fuse_file_info *fi)
{
	op_fsync(req, ino, datasync, fi);
}
