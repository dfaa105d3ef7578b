/* What every fsck check shares (tools/fsck_i.h): the problem, warning and
 * info lines, the walk over one table, and the inode array (loaded first,
 * sorted by ino, found by bsearch). The checks call down to here; nothing
 * here calls a check. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools/commands.h"
#include "tools/fsck_i.h"

/* ---- output ------------------------------------------------------------ */

static void vline(struct fsck *f, const char *prefix, const char *fmt,
		  va_list ap)
{
	fputs(prefix, f->out);
	vfprintf(f->out, fmt, ap);
	fputc('\n', f->out);
}

void fsck_problem(struct fsck *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (!f->silent)
		vline(f, f->prefix ? f->prefix : "", fmt, ap);
	va_end(ap);
	f->problems++;
}

void fsck_warn(struct fsck *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(f, "warning: ", fmt, ap);
	va_end(ap);
	f->warnings++;
}

void fsck_info(struct fsck *f, const char *fmt, ...)
{
	if (f->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vline(f, "info: ", fmt, ap);
	va_end(ap);
}

/* ---- table walks and the inode array ------------------------------------ */

/* A record whose seal fails is reported once and then skipped by every
 * check: its bytes cannot be trusted to say anything. */
static void seal_problem(struct fsck *f, enum ms_table t, const MDB_val *k)
{
	char what[128];
	ms_record_name(t, k, what, sizeof(what));
	fsck_problem(f, "%s: record of %s fails its checksum (damaged)",
		     metastore_table_name(t), what);
	f->sealed_bad++;
	f->bmap_damaged |= t == MS_BMAP;
}

int fsck_walk(struct fsck *f, enum ms_table t, fsck_record_fn fn, void *ctx)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(f->txn, metastore_dbi(f->ms, t), &cur);
	MDB_val k, v;
	int r = 0;
	bool first_walk = !f->walked[t];
	for (rc = rc ? rc : mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (ms_table_sealed(t) && !ms_sealed(t, &k, &v)) {
			if (first_walk)
				seal_problem(f, t, &k);
			continue;
		}
		r = fn(f, &k, &v, ctx);
		if (r)
			break;
	}
	mdb_cursor_close(cur);
	f->walked[t] = true;
	if (r || rc == MDB_NOTFOUND)
		return r;
	tool_error("store %s: table %s: %s", f->store, metastore_table_name(t),
		   mdb_strerror(rc));
	return metastore_errno(rc);
}

static int cmp_ino(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key;
	uint64_t b = ((const struct fsck_inode *)elem)->ino;
	return (a > b) - (a < b);
}

struct fsck_inode *fsck_inode(const struct fsck *f, uint64_t ino)
{
	return bsearch(&ino, f->inodes, f->ninodes, sizeof(*f->inodes),
		       cmp_ino);
}

struct inode_load {
	size_t cap;
};

static int load_one_inode(struct fsck *f, const MDB_val *k, const MDB_val *v,
			  void *ctx)
{
	struct inode_load *l = ctx;
	uint64_t ino;
	if (k->mv_size != sizeof(ino) ||
	    v->mv_size != sizeof(struct ms_inode) + MS_SEAL_LEN) {
		fsck_problem(f,
			     "inodes: record with a %zu-byte key and a "
			     "%zu-byte value (want %zu and %zu)",
			     k->mv_size, v->mv_size, sizeof(ino),
			     sizeof(struct ms_inode) + MS_SEAL_LEN);
		return 0;
	}
	memcpy(&ino, k->mv_data, sizeof(ino));
	if (f->ninodes == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		void *grown = realloc(f->inodes, cap * sizeof(*f->inodes));
		if (!grown) {
			tool_error("fsck: out of memory for %zu inodes", cap);
			return -ENOMEM;
		}
		f->inodes = grown;
		l->cap = cap;
	}
	struct fsck_inode *fi = &f->inodes[f->ninodes++];
	*fi = (struct fsck_inode){.ino = ino};
	memcpy(&fi->in, v->mv_data, sizeof(fi->in));
	return 0;
}

/* MDB_INTEGERKEY: the cursor hands inodes out sorted, ready for bsearch. */
int fsck_load_inodes(struct fsck *f)
{
	struct inode_load l = {0};
	return fsck_walk(f, MS_INODES, load_one_inode, &l);
}
