/* `arraysim fsck --store DIR [--quiet]`: check an unmounted store.
 *
 * Everything is read in one read-only LMDB snapshot, table by table, each
 * check using what the earlier ones gathered:
 *
 *   inodes ──> bmap ──> blocks ──> fpindex ──> freemap/pending ──> namespace
 *   (array)    refs[]   data,      items vs    state[] covers      dirnames,
 *              per      refs vs    records     [1, next_pblk)      dircookies,
 *              pblk     refs[],                                    orphans,...
 *                       items
 *
 * Per pblk we keep 5 bytes (a reference count and a state byte), per inode
 * one struct fsck_inode: a store of N blocks and M inodes needs about
 * 5N + 80M bytes. Nothing is written unless --repair: then a first,
 * silent pass gathers the same, tools/fsck_repair.c rebuilds what the
 * tables say twice (refcounts from the block maps, orphans, counters) with
 * a "repaired: " line each, and the check runs again, each problem left a
 * "cannot repair: " line. Records that fail their seal are problems
 * (fsck_walk) and are skipped by every check.
 *
 * Output: one line per problem ("block 12: refs 2, but 3 block-map entries
 * point at it"), "warning: " lines for suspicious but legal states, "info: "
 * lines (not with --quiet), then "fsck: N inodes, M unique blocks, K
 * problems". Exit 0 clean (or all repaired), 1 problems found (left), 2
 * could not check.
 */
#include "tools/fsck.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tools/commands.h"
#include "tools/fsck_i.h"
#include "tools/options.h"

/* ---- counters ------------------------------------------------------------ */

static void counter(struct fsck *f, const char *name, uint64_t stored,
		    uint64_t actual)
{
	if (stored != actual)
		fsck_problem(
		    f, "counters: %s is %llu, but the tables hold %llu", name,
		    (unsigned long long)stored, (unsigned long long)actual);
}

void fsck_check_counters(struct fsck *f)
{
	uint64_t bytes = 0, max_ino = 0;
	for (size_t i = 0; i < f->ninodes; i++) {
		const struct fsck_inode *fi = &f->inodes[i];
		if (S_ISREG(fi->in.mode))
			bytes += fi->in.size;
		if (fi->ino > max_ino)
			max_ino = fi->ino;
	}
	counter(f, "live_blocks", f->c.live_blocks, f->map_entries);
	counter(f, "unique_blocks", f->c.unique_blocks, f->block_records);
	counter(f, "logical_bytes", f->c.logical_bytes, bytes);
	counter(f, "inodes", f->c.inodes, f->ninodes);
	if (f->ninodes && f->c.next_ino <= max_ino)
		fsck_problem(f,
			     "counters: next_ino is %llu, but inode %llu "
			     "exists",
			     (unsigned long long)f->c.next_ino,
			     (unsigned long long)max_ino);
}

/* The allocator's high-water mark; when the counters are gone, the
 * highest pblk any of the block tables knows, so the checks still cover
 * every block they name. */
static uint64_t last_key(struct fsck *f, enum ms_table t)
{
	MDB_cursor *cur;
	MDB_val k, v;
	uint64_t last = 0;
	if (mdb_cursor_open(f->txn, metastore_dbi(f->ms, t), &cur))
		return 0;
	if (mdb_cursor_get(cur, &k, &v, MDB_LAST) == 0 &&
	    k.mv_size == sizeof(last))
		memcpy(&last, k.mv_data, sizeof(last));
	mdb_cursor_close(cur);
	return last;
}

static int load_counters(struct fsck *f)
{
	int r = metastore_counters_get(f->ms, f->txn, &f->c);
	if (r == 0) {
		f->npblk = f->c.next_pblk ? f->c.next_pblk : 1;
	} else {
		fsck_problem(f, "counters: record %s",
			     r == -ENOENT ? "missing" : "damaged");
		f->counters_bad = true;
		memset(&f->c, 0, sizeof(f->c));
		static const enum ms_table t[] = {MS_BLOCKS, MS_FREEMAP,
						  MS_PENDING};
		for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			uint64_t last = last_key(f, t[i]);
			if (t[i] == MS_BLOCKS) /* a record of 64 slots */
				last = last * MS_BLOCK_EXTENT +
				       MS_BLOCK_EXTENT - 1;
			if (last + 1 > f->npblk)
				f->npblk = last + 1;
		}
	}
	f->refs = calloc(f->npblk, sizeof(*f->refs));
	f->state = calloc(f->npblk, sizeof(*f->state));
	if (!f->refs || !f->state) {
		tool_error("fsck: out of memory for %llu blocks",
			   (unsigned long long)f->npblk);
		return -ENOMEM;
	}
	return 0;
}

/* ---- the run ------------------------------------------------------------- */

/* A read-only check maps what the metadata file holds, not the 64 GiB a
 * mount reserves for growth (a map that big fails under valgrind). */
static uint64_t meta_map_bytes(const char *store)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof(path), "%s/meta/data.mdb", store);
	if (stat(path, &st) < 0 || st.st_size <= 0)
		return 0; /* metastore_open says what is wrong */
	return ((uint64_t)st.st_size + (1u << 20)) & ~((1ull << 20) - 1);
}

/* Room a repair's copy-on-write pages may take past the file's end. */
#define REPAIR_MAP_SLACK (256ull << 20)

static int open_store(struct fsck *f, bool repair)
{
	char err[512];
	uint64_t map = meta_map_bytes(f->store);
	int r = metastore_open(f->store,
			       map ? map + (repair ? REPAIR_MAP_SLACK : 0) : 0,
			       false, !repair, &f->ms, err, sizeof(err));
	if (r) {
		tool_error("%s", err);
		return r;
	}
	r = backing_open(f->store, &f->backing, err, sizeof(err));
	if (r) {
		tool_error("%s", err);
		return r;
	}
	f->dev = backing_dev(f->backing);
	r = metastore_txn_begin(f->ms, false, &f->txn);
	if (r)
		tool_error("store %s: metadata: %s", f->store, strerror(-r));
	return r;
}

static void close_store(struct fsck *f)
{
	metastore_txn_abort(f->txn);
	backing_close(f->backing);
	metastore_close(f->ms);
	free(f->refs);
	free(f->state);
	free(f->inodes);
	free(f->stale);
}

static int run_checks(struct fsck *f)
{
	int r = load_counters(f);
	if (!r)
		r = fsck_load_inodes(f);
	if (!r)
		r = fsck_check_maps(f);
	if (!r)
		r = fsck_check_blocks(f);
	if (!r)
		r = fsck_check_fpindex(f);
	if (!r)
		r = fsck_check_csizes(f);
	if (!r)
		r = fsck_check_free(f);
	if (!r)
		r = fsck_list_bad_refs(f);
	if (!r)
		r = fsck_check_namespace(f);
	if (!r)
		fsck_check_counters(f);
	return r;
}

/* With --repair: a silent check on a writable store, the repair, then the
 * check whose problems are what is left ("cannot repair: "). */
static int repair_pass(const char *store, FILE *out, int *repairs)
{
	struct fsck f = {.store = store, .out = out, .silent = true};
	int r = open_store(&f, true);
	if (!r)
		r = run_checks(&f);
	metastore_txn_abort(f.txn);
	f.txn = NULL;
	if (!r && f.problems)
		r = fsck_repair(&f);
	*repairs = f.repairs;
	close_store(&f);
	return r;
}

int fsck_run(const char *store, FILE *out, bool quiet, bool repair,
	     int *problems)
{
	int repairs = 0;
	int r = repair ? repair_pass(store, out, &repairs) : 0;
	struct fsck f = {.store = store,
			 .out = out,
			 .quiet = quiet,
			 .prefix = repair ? "cannot repair: " : ""};
	if (!r)
		r = open_store(&f, false);
	if (!r)
		r = run_checks(&f);
	if (!r && !quiet) {
		fprintf(
		    out, "fsck: %zu inodes, %llu unique blocks, %d problems",
		    f.ninodes, (unsigned long long)f.block_records, f.problems);
		if (f.warnings)
			fprintf(out, ", %d warnings", f.warnings);
		if (repair)
			fprintf(out, ", %d repaired", repairs);
		fputc('\n', out);
	}
	fflush(out);
	close_store(&f);
	*problems = f.problems;
	return r;
}

/* ---- the command -----------------------------------------------------------
 */

struct fsck_opts {
	const char *store;
	bool quiet;
	bool repair;
};

#define O(f) offsetof(struct fsck_opts, f)
static const struct opt_def fsck_defs[] = {
    {"store", 0, OPT_STRING, O(store), "DIR", "the store (not mounted)"},
    {"quiet", 'q', OPT_FLAG, O(quiet), NULL,
     "problems only: no info lines, no summary"},
    {"repair", 0, OPT_FLAG, O(repair), NULL,
     "rebuild refcounts, orphans and counters, then list what cannot be "
     "repaired"},
    {0},
};
#undef O

int cmd_fsck(int argc, char **argv)
{
	struct fsck_opts o = {0};
	int npos;
	int r = opts_parse("fsck", "--store DIR [--quiet] [--repair]",
			   fsck_defs, &o, argc, argv, NULL, 0, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	if (!o.store || !*o.store) {
		tool_error("fsck: --store DIR is required");
		return 2;
	}
	int problems = 0;
	if (fsck_run(o.store, stdout, o.quiet, o.repair, &problems))
		return 2;
	return problems ? 1 : 0;
}
