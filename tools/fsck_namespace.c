/* fsck of the namespace: directory entries, link counts, orphans,
 * symlinks, xattrs and per-file block counts.
 *
 * Each directory entry is stored twice and both copies must agree:
 *
 *   dirnames   (parent BE, name)   -> (ino, cookie)
 *   dircookies (parent BE, cookie) -> (ino, name)
 *
 * Link counts follow from the entries: a non-directory's nlink is the
 * number of entries naming it; a directory's is 2 + its subdirectories
 * (it is named once, root never; its `parent` is the one naming it). An
 * inode whose nlink reached 0 while still open is in `orphans` until the
 * next mount reaps it: expected after a killed run, so only an info line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/namespace.h"
#include "tools/fsck_i.h"

#define ROOT_INO 1

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

/* "P/name" of an entry, for messages (names are not NUL-terminated). */
static void entry_name(char *buf, size_t len, uint64_t parent, const void *name,
		       size_t nlen)
{
	int n = nlen > NS_NAME_MAX ? NS_NAME_MAX : (int)nlen;
	snprintf(buf, len, "dirent %llu/%.*s", ull(parent), n,
		 (const char *)name);
}

static bool name_ok(const char *name, size_t len)
{
	if (len == 0 || len > NS_NAME_MAX || memchr(name, '/', len) ||
	    memchr(name, '\0', len))
		return false;
	return !(len == 1 && name[0] == '.') &&
	       !(len == 2 && name[0] == '.' && name[1] == '.');
}

/* ---- dirnames -------------------------------------------------------- */

/* The dircookies twin of dirnames entry @parent/@name. */
static void check_cookie_twin(struct fsck *f, const char *what, uint64_t parent,
			      const char *name, size_t nlen,
			      const struct ms_dirent_val *d)
{
	uint8_t kb[16];
	ms_put_be64(kb, parent);
	ms_put_be64(kb + 8, d->cookie);
	MDB_val k = {16, kb}, v;
	int rc = mdb_get(f->txn, metastore_dbi(f->ms, MS_DIRCOOKIES), &k, &v);
	uint64_t ino = 0;
	const size_t head = 8 + MS_SEAL_LEN; /* ino, then the name, a seal */
	if (rc == 0 && v.mv_size >= head)
		memcpy(&ino, v.mv_data, 8);
	if (rc)
		fsck_problem(f, "%s: cookie %llu has no dircookies entry", what,
			     ull(d->cookie));
	else if (ino != d->ino || v.mv_size < head ||
		 v.mv_size - head != nlen ||
		 memcmp((const char *)v.mv_data + 8, name, nlen))
		fsck_problem(f,
			     "%s: dircookies entry of cookie %llu names "
			     "ino %llu '%.*s' instead",
			     what, ull(d->cookie), ull(ino),
			     v.mv_size >= head ? (int)(v.mv_size - head) : 0,
			     v.mv_size >= head ? (const char *)v.mv_data + 8
					       : "");
}

/* What the entry says about the inode it names. */
static void count_link(struct fsck *f, const char *what, uint64_t parent,
		       struct fsck_inode *dir, const struct ms_dirent_val *d)
{
	struct fsck_inode *child = fsck_inode(f, d->ino);
	if (!child) {
		fsck_problem(f, "%s: points at ino %llu, which does not exist",
			     what, ull(d->ino));
		return;
	}
	child->names++;
	if (!S_ISDIR(child->in.mode))
		return;
	if (dir)
		dir->subdirs++;
	if (child->in.parent != parent)
		fsck_problem(f,
			     "directory %llu: parent is %llu, but %s names "
			     "it",
			     ull(d->ino), ull(child->in.parent), what);
}

static int check_dirname(struct fsck *f, const MDB_val *k, const MDB_val *v,
			 void *ctx)
{
	if (k->mv_size <= 8 ||
	    v->mv_size != sizeof(struct ms_dirent_val) + MS_SEAL_LEN) {
		fsck_problem(f,
			     "dirnames: record with a %zu-byte key and a "
			     "%zu-byte value (want > 8 and %zu)",
			     k->mv_size, v->mv_size,
			     sizeof(struct ms_dirent_val) + MS_SEAL_LEN);
		return 0;
	}
	uint64_t parent = ms_get_be64(k->mv_data);
	const char *name = (const char *)k->mv_data + 8;
	size_t nlen = k->mv_size - 8;
	struct ms_dirent_val d;
	memcpy(&d, v->mv_data, sizeof(d));
	char what[NS_NAME_MAX + 40];
	entry_name(what, sizeof(what), parent, name, nlen);
	if (!name_ok(name, nlen))
		fsck_problem(f, "%s: not a valid name", what);
	struct fsck_inode *dir = fsck_inode(f, parent);
	if (!dir || !S_ISDIR(dir->in.mode)) {
		fsck_problem(f, "%s: parent %llu is %s", what, ull(parent),
			     dir ? "not a directory" : "missing");
		dir = NULL;
	} else {
		dir->entries++;
		if (d.cookie < NS_FIRST_COOKIE ||
		    d.cookie >= dir->in.next_cookie)
			fsck_problem(f,
				     "%s: cookie %llu outside [%u, %llu) "
				     "of its directory",
				     what, ull(d.cookie), NS_FIRST_COOKIE,
				     ull(dir->in.next_cookie));
	}
	check_cookie_twin(f, what, parent, name, nlen, &d);
	count_link(f, what, parent, dir, &d);
	return 0;
}

/* ---- dircookies ---------------------------------------------------------- */

static int check_dircookie(struct fsck *f, const MDB_val *k, const MDB_val *v,
			   void *ctx)
{
	if (k->mv_size != 16 || v->mv_size <= 8 + MS_SEAL_LEN ||
	    v->mv_size > 8 + NS_NAME_MAX + MS_SEAL_LEN) {
		fsck_problem(f,
			     "dircookies: record with a %zu-byte key and a "
			     "%zu-byte value (want 16 and %u..%u)",
			     k->mv_size, v->mv_size, 9 + MS_SEAL_LEN,
			     8 + NS_NAME_MAX + MS_SEAL_LEN);
		return 0;
	}
	uint64_t parent = ms_get_be64(k->mv_data);
	uint64_t cookie = ms_get_be64((const uint8_t *)k->mv_data + 8);
	uint64_t ino;
	memcpy(&ino, v->mv_data, 8);
	uint8_t kb[8 + NS_NAME_MAX];
	size_t nlen = v->mv_size - 8 - MS_SEAL_LEN;
	ms_put_be64(kb, parent);
	memcpy(kb + 8, (const char *)v->mv_data + 8, nlen);
	MDB_val nk = {8 + nlen, kb}, nv;
	int rc = mdb_get(f->txn, metastore_dbi(f->ms, MS_DIRNAMES), &nk, &nv);
	struct ms_dirent_val d = {0};
	if (rc == 0 && nv.mv_size == sizeof(d) + MS_SEAL_LEN)
		memcpy(&d, nv.mv_data, sizeof(d));
	/* A mismatch with an existing dirnames entry is reported from the
	 * dirnames side; here only what that side cannot see. */
	if (rc)
		fsck_problem(f,
			     "dircookie %llu/%llu: names ino %llu '%.*s', "
			     "which has no dirnames entry",
			     ull(parent), ull(cookie), ull(ino), (int)nlen,
			     (const char *)v->mv_data + 8);
	else if (d.cookie != cookie)
		fsck_problem(f,
			     "dircookie %llu/%llu: names '%.*s', whose "
			     "dirnames entry has cookie %llu",
			     ull(parent), ull(cookie), (int)nlen,
			     (const char *)v->mv_data + 8, ull(d.cookie));
	return 0;
}

/* ---- orphans, symlinks, xattrs ----------------------------------------------
 */

static int check_orphan(struct fsck *f, const MDB_val *k, const MDB_val *v,
			void *ctx)
{
	uint64_t ino;
	if (k->mv_size != sizeof(ino)) {
		fsck_problem(f, "orphans: record with a %zu-byte key (want 8)",
			     k->mv_size);
		return 0;
	}
	memcpy(&ino, k->mv_data, sizeof(ino));
	struct fsck_inode *fi = fsck_inode(f, ino);
	if (!fi) {
		fsck_problem(f, "orphan %llu: no such inode", ull(ino));
		uint64_t *grown =
		    realloc(f->stale, (f->nstale + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		f->stale = grown;
		f->stale[f->nstale++] = ino;
		return 0;
	}
	fi->orphan = true;
	if (fi->in.nlink)
		fsck_info(f,
			  "ino %llu: a truncation cut short by an unclean "
			  "stop; the next mount finishes it",
			  ull(ino));
	else
		fsck_info(f,
			  "ino %llu: unlinked while open (an orphan of an "
			  "unclean stop); the next mount deletes it",
			  ull(ino));
	return 0;
}

static int check_symlink(struct fsck *f, const MDB_val *k, const MDB_val *v,
			 void *ctx)
{
	uint64_t ino;
	if (k->mv_size != sizeof(ino)) {
		fsck_problem(f, "symlinks: record with a %zu-byte key (want 8)",
			     k->mv_size);
		return 0;
	}
	memcpy(&ino, k->mv_data, sizeof(ino));
	struct fsck_inode *fi = fsck_inode(f, ino);
	if (!fi || !S_ISLNK(fi->in.mode)) {
		fsck_problem(f, "symlink target of ino %llu, which %s",
			     ull(ino),
			     fi ? "is not a symlink" : "does not exist");
		return 0;
	}
	fi->symlink = true;
	size_t len = v->mv_size - MS_SEAL_LEN; /* sealed: see fsck_walk */
	if (len != fi->in.size || len == 0 || len > NS_SYMLINK_MAX)
		fsck_problem(f,
			     "symlink %llu: target is %zu bytes, but its "
			     "size is %llu",
			     ull(ino), len, ull(fi->in.size));
	return 0;
}

static int check_xattr(struct fsck *f, const MDB_val *k, const MDB_val *v,
		       void *ctx)
{
	if (k->mv_size <= 8) {
		fsck_problem(f, "xattrs: record with a %zu-byte key (want > 8)",
			     k->mv_size);
		return 0;
	}
	uint64_t ino = ms_get_be64(k->mv_data);
	if (!fsck_inode(f, ino))
		fsck_problem(f,
			     "xattr '%.*s' of ino %llu, which does not "
			     "exist",
			     (int)(k->mv_size - 8),
			     (const char *)k->mv_data + 8, ull(ino));
	return 0;
}

/* ---- per inode --------------------------------------------------------------
 */

static void check_dir_links(struct fsck *f, const struct fsck_inode *fi)
{
	const struct ms_inode *in = &fi->in;
	uint64_t names_want = fi->ino == ROOT_INO || !in->nlink ? 0 : 1;
	if (fi->names != names_want)
		fsck_problem(f,
			     "directory %llu: named by %llu directory "
			     "entries, want %llu",
			     ull(fi->ino), ull(fi->names), ull(names_want));
	if (!in->nlink) {
		if (fi->entries)
			fsck_problem(f,
				     "directory %llu: removed (nlink 0), "
				     "but holds %llu entries",
				     ull(fi->ino), ull(fi->entries));
		return;
	}
	if (in->nlink != 2 + fi->subdirs)
		fsck_problem(f,
			     "directory %llu: nlink %u, but it has %llu "
			     "subdirectories (want %llu)",
			     ull(fi->ino), in->nlink, ull(fi->subdirs),
			     ull(2 + fi->subdirs));
}

static void check_file(struct fsck *f, const struct fsck_inode *fi)
{
	const struct ms_inode *in = &fi->in;
	if (S_ISDIR(in->mode))
		check_dir_links(f, fi);
	else if (in->nlink != fi->names)
		fsck_problem(f, "ino %llu: nlink %u, but %llu directory %s it",
			     ull(fi->ino), in->nlink, ull(fi->names),
			     fi->names == 1 ? "entry names" : "entries name");
	if (in->nlink == 0 && !fi->orphan)
		fsck_problem(f,
			     "ino %llu: nlink 0, but not in orphans (never "
			     "deleted)",
			     ull(fi->ino));
	if (fi->past_eof && !fi->orphan)
		fsck_problem(f,
			     "ino %llu: %llu block-map %s past its size %llu "
			     "(first at block %llu)",
			     ull(fi->ino), ull(fi->past_eof),
			     fi->past_eof == 1 ? "entry" : "entries",
			     ull(in->size), ull(fi->first_past));
	if (S_ISREG(in->mode) && in->nblocks != fi->mapped)
		fsck_problem(f,
			     "ino %llu: nblocks %llu, but %llu block-map "
			     "entries",
			     ull(fi->ino), ull(in->nblocks), ull(fi->mapped));
	if (S_ISLNK(in->mode) && !fi->symlink)
		fsck_problem(f, "symlink %llu: no target record", ull(fi->ino));
	if (fi->ino == 0)
		fsck_problem(f, "ino 0: an inode record (0 is never handed "
				"out)");
}

static void check_root(struct fsck *f)
{
	const struct fsck_inode *root = fsck_inode(f, ROOT_INO);
	if (!root)
		fsck_problem(f, "ino 1: the root directory is missing");
	else if (!S_ISDIR(root->in.mode))
		fsck_problem(f, "ino 1: the root is not a directory (mode %o)",
			     root->in.mode);
	else if (root->in.parent != ROOT_INO)
		fsck_problem(f, "ino 1: the root's parent is %llu, not 1",
			     ull(root->in.parent));
}

int fsck_check_namespace(struct fsck *f)
{
	static const struct {
		enum ms_table t;
		fsck_record_fn fn;
	} walks[] = {
	    {MS_DIRNAMES, check_dirname}, {MS_DIRCOOKIES, check_dircookie},
	    {MS_ORPHANS, check_orphan},	  {MS_SYMLINKS, check_symlink},
	    {MS_XATTRS, check_xattr},
	};
	check_root(f);
	for (size_t i = 0; i < sizeof(walks) / sizeof(walks[0]); i++) {
		int r = fsck_walk(f, walks[i].t, walks[i].fn, NULL);
		if (r)
			return r;
	}
	for (size_t i = 0; i < f->ninodes; i++)
		check_file(f, &f->inodes[i]);
	return 0;
}
