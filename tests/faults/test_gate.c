/* The fault gate (fs/fault_gate.c) without FUSE: a datastore opened with
 * fs_open() in a temporary directory, rules injected and cleared as the
 * control socket would, and the decisions the FUSE operations would get.
 * Then bit rot and the loss report on a file written through the data
 * path. */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "meta/metastore.h"
#include "faults/rule.h"
#include "store/bitrot.h"
#include "store/datapath.h"
#include "fs/fault_gate.h"
#include "fs/fs_open.h"
#include "store/loss.h"
#include "store/namespace.h"
#include "fs/scenario_run.h"
#include "tests/common/t_tmpdir.h"

struct t_ctx {
	char dir[64];
	struct fs fs;
};

static int t_open(void **state, bool power_loss)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	struct fs_config cfg = {.seed = 1, .power_loss = power_loss};

	if (!t || t_fs_open(t->dir, sizeof(t->dir), "gate", &t->fs, &cfg)) {
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

/* --power-loss: the store keeps its last synced state pinned. */
static int t_setup_power(void **state)
{
	return t_open(state, true);
}

static int t_teardown(void **state)
{
	struct t_ctx *t = *state;

	t_fs_close(t->dir, &t->fs);
	free(t);
	return 0;
}

/* Inject @text; the id it got (0: acted at once), its answer in @out. */
static int t_inject(struct t_ctx *t, const char *text, uint64_t *id, char *out,
		    size_t outlen, char *err, size_t errlen)
{
	struct fault_rule r;
	char perr[256];

	if (fault_rule_parse(text, &r, perr, sizeof(perr)))
		fail_msg("%s: %s", text, perr);
	FILE *f = fmemopen(out, outlen, "w");
	assert_non_null(f);
	int rc = fault_gate_inject(&t->fs, &r, f, id, err, errlen);
	fclose(f);
	return rc;
}

static uint64_t t_on(struct t_ctx *t, const char *text)
{
	char out[4096] = "", err[256] = "";
	uint64_t id;

	if (t_inject(t, text, &id, out, sizeof(out), err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	return id;
}

static int t_meta(struct t_ctx *t, unsigned op, const char *name)
{
	return fault_gate_meta(&t->fs, op, 0, 1, name);
}

static void test_error_count_and_clear(void **state)
{
	struct t_ctx *t = *state;
	struct fault_hit hit;
	char err[256];

	uint64_t id = t_on(t, "error op=write errno=ENOSPC count=2");
	assert_int_equal(id, 1);
	fault_gate_io(&t->fs, FOP_READ, 1, 0, 4096, &hit);
	assert_int_equal(hit.err, 0);
	for (int i = 0; i < 2; i++) {
		fault_gate_io(&t->fs, FOP_WRITE, 1, 0, 4096, &hit);
		assert_int_equal(hit.err, -ENOSPC);
		assert_int_equal(hit.rule_id, id);
	}
	fault_gate_io(&t->fs, FOP_WRITE, 1, 0, 4096, &hit);
	assert_int_equal(hit.err, 0); /* count spent */
	assert_int_equal(fault_gate_clear(&t->fs, 99, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "no fault 99 (see: fault list)");
	assert_int_equal(fault_gate_clear(&t->fs, id, err, sizeof(err)), 0);
	assert_int_equal(faults_count(t->fs.faults), 0);
}

static void test_path_glob_on_meta(void **state)
{
	struct t_ctx *t = *state;

	t_on(t, "error op=mkdir errno=EROFS path=/d*");
	assert_int_equal(t_meta(t, FOP_MKDIR, "dx"), -EROFS);
	assert_int_equal(t_meta(t, FOP_MKDIR, "ex"), 0);
	assert_int_equal(t_meta(t, FOP_CREATE, "dx"), 0);
}

static void test_latency_on_meta(void **state)
{
	struct t_ctx *t = *state;
	struct fault_hit hit;

	t_on(t, "latency latency=20ms op=mkdir");
	uint64_t t0 = clock_mono_ns();
	assert_int_equal(t_meta(t, FOP_MKDIR, "d"), 0);
	assert_true(clock_mono_ns() - t0 >= 20000000u);
	t_on(t, "latency latency=5ms op=read");
	fault_gate_io(&t->fs, FOP_READ, 1, 0, 512, &hit);
	assert_int_equal(hit.delay_ns, 5000000u); /* the caller delays */
	assert_int_equal(hit.err, 0);
}

static void test_torn(void **state)
{
	struct t_ctx *t = *state;
	struct fault_hit hit;

	t_on(t, "torn-write");
	fault_gate_io(&t->fs, FOP_WRITE, 1, 0, 8192, &hit);
	assert_true(hit.torn);
	assert_int_equal(hit.keep, 4096); /* half persists */
	fault_gate_io(&t->fs, FOP_WRITE, 1, 0, 8192, &hit);
	assert_false(hit.torn); /* count=1 by default */
	assert_int_equal(hit.keep, 8192);
	assert_int_equal(fault_torn_prefix(8192), 4096);
	assert_int_equal(fault_torn_prefix(1500), 512);
	assert_int_equal(fault_torn_prefix(1000), 0);
}

static void test_thin(void **state)
{
	struct t_ctx *t = *state;
	char out[256], err[256];
	uint64_t id;

	assert_false(fault_gate_thin_full(&t->fs, 1000000));
	uint64_t thin = t_on(t, "thin capacity=8K");
	assert_false(fault_gate_thin_full(&t->fs, 1));
	assert_true(fault_gate_thin_full(&t->fs, 2));
	assert_int_equal(t_inject(t, "thin capacity=1M", &id, out, sizeof(out),
				  err, sizeof(err)),
			 -EEXIST);
	assert_string_equal(err, "a thin rule is active already (clear it "
				 "first)");
	assert_int_equal(fault_gate_clear(&t->fs, thin, err, sizeof(err)), 0);
	assert_false(fault_gate_thin_full(&t->fs, 2));
}

/* The null array models no array fault: refused, and nothing stays. */
static void test_array_fault_refused(void **state)
{
	struct t_ctx *t = *state;
	char out[256] = "", err[256] = "";
	uint64_t id = 7;

	assert_int_equal(t_inject(t, "controller id=0", &id, out, sizeof(out),
				  err, sizeof(err)),
			 -ENOTSUP);
	assert_int_equal(id, 0);
	assert_int_equal(faults_count(t->fs.faults), 0);
	assert_string_equal(out, "");
}

static void test_power_loss(void **state)
{
	struct t_ctx *t = *state;
	char out[512] = "", err[256] = "";
	uint64_t id = 7;
	struct fault_hit hit;

	int rc =
	    t_inject(t, "power-loss", &id, out, sizeof(out), err, sizeof(err));
	assert_int_equal(id, 0);
	if (rc) { /* a store not tracking its durable state cannot */
		assert_int_equal(t_meta(t, 0, NULL), 0);
		return;
	}
	assert_non_null(strstr(out, "power lost: "));
	assert_int_equal(t_meta(t, 0, NULL), -EIO);
	assert_int_equal(t_meta(t, FOP_MKDIR, "d"), -EIO);
	fault_gate_io(&t->fs, FOP_READ, 1, 0, 512, &hit);
	assert_int_equal(hit.err, -EIO);
}

/* ---- bit rot and the loss report -------------------------------------- */

/* A file "/f" of @n distinct 4 KiB blocks, the i-th starting with the
 * letter i mod 26 from 'a'. */
static uint64_t t_file(struct t_ctx *t, unsigned n)
{
	struct fs *fs = &t->fs;
	struct store_txn x;
	struct ms_inode in, root;
	uint64_t ino;
	uint8_t *buf = calloc(n, 4096);
	bool drop = false;

	assert_non_null(buf);
	for (unsigned i = 0; i < n; i++) { /* distinct: none dedupes */
		memset(buf + (size_t)i * 4096, 'a' + (int)(i % 26), 4096);
		memcpy(buf + (size_t)i * 4096 + 4092, &i, sizeof(i));
	}
	assert_int_equal(store_txn_begin(fs->st, &x), 0);
	assert_int_equal(ns_inode_new(store_ms(fs->st), x.txn, &x.c,
				      S_IFREG | 0644, 0, 0, 0, 1, &ino, &in),
			 0);
	assert_int_equal(ns_inode_get(store_ms(fs->st), x.txn, 1, &root), 0);
	assert_int_equal(
	    ns_dirent_add(store_ms(fs->st), x.txn, 1, &root, "f", ino), 0);
	assert_int_equal(ns_inode_put(store_ms(fs->st), x.txn, 1, &root), 0);
	assert_int_equal(store_txn_commit(&x), 0);
	assert_int_equal(
	    datapath_write(fs->st, ino, 0, buf, (size_t)n * 4096, &drop, NULL),
	    0);
	free(buf);
	return ino;
}

static void test_bitrot_at_offset(void **state)
{
	struct t_ctx *t = *state;
	char out[4096] = "", err[256] = "";
	uint8_t buf[4096];
	size_t got;
	uint64_t id;

	uint64_t ino = t_file(t, 2);
	assert_int_equal(t_inject(t, "bitrot path=/f offset=4096", &id, out,
				  sizeof(out), err, sizeof(err)),
			 0);
	assert_int_equal(id, 0);
	if (!strstr(out, "lost /f offset 4096 length 4096 block "))
		fail_msg("report: %s", out);
	assert_non_null(strstr(out, "corrupted 1 blocks referenced 1 times"));
	assert_int_equal(datapath_read(t->fs.st, ino, 0, 4096, buf, &got), 0);
	assert_int_equal(got, 4096);
	assert_int_equal(buf[0], 'a');
	assert_int_equal(datapath_read(t->fs.st, ino, 4096, 4096, buf, &got),
			 -EIO);
	/* The null array keeps no redundancy: nothing to undo. */
	assert_false(bitrot_undo_injected(t->fs.st, 2, buf, 0));
}

static void test_bitrot_random_and_no_loss(void **state)
{
	struct t_ctx *t = *state;
	char out[4096] = "", err[256] = "";
	uint64_t id;

	t_file(t, 3);
	assert_false(loss_any(t->fs.st));
	assert_int_equal(t_inject(t, "bitrot blocks=2", &id, out, sizeof(out),
				  err, sizeof(err)),
			 0);
	assert_non_null(strstr(out, "corrupted 2 blocks referenced 2 times"));
	/* Bit rot is found by reads' checksums, not kept as array loss. */
	assert_false(loss_any(t->fs.st));
	out[0] = '\0';
	FILE *f = fmemopen(out, sizeof(out), "w");
	assert_int_equal(loss_list(t->fs.st, f), 0);
	fclose(f);
	assert_string_equal(out, "");
}

/* ---- array loss ---------------------------------------------------------- */

/* A timed raid5 array, as tests/integration/array_loss.sh has it. */
static const char r5_ini[] =
    "[controllers]\ncount = 2\nmode = active-active\ncores = 8\n"
    "[frontend]\nlinks = 2\nspeed = 10GbE\n"
    "[tier flash]\nkind = ssd\ndrives = 8\ncapacity = 10G\n"
    "raid = raid5\nstripe_width = 4\nstripe_unit = 64K\n"
    "read_latency = 100us\nwrite_latency = 50us\nslots = 8\n"
    "fill = 50%\nrebuild_rate = 50M/s\ndetection_window = 2s\n";

static int t_setup_r5(void **state)
{
	char dir[64], ini[100], store[100], err[512] = "";
	struct t_ctx *t = calloc(1, sizeof(*t));

	if (!t || t_tmpdir(dir, sizeof(dir), "gate")) {
		free(t);
		return -1;
	}
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	snprintf(ini, sizeof(ini), "%s/r5.ini", dir);
	FILE *f = fopen(ini, "w");
	if (!f || fputs(r5_ini, f) < 0 || fclose(f))
		return -1;
	/* The profile beside the store, which must start empty. */
	snprintf(store, sizeof(store), "%s/store", dir);
	if (mkdir(store, 0700))
		return -1;
	struct fs_config cfg = {
	    .store = store, .seed = 5, .profile = ini, .scale = 10};
	if (fs_open(&t->fs, &cfg, err, sizeof(err))) {
		print_error("fs_open: %s\n", err);
		return -1;
	}
	*state = t;
	return 0;
}

/* Two drives of eight out in stripes of four: some blocks are lost, each
 * reported and then read as EIO, and restoring the drives brings none
 * back. */
static void test_array_loss(void **state)
{
	struct t_ctx *t = *state;
	static char out[1 << 18];
	char err[256] = "", line[64];
	uint8_t buf[4096];
	size_t got;
	uint64_t id, ino = t_file(t, 2048);
	unsigned n = 0, refs = 0, eio = 0;
	uint64_t lost_off = 0;

	assert_int_equal(
	    t_inject(t, "drive id=2", &id, out, sizeof(out), err, sizeof(err)),
	    0);
	assert_null(strstr(out, "lost "));
	assert_false(loss_any(t->fs.st));
	assert_int_equal(
	    t_inject(t, "drive id=5", &id, out, sizeof(out), err, sizeof(err)),
	    0);
	/* The summary after the per-block lines. */
	const char *sum = strstr(out, " blocks referenced ");
	assert_non_null(sum);
	while (sum > out && sum[-1] != '\n')
		sum--;
	assert_int_equal(
	    sscanf(sum, "lost %u blocks referenced %u times", &n, &refs), 2);
	if (!(n > 0 && n < 2048))
		fail_msg("lost %u of 2048", n);
	assert_int_equal(refs, n);
	assert_true(loss_any(t->fs.st));
	for (uint64_t off = 0; off < 2048 * 4096; off += 4096) {
		int r = datapath_read(t->fs.st, ino, off, 4096, buf, &got);
		snprintf(line, sizeof(line), "lost /f offset %llu length",
			 (unsigned long long)off);
		assert_int_equal(r, strstr(out, line) ? -EIO : 0);
		if (r == -EIO && !eio++)
			lost_off = off;
	}
	assert_int_equal(eio, n);
	assert_int_equal(fault_gate_clear(&t->fs, 0, err, sizeof(err)), 0);
	assert_true(loss_any(t->fs.st));
	assert_int_equal(
	    datapath_read(t->fs.st, ino, lost_off, 4096, buf, &got), -EIO);
}

/* ---- a scenario run ----------------------------------------------------- */

/* The "t" of the @nth line of STORE/events.jsonl that has @what; -1 if
 * none. */
static double t_event_t(struct t_ctx *t, const char *what, unsigned nth)
{
	char path[4200], line[4096];
	double found = -1;
	unsigned seen = 0;

	snprintf(path, sizeof(path), "%s/events.jsonl", t->fs.store);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "\"t\":");
		if (strstr(line, what) && p && seen++ == nth)
			found = strtod(p + 4, NULL);
	}
	fclose(f);
	return found;
}

/* Steps are due at the runner's start plus their scaled time, and
 * scenario_start carries that start: no step is logged before its time
 * relative to it (tests/integration/scenario.sh saw one 9 us early when
 * the start event was stamped after the runner's clock). */
static void test_scenario_step_times(void **state)
{
	struct t_ctx *t = *state;
	char path[200], out[512] = "", err[256] = "";

	snprintf(path, sizeof(path), "%s/s.ini", t->dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("[scenario]\nname = quick\n[at 0s]\ninject.a = error "
	      "op=write\n[at 20ms]\nclear = a\n[at 40ms]\ninject.b = "
	      "latency latency=1ms\n",
	      f);
	fclose(f);
	FILE *o = fmemopen(out, sizeof(out), "w");
	int rc = scenario_run_start(&t->fs, path, 1, o, err, sizeof(err));
	fclose(o);
	if (rc)
		fail_msg("scenario run: %s", err);
	for (int i = 0; i < 200; i++) {
		memset(out, 0, sizeof(out));
		o = fmemopen(out, sizeof(out), "w");
		scenario_run_status(&t->fs, o);
		fclose(o);
		if (!strncmp(out, "finished", 8))
			break;
		usleep(10000);
	}
	assert_int_equal(strncmp(out, "finished", 8), 0);
	double start = t_event_t(t, "\"scenario_start\"", 0);
	const double at[] = {0, 0.020, 0.040};
	assert_true(start >= 0);
	for (unsigned i = 0; i < 3; i++) {
		double s = t_event_t(t, "\"scenario_step\"", i);
		if (s - start < at[i])
			fail_msg("step %u logged at %.6f s, due %.6f s", i,
				 s - start, at[i]);
	}
	assert_int_equal(faults_count(t->fs.faults), 1); /* b stays */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_error_count_and_clear, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_path_glob_on_meta, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_latency_on_meta, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_torn, t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_thin, t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_array_fault_refused, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_power_loss, t_setup_power,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_bitrot_at_offset, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_bitrot_random_and_no_loss,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_scenario_step_times, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_array_loss, t_setup_r5,
					    t_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
