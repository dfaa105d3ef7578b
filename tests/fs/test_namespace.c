/* namespace: the datastore's name algorithms (store/names.c) and orphans
 * (store/orphans.c), on a datastore opened with fs_open() in a temporary
 * directory, with no FUSE involved: each step is one transaction, as an op
 * would run it.
 *
 * What the algorithms promise, and how each test checks it:
 *   - a rename moves the name (plain), swaps two (exchange), refuses an
 *     existing target (RENAME_NOREPLACE) and a directory moved into its
 *     own subtree (EINVAL), and replaces a target as an unlink would;
 *   - link counts are POSIX's: a directory 2 + its subdirectories, a file
 *     one per name, followed by every make, link, remove and rename;
 *   - an unlinked file the kernel still holds stays, an orphan, with its
 *     blocks; once nothing holds it, store_reap_orphans deletes it and frees
 *     them;
 *   - attrs_set applies only the fields its mask names, refuses a size on
 *     anything but a file, and always moves ctime; xattr changes move it
 *     too; a fallocate extends a file without storing a block.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <cmocka.h>

#include "meta/metastore.h"
#include "store/attrs.h"
#include "store/datapath.h"
#include "fs/fs_open.h"
#include "fs/inode_table.h"
#include "store/names.h"
#include "store/namespace.h"
#include "store/orphans.h"
#include "tests/common/t_tmpdir.h"

#define ROOT NS_ROOT_INO

struct t_ctx {
	char dir[64];
	struct fs fs;
};

/* ---- setup ------------------------------------------------------------- */

static int t_setup(void **state)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	struct fs_config cfg = {.seed = 1, .verify = true};

	if (!t || t_fs_open(t->dir, sizeof(t->dir), "ns", &t->fs, &cfg)) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int t_teardown(void **state)
{
	struct t_ctx *t = *state;

	t_fs_close(t->dir, &t->fs);
	free(t);
	return 0;
}

/* ---- helpers: one transaction each, as an op runs it ------------------- */

static int t_end(struct store_txn *x, int r)
{
	return r ? (store_txn_abort(x), r) : store_txn_commit(x);
}

/* Make @name in @parent with @mode; 0 or -errno, the inode in *ino. */
static int t_make(struct t_ctx *t, uint64_t parent, const char *name,
		  uint32_t mode, uint64_t *ino)
{
	struct store_txn x;
	struct ms_inode in;
	struct names_node nn = {.mode = mode};

	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	return t_end(&x, names_make(&x, parent, name, &nn, ino, &in));
}

static uint64_t t_file(struct t_ctx *t, uint64_t parent, const char *name)
{
	uint64_t ino = 0;

	assert_int_equal(t_make(t, parent, name, S_IFREG | 0644, &ino), 0);
	return ino;
}

static uint64_t t_dir(struct t_ctx *t, uint64_t parent, const char *name)
{
	uint64_t ino = 0;

	assert_int_equal(t_make(t, parent, name, S_IFDIR | 0755, &ino), 0);
	return ino;
}

static int t_link(struct t_ctx *t, uint64_t ino, uint64_t parent,
		  const char *name)
{
	struct store_txn x;
	struct ms_inode in;

	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	return t_end(&x, names_link(&x, ino, parent, name, &in));
}

static int t_remove(struct t_ctx *t, uint64_t parent, const char *name,
		    bool dir, uint64_t *victim)
{
	struct store_txn x;

	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	return t_end(&x, names_remove(&x, parent, name, dir, victim));
}

static int t_rename(struct t_ctx *t, uint64_t parent, const char *name,
		    uint64_t newparent, const char *newname, unsigned flags,
		    struct names_renamed *res)
{
	struct store_txn x;
	struct names_rename a = {parent, newparent, name, newname, flags};

	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	return t_end(&x, names_rename(&x, &a, res));
}

/* The inode @name in @parent is, or 0 if there is none. */
static uint64_t t_lookup(struct t_ctx *t, uint64_t parent, const char *name)
{
	MDB_txn *txn;
	uint64_t ino = 0;

	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	int r = ns_dirent_lookup(store_ms(t->fs.st), txn, parent, name, &ino);
	metastore_txn_abort(txn);
	if (r)
		assert_int_equal(r, -ENOENT);
	return r ? 0 : ino;
}

/* Inode @ino into *in; 0 or -ENOENT. */
static int t_inode(struct t_ctx *t, uint64_t ino, struct ms_inode *in)
{
	MDB_txn *txn;

	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	int r = ns_inode_get(store_ms(t->fs.st), txn, ino, in);
	metastore_txn_abort(txn);
	return r;
}

static uint32_t t_nlink(struct t_ctx *t, uint64_t ino)
{
	struct ms_inode in;

	assert_int_equal(t_inode(t, ino, &in), 0);
	return in.nlink;
}

static size_t t_orphans(struct t_ctx *t)
{
	MDB_txn *txn;
	MDB_stat st;

	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	assert_int_equal(
	    mdb_stat(txn, metastore_dbi(store_ms(t->fs.st), MS_ORPHANS), &st),
	    0);
	metastore_txn_abort(txn);
	return st.ms_entries;
}

static struct ms_counters t_counters(struct t_ctx *t)
{
	MDB_txn *txn;
	struct ms_counters c;

	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), false, &txn),
			 0);
	assert_int_equal(metastore_counters_get(store_ms(t->fs.st), txn, &c),
			 0);
	metastore_txn_abort(txn);
	return c;
}

/* ---- rename ------------------------------------------------------------ */

static void test_rename_plain_moves_the_name(void **state)
{
	struct t_ctx *t = *state;
	uint64_t d = t_dir(t, ROOT, "d"), a = t_file(t, ROOT, "a");
	struct names_renamed res;

	assert_int_equal(t_rename(t, ROOT, "a", d, "b", 0, &res), 0);
	assert_int_equal(res.src, a);
	assert_int_equal(res.dst, 0);
	assert_false(res.replaced);
	assert_int_equal(t_lookup(t, ROOT, "a"), 0);
	assert_int_equal(t_lookup(t, d, "b"), a);
	assert_int_equal(t_nlink(t, a), 1);
	assert_int_equal(t_rename(t, ROOT, "a", d, "c", 0, &res), -ENOENT);
}

static void test_rename_over_a_file_drops_it(void **state)
{
	struct t_ctx *t = *state;
	uint64_t a = t_file(t, ROOT, "a"), b = t_file(t, ROOT, "b");
	struct names_renamed res;
	struct ms_inode in;

	assert_int_equal(t_rename(t, ROOT, "a", ROOT, "b", 0, &res), 0);
	assert_true(res.replaced);
	assert_int_equal(res.dst, b);
	assert_int_equal(t_lookup(t, ROOT, "b"), a);
	assert_int_equal(t_nlink(t, b), 0);
	assert_int_equal(t_orphans(t), 1);
	/* The op then trims it: nothing holds it, so it goes. */
	assert_int_equal(store_trim(t->fs.st, b), 0);
	assert_int_equal(t_inode(t, b, &in), -ENOENT);
	assert_int_equal(t_orphans(t), 0);
}

static void test_rename_two_names_of_one_inode_is_a_noop(void **state)
{
	struct t_ctx *t = *state;
	uint64_t a = t_file(t, ROOT, "a");
	struct names_renamed res;

	assert_int_equal(t_link(t, a, ROOT, "b"), 0);
	assert_int_equal(t_rename(t, ROOT, "a", ROOT, "b", 0, &res), 0);
	assert_true(res.noop);
	assert_int_equal(t_lookup(t, ROOT, "a"), a);
	assert_int_equal(t_lookup(t, ROOT, "b"), a);
	assert_int_equal(t_nlink(t, a), 2);
}

static void test_rename_exchange_swaps(void **state)
{
	struct t_ctx *t = *state;
	uint64_t d1 = t_dir(t, ROOT, "d1"), d2 = t_dir(t, ROOT, "d2");
	uint64_t f = t_file(t, d1, "f"), sub = t_dir(t, d2, "sub");
	struct names_renamed res;
	struct ms_inode in;

	assert_int_equal(t_nlink(t, d1), 2);
	assert_int_equal(t_nlink(t, d2), 3);
	assert_int_equal(t_rename(t, d1, "f", d2, "sub", RENAME_EXCHANGE, &res),
			 0);
	assert_false(res.replaced);
	assert_int_equal(t_lookup(t, d1, "f"), sub);
	assert_int_equal(t_lookup(t, d2, "sub"), f);
	/* The directory moved: its ".." and one link follow it. */
	assert_int_equal(t_inode(t, sub, &in), 0);
	assert_int_equal(in.parent, d1);
	assert_int_equal(t_nlink(t, d1), 3);
	assert_int_equal(t_nlink(t, d2), 2);
	assert_int_equal(t_nlink(t, f), 1);
	assert_int_equal(
	    t_rename(t, d1, "f", d2, "none", RENAME_EXCHANGE, &res), -ENOENT);
}

static void test_rename_noreplace_and_flags(void **state)
{
	struct t_ctx *t = *state;
	uint64_t a = t_file(t, ROOT, "a"), b = t_file(t, ROOT, "b");
	struct names_renamed res;

	assert_int_equal(
	    t_rename(t, ROOT, "a", ROOT, "b", RENAME_NOREPLACE, &res), -EEXIST);
	assert_int_equal(t_lookup(t, ROOT, "a"), a);
	assert_int_equal(t_lookup(t, ROOT, "b"), b);
	assert_int_equal(t_rename(t, ROOT, "a", ROOT, "b",
				  RENAME_NOREPLACE | RENAME_EXCHANGE, &res),
			 -EINVAL);
	assert_int_equal(names_rename_flags(RENAME_NOREPLACE), 0);
	assert_int_equal(names_rename_flags(RENAME_EXCHANGE), 0);
	assert_int_equal(names_rename_flags(1u << 30), -EINVAL);
	assert_int_equal(
	    t_rename(t, ROOT, "a", ROOT, "c", RENAME_NOREPLACE, &res), 0);
	assert_int_equal(t_lookup(t, ROOT, "c"), a);
}

static void test_rename_into_own_subtree_is_einval(void **state)
{
	struct t_ctx *t = *state;
	uint64_t d = t_dir(t, ROOT, "d"), e = t_dir(t, d, "e");
	uint64_t f = t_dir(t, e, "f"), other = t_dir(t, ROOT, "o");
	struct names_renamed res;

	assert_int_equal(t_rename(t, ROOT, "d", f, "x", 0, &res), -EINVAL);
	assert_int_equal(t_rename(t, ROOT, "d", d, "x", 0, &res), -EINVAL);
	assert_int_equal(t_rename(t, ROOT, "o", e, "f", RENAME_EXCHANGE, &res),
			 0);
	assert_int_equal(t_lookup(t, e, "f"), other);
	/* Exchanging d with a name below it would put d under itself. */
	assert_int_equal(t_rename(t, ROOT, "d", e, "f", RENAME_EXCHANGE, &res),
			 -EINVAL);
	assert_int_equal(t_lookup(t, ROOT, "d"), d);
	assert_int_equal(t_lookup(t, ROOT, "o"), f);
}

static void test_rename_dir_kinds_must_match(void **state)
{
	struct t_ctx *t = *state;
	struct names_renamed res;

	t_dir(t, ROOT, "d");
	t_dir(t, ROOT, "full");
	t_file(t, ROOT, "f");
	t_file(t, t_lookup(t, ROOT, "full"), "x");
	assert_int_equal(t_rename(t, ROOT, "d", ROOT, "f", 0, &res), -ENOTDIR);
	assert_int_equal(t_rename(t, ROOT, "f", ROOT, "d", 0, &res), -EISDIR);
	assert_int_equal(t_rename(t, ROOT, "d", ROOT, "full", 0, &res),
			 -ENOTEMPTY);
	uint64_t root_links = t_nlink(t, ROOT);
	uint64_t e = t_dir(t, ROOT, "e");
	assert_int_equal(t_nlink(t, ROOT), root_links + 1);
	assert_int_equal(t_rename(t, ROOT, "d", ROOT, "e", 0, &res), 0);
	assert_true(res.replaced);
	assert_int_equal(t_nlink(t, e), 0);
	assert_int_equal(t_nlink(t, ROOT), root_links);
}

/* ---- link counts -------------------------------------------------------- */

static void test_link_counts(void **state)
{
	struct t_ctx *t = *state;
	uint32_t root0 = t_nlink(t, ROOT);
	uint64_t d = t_dir(t, ROOT, "d"), victim = 0;

	assert_int_equal(t_nlink(t, ROOT), root0 + 1);
	assert_int_equal(t_nlink(t, d), 2);
	uint64_t f = t_file(t, d, "f");
	assert_int_equal(t_nlink(t, d), 2); /* files do not count */
	assert_int_equal(t_link(t, f, ROOT, "g"), 0);
	assert_int_equal(t_nlink(t, f), 2);
	assert_int_equal(t_link(t, f, ROOT, "g"), -EEXIST);
	assert_int_equal(t_link(t, d, ROOT, "d2"), -EPERM);
	assert_int_equal(t_link(t, f, f, "x"), -ENOTDIR);
	assert_int_equal(t_make(t, ROOT, "g", S_IFREG | 0644, &victim),
			 -EEXIST);

	assert_int_equal(t_remove(t, d, "f", true, &victim), -ENOTDIR);
	assert_int_equal(t_remove(t, ROOT, "d", false, &victim), -EISDIR);
	assert_int_equal(t_remove(t, ROOT, "d", true, &victim), -ENOTEMPTY);
	assert_int_equal(t_remove(t, d, "f", false, &victim), 0);
	assert_int_equal(victim, f);
	assert_int_equal(t_nlink(t, f), 1);
	assert_int_equal(t_orphans(t), 0); /* one name left */
	assert_int_equal(t_remove(t, ROOT, "d", true, &victim), 0);
	assert_int_equal(victim, d);
	assert_int_equal(t_nlink(t, ROOT), root0);
	assert_int_equal(t_nlink(t, d), 0);
	/* A removed directory takes no new entries, though still present. */
	assert_int_equal(t_make(t, d, "late", S_IFREG | 0644, &victim),
			 -ENOENT);
}

/* ---- orphans ------------------------------------------------------------ */

static void test_unlink_of_open_file_leaves_an_orphan(void **state)
{
	struct t_ctx *t = *state;
	struct fs *fs = &t->fs;
	uint64_t f = t_file(t, ROOT, "f"), victim = 0;
	static uint8_t buf[8 * 4096];
	bool drop_setid = false;
	struct ms_inode in;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + i / 4096);
	assert_int_equal(
	    datapath_write(fs->st, f, 0, buf, sizeof(buf), &drop_setid, NULL),
	    0);
	uint64_t live0 = t_counters(t).live_blocks;
	assert_int_equal(live0, 8);

	inode_table_ref(fs->itab, f); /* the kernel holds it open */
	assert_int_equal(t_remove(t, ROOT, "f", false, &victim), 0);
	assert_int_equal(victim, f);
	assert_int_equal(t_orphans(t), 1);
	/* Held: a trim (the op's, then a reap) keeps it and its blocks. */
	assert_int_equal(store_trim(fs->st, f), 0);
	assert_int_equal(t_inode(t, f, &in), 0);
	assert_int_equal(in.nlink, 0);
	assert_int_equal(t_counters(t).live_blocks, live0);
	assert_int_equal(t_orphans(t), 1);

	/* The kernel lets go (or the daemon died): the reaper finishes it. */
	assert_int_equal(inode_table_unref(fs->itab, f, 1), 0);
	uint64_t inodes = t_counters(t).inodes;
	assert_int_equal(store_reap_orphans(fs->st), 0);
	assert_int_equal(t_inode(t, f, &in), -ENOENT);
	assert_int_equal(t_orphans(t), 0);
	assert_int_equal(t_counters(t).live_blocks, 0);
	assert_int_equal(t_counters(t).inodes, inodes - 1);
}

static void test_orphan_survives_a_reopen_and_is_reaped(void **state)
{
	struct t_ctx *t = *state;
	uint64_t f = t_file(t, ROOT, "f"), victim = 0;
	struct fs_config cfg = t->fs.cfg;
	char err[512] = "";
	struct ms_inode in;

	cfg.store = t->dir;
	inode_table_ref(t->fs.itab, f);
	assert_int_equal(t_remove(t, ROOT, "f", false, &victim), 0);
	assert_true(orphans_unlinked(t->fs.st, f));
	/* A crash keeps the record; the next open reaps it. */
	fs_close(&t->fs);
	assert_int_equal(fs_open(&t->fs, &cfg, err, sizeof(err)), 0);
	assert_int_equal(t_inode(t, f, &in), -ENOENT);
	assert_int_equal(t_orphans(t), 0);
	assert_false(orphans_unlinked(t->fs.st, f));
}

/* ---- attributes -------------------------------------------------------- */

static int t_setattr(struct t_ctx *t, uint64_t ino, const struct stat *a,
		     int set, struct ms_inode *out)
{
	struct store_txn x;

	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	return t_end(&x, attrs_set(&x, ino, a, set, out));
}

static void test_attrs_set_applies_its_mask(void **state)
{
	struct t_ctx *t = *state;
	uint64_t f = t_file(t, ROOT, "f"), d = t_dir(t, ROOT, "d");
	struct stat a = {
	    .st_mode = 04711, .st_uid = 7, .st_gid = 8, .st_size = 10000};
	struct ms_inode in, before;

	a.st_mtim = (struct timespec){1500000000, 5};
	assert_int_equal(t_inode(t, f, &before), 0);
	assert_int_equal(
	    t_setattr(t, f, &a, ATTRS_SET_MODE | ATTRS_SET_MTIME, &in), 0);
	assert_int_equal(in.mode, S_IFREG | 04711);
	assert_int_equal(in.uid, before.uid);
	assert_int_equal(in.size, 0);
	assert_int_equal(in.mtime_ns, 1500000000000000005LL);
	assert_true(in.ctime_ns >= before.ctime_ns);
	assert_int_equal(
	    t_setattr(t, f, &a, ATTRS_SET_UID | ATTRS_SET_GID | ATTRS_SET_SIZE,
		      &in),
	    0);
	assert_int_equal(in.uid, 7);
	assert_int_equal(in.gid, 8);
	assert_int_equal(in.size, 10000);
	assert_int_equal(t_counters(t).live_blocks, 0); /* a hole */
	assert_int_equal(t_setattr(t, d, &a, ATTRS_SET_SIZE, &in), -EISDIR);
	uint64_t s;
	assert_int_equal(t_make(t, ROOT, "fifo", S_IFIFO | 0644, &s), 0);
	assert_int_equal(t_setattr(t, s, &a, ATTRS_SET_SIZE, &in), -EINVAL);
	assert_int_equal(t_setattr(t, 999, &a, ATTRS_SET_MODE, &in), -ENOENT);
}

static void test_fallocate_and_xattrs(void **state)
{
	struct t_ctx *t = *state;
	uint64_t f = t_file(t, ROOT, "f"), d = t_dir(t, ROOT, "d");
	struct store_txn x;
	struct ms_inode in, before;
	bool more = true;

	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	assert_int_equal(
	    t_end(&x, attrs_fallocate_step(&x, f, 0, 4096, 8192, &more)), 0);
	assert_false(more);
	assert_int_equal(t_inode(t, f, &in), 0);
	assert_int_equal(in.size, 12288);
	assert_int_equal(t_counters(t).live_blocks, 0);
	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	assert_int_equal(
	    t_end(&x, attrs_fallocate_step(&x, d, 0, 0, 4096, &more)), -ENODEV);
	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	assert_int_equal(
	    t_end(&x, attrs_fallocate_step(&x, f, FALLOC_FL_COLLAPSE_RANGE, 0,
					   4096, &more)),
	    -EOPNOTSUPP);

	before = in;
	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	assert_int_equal(
	    t_end(&x, attrs_xattr_set(&x, f, "user.k", "v", 1, XATTR_CREATE)),
	    0);
	assert_int_equal(t_inode(t, f, &in), 0);
	assert_true(in.ctime_ns >= before.ctime_ns);
	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	assert_int_equal(
	    t_end(&x, attrs_xattr_set(&x, f, "user.k", "w", 1, XATTR_CREATE)),
	    -EEXIST);
	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	assert_int_equal(t_end(&x, attrs_xattr_del(&x, f, "user.k")), 0);
	assert_int_equal(store_txn_begin(t->fs.st, &x), 0);
	assert_int_equal(t_end(&x, attrs_xattr_del(&x, f, "user.k")), -ENODATA);
}

/* ---- seals: every namespace codec refuses a flipped byte -------------- */

struct t_rec {
	const struct metastore *ms;
	MDB_txn *txn;
	enum ms_table table;
	uint8_t key[8 + NS_NAME_MAX];
	size_t klen;
};

/* The codec's read of the record at @r->key: 0, or -EIO when damaged. */
typedef int (*t_read_fn)(const struct t_rec *r);

/* Flip each byte of the record's value, then (@keys) of its key (the
 * record moved there): @read must say -EIO every time, and 0 once it is
 * back. */
static void t_flip_each(struct t_rec *r, t_read_fn read, bool keys)
{
	MDB_dbi dbi = metastore_dbi(r->ms, r->table);
	MDB_val k = {r->klen, r->key}, v;
	assert_int_equal(mdb_get(r->txn, dbi, &k, &v), 0);
	uint8_t val[512];
	size_t vlen = v.mv_size;
	assert_true(vlen <= sizeof(val));
	memcpy(val, v.mv_data, vlen);
	uint64_t before = metastore_damage_count(r->ms);
	size_t n = vlen + (keys ? r->klen : 0);
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = i < vlen ? &val[i] : &r->key[i - vlen];
		MDB_val nv = {vlen, val};
		if (i >= vlen)
			assert_int_equal(mdb_del(r->txn, dbi, &k, NULL), 0);
		*p ^= 0x20;
		assert_int_equal(mdb_put(r->txn, dbi, &k, &nv, 0), 0);
		if (read(r) != -EIO)
			fail_msg("%s: byte %zu of the %s flipped, not refused",
				 metastore_table_name(r->table),
				 i < vlen ? i : i - vlen,
				 i < vlen ? "value" : "key");
		if (i >= vlen)
			assert_int_equal(mdb_del(r->txn, dbi, &k, NULL), 0);
		*p ^= 0x20;
		assert_int_equal(mdb_put(r->txn, dbi, &k, &nv, 0), 0);
	}
	assert_int_equal(read(r), 0);
	assert_int_equal(metastore_damage_count(r->ms) - before, n);
}

static uint64_t t_rec_ino(const struct t_rec *r)
{
	uint64_t ino;
	if (r->table == MS_INODES || r->table == MS_SYMLINKS)
		memcpy(&ino, r->key, sizeof(ino));
	else
		ino = ms_get_be64(r->key);
	return ino;
}

static int t_read_inode(const struct t_rec *r)
{
	struct ms_inode in;
	return ns_inode_get(r->ms, r->txn, t_rec_ino(r), &in);
}

static int t_read_dirent(const struct t_rec *r)
{
	char name[NS_NAME_MAX + 1];
	memcpy(name, r->key + 8, r->klen - 8);
	name[r->klen - 8] = '\0';
	uint64_t ino;
	return ns_dirent_lookup(r->ms, r->txn, t_rec_ino(r), name, &ino);
}

static int t_count_entry(void *ctx, const char *name, size_t len, uint64_t ino,
			 uint64_t cookie)
{
	return 0;
}

static int t_read_cookies(const struct t_rec *r)
{
	return ns_dir_iterate(r->ms, r->txn, t_rec_ino(r), 0, t_count_entry,
			      NULL);
}

static int t_read_symlink(const struct t_rec *r)
{
	char buf[NS_SYMLINK_MAX + 1];
	return ns_symlink_get(r->ms, r->txn, t_rec_ino(r), buf, sizeof(buf));
}

static int t_read_xattr(const struct t_rec *r)
{
	char name[NS_NAME_MAX + 1];
	memcpy(name, r->key + 8, r->klen - 8);
	name[r->klen - 8] = '\0';
	const void *v;
	size_t size;
	return ns_xattr_get(r->ms, r->txn, t_rec_ino(r), name, &v, &size);
}

static int t_read_counters(const struct t_rec *r)
{
	struct ms_counters c;
	return metastore_counters_get(r->ms, r->txn, &c);
}

/* Inodes, directory entries (by name and by cookie), symlink targets,
 * xattrs and the counters: a flipped byte in a key or a value is -EIO,
 * counted, never another record's answer. */
static void test_namespace_seals(void **state)
{
	struct t_ctx *t = *state;
	const struct metastore *ms = store_ms(t->fs.st);
	MDB_txn *txn;
	assert_int_equal(metastore_txn_begin(store_ms(t->fs.st), true, &txn),
			 0);
	struct ms_counters c;
	assert_int_equal(metastore_counters_get(ms, txn, &c), 0);
	struct ms_inode dir, in;
	uint64_t ino;
	assert_int_equal(ns_inode_get(ms, txn, ROOT, &dir), 0);
	assert_int_equal(
	    ns_inode_new(ms, txn, &c, S_IFLNK | 0777, 0, 0, 0, ROOT, &ino, &in),
	    0);
	assert_int_equal(ns_dirent_add(ms, txn, ROOT, &dir, "ln", ino), 0);
	assert_int_equal(ns_symlink_put(ms, txn, ino, "target"), 0);
	assert_int_equal(ns_xattr_set(ms, txn, ino, "user.k", "val", 3, 0), 0);

	struct t_rec r = {.ms = ms, .txn = txn, .table = MS_INODES};
	memcpy(r.key, &ino, 8), r.klen = 8;
	t_flip_each(&r, t_read_inode, true);
	r.table = MS_SYMLINKS;
	t_flip_each(&r, t_read_symlink, true);
	r.table = MS_DIRNAMES;
	ms_put_be64(r.key, ROOT);
	memcpy(r.key + 8, "ln", 2), r.klen = 10;
	t_flip_each(&r, t_read_dirent, true);
	r.table = MS_XATTRS;
	ms_put_be64(r.key, ino);
	memcpy(r.key + 8, "user.k", 6), r.klen = 14;
	t_flip_each(&r, t_read_xattr, true);
	/* readdir reads every cookie of the directory: its first entry. */
	r.table = MS_DIRCOOKIES;
	ms_put_be64(r.key, ROOT);
	ms_put_be64(r.key + 8, dir.next_cookie - 1), r.klen = 16;
	t_flip_each(&r, t_read_cookies, true);
	/* A fixed key flipped is a missing record: the mount's check
	 * (metastore_check) refuses a store without counters. */
	r.table = MS_META;
	memcpy(r.key, "counters", 8), r.klen = 8;
	t_flip_each(&r, t_read_counters, false);
	metastore_txn_abort(txn);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, t_setup, t_teardown)
	const struct CMUnitTest tests[] = {
	    T(test_rename_plain_moves_the_name),
	    T(test_rename_over_a_file_drops_it),
	    T(test_rename_two_names_of_one_inode_is_a_noop),
	    T(test_rename_exchange_swaps),
	    T(test_rename_noreplace_and_flags),
	    T(test_rename_into_own_subtree_is_einval),
	    T(test_rename_dir_kinds_must_match),
	    T(test_link_counts),
	    T(test_unlink_of_open_file_leaves_an_orphan),
	    T(test_orphan_survives_a_reopen_and_is_reaped),
	    T(test_attrs_set_applies_its_mask),
	    T(test_fallocate_and_xattrs),
	    T(test_namespace_seals),
	};
#undef T
	return cmocka_run_group_tests_name("namespace", tests, NULL, NULL);
}
