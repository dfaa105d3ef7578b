/* The datastore on its own (store/store.h), no FUSE and no struct fs: what
 * it asks of whoever opened it (struct store_hooks), where its counters
 * go, and the power cut that ends its syncs.
 *
 *   - a new store has its root directory
 *   - an unlinked file the front end still holds (hooks.held) stays, with
 *     its blocks, until a trim finds it released; then it is gone
 *   - a full thin-provisioned array (hooks.thin_full) refuses a new unique
 *     block with ENOSPC, but not a hole; once it has room, the write goes
 *   - counters go to the struct stats the opener gave
 *   - after store_power_cut every sync fails with EIO, and a second cut
 *     says the power was already off
 */
#include <errno.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "common/block.h"
#include "store/datapath.h"
#include "store/names.h"
#include "store/namespace.h"
#include "store/orphans.h"
#include "store/store.h"
#include "tiers/array.h"
#include "tests/common/t_tmpdir.h"

struct t_ctx {
	char dir[64];
	struct store *st;
	struct stats stats;
	bool held;	/* what hooks.held answers */
	bool thin_full; /* what hooks.thin_full answers */
};

static bool t_held(void *ctx, uint64_t ino)
{
	struct t_ctx *t = ctx;
	return t->held;
}

static bool t_thin_full(void *ctx, uint64_t unique)
{
	struct t_ctx *t = ctx;
	return t->thin_full;
}

static int t_open(void **state, bool power_loss)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char err[512] = "";

	if (!t)
		return -1;
	if (t_tmpdir(t->dir, sizeof(t->dir), "store")) {
		free(t);
		return -1;
	}
	struct store_config cfg = {
	    .dir = t->dir,
	    .seed = 1,
	    .verify = true,
	    .power_loss = power_loss,
	    .stats = &t->stats,
	    .hooks = {.ctx = t, .held = t_held, .thin_full = t_thin_full},
	};
	if (store_open(&cfg, &t->st, err, sizeof(err))) {
		print_error("store_open: %s\n", err);
		t_rmtree(t->dir);
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int t_setup(void **state)
{
	return t_open(state, false);
}

/* With --power-loss: the store keeps the synced state to fall back to. */
static int t_setup_power_loss(void **state)
{
	return t_open(state, true);
}

static int t_teardown(void **state)
{
	struct t_ctx *t = *state;

	store_close(t->st);
	t_rmtree(t->dir);
	free(t);
	return 0;
}

/* 0, or -ENOENT when @ino is gone; its record into @in. */
static int t_inode(struct t_ctx *t, uint64_t ino, struct ms_inode *in)
{
	MDB_txn *txn;
	struct metastore *ms = store_ms(t->st);

	assert_int_equal(metastore_txn_begin(ms, false, &txn), 0);
	int r = ns_inode_get(ms, txn, ino, in);
	metastore_txn_abort(txn);
	return r;
}

static uint64_t t_file(struct t_ctx *t, const char *name)
{
	struct store_txn x;
	struct ms_inode in;
	struct names_node nn = {.mode = S_IFREG | 0644};
	uint64_t ino = 0;

	assert_int_equal(store_txn_begin(t->st, &x), 0);
	assert_int_equal(names_make(&x, 1, name, &nn, &ino, &in), 0);
	assert_int_equal(store_txn_commit(&x), 0);
	return ino;
}

static int t_write(struct t_ctx *t, uint64_t ino, uint8_t fill)
{
	uint8_t buf[BLOCK_BYTES];
	struct array_io io = {0};
	bool drop_setid = false;

	memset(buf, fill, sizeof(buf));
	return datapath_write(t->st, ino, 0, buf, sizeof(buf), &drop_setid,
			      &io);
}

static void test_open_makes_root(void **state)
{
	struct t_ctx *t = *state;
	struct ms_inode in;

	assert_int_equal(t_inode(t, 1, &in), 0);
	assert_true(S_ISDIR(in.mode));
	assert_non_null(store_array(t->st));
	assert_ptr_equal(store_stats(t->st), &t->stats);
	assert_string_equal(store_dir(t->st), t->dir);
}

static void test_held_inode_waits_for_release(void **state)
{
	struct t_ctx *t = *state;
	struct ms_inode in;
	uint64_t ino = t_file(t, "held"), victim = 0;
	struct store_txn x;

	assert_int_equal(t_write(t, ino, 0x5a), 0);
	assert_int_equal(store_txn_begin(t->st, &x), 0);
	assert_int_equal(names_remove(&x, 1, "held", false, &victim), 0);
	assert_int_equal(store_txn_commit(&x), 0);
	assert_int_equal(victim, ino);

	t->held = true;
	assert_int_equal(store_trim(t->st, ino), 0);
	assert_int_equal(t_inode(t, ino, &in), 0);
	assert_int_equal(in.nlink, 0);
	assert_int_equal(in.nblocks, 1);
	assert_true(orphans_unlinked(t->st, ino));

	t->held = false;
	assert_int_equal(store_trim(t->st, ino), 0);
	assert_int_equal(t_inode(t, ino, &in), -ENOENT);
}

static void test_thin_full_refuses_new_blocks(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_file(t, "thin");

	t->thin_full = true;
	assert_int_equal(t_write(t, ino, 0x11), -ENOSPC);
	assert_int_equal(t_write(t, ino, 0), 0); /* a hole takes no block */
	t->thin_full = false;
	assert_int_equal(t_write(t, ino, 0x11), 0);
}

static void test_counters_go_to_the_opener(void **state)
{
	struct t_ctx *t = *state;
	uint64_t ino = t_file(t, "counted");
	uint64_t before = atomic_load(&t->stats.dedupe.blocks_written);

	assert_int_equal(t_write(t, ino, 0x22), 0);
	assert_int_equal(atomic_load(&t->stats.dedupe.blocks_written),
			 before + 1);
}

static void test_power_cut_ends_syncs(void **state)
{
	struct t_ctx *t = *state;
	char err[256] = "";
	uint64_t lost = 0;
	bool was = true;

	assert_int_equal(store_sync(t->st), 0);
	assert_false(store_powered_off(t->st));
	assert_int_equal(t_write(t, t_file(t, "cut"), 0x33), 0);
	assert_true(store_unsynced(t->st));
	assert_int_equal(store_power_cut(t->st, &lost, &was, err, sizeof(err)),
			 0);
	assert_false(was);
	assert_true(lost > 0);
	assert_true(store_powered_off(t->st));
	assert_false(store_unsynced(t->st));
	assert_int_equal(store_sync(t->st), -EIO);
	assert_int_equal(store_power_cut(t->st, &lost, &was, err, sizeof(err)),
			 0);
	assert_true(was);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_open_makes_root, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_held_inode_waits_for_release,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_thin_full_refuses_new_blocks,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_counters_go_to_the_opener,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_power_cut_ends_syncs,
					    t_setup_power_loss, t_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
