/* The replication unit tests' shared helpers (repl_test.h). */
#include "repl_test.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cmocka.h>

#include "common/block.h"
#include "replication/repl.h"
#include "store/datapath.h"
#include "store/names.h"
#include "store/namespace.h"
#include "store/txn.h"
#include "tiers/array.h"

void t_newdir(char *dir)
{
	assert_int_equal(t_tmpdir(dir, 64, "repl"), 0);
}

struct repl *t_repl_start(struct t_store *src, const struct repl_config *cfg)
{
	char err[512];
	struct repl *r;

	if (repl_start(src->st, &src->stats, cfg, &r, err, sizeof(err)))
		fail_msg("repl_start: %s", err);
	return r;
}

int t_repl_ctl(struct repl *r, const char *args, char *err)
{
	return repl_control(r, args, stdout, err, 512);
}

void t_store_open(struct t_store *s)
{
	char err[512] = "";
	memset(&s->stats, 0, sizeof(s->stats));
	struct store_config cfg = {
	    .dir = s->dir, .seed = 1, .verify = true, .stats = &s->stats};
	if (store_open(&cfg, &s->st, err, sizeof(err)))
		fail_msg("store_open %s: %s", s->dir, err);
}

void t_store_close(struct t_store *s)
{
	store_close(s->st);
	s->st = NULL;
}

uint64_t t_lookup(struct t_store *s, const char *name)
{
	MDB_txn *txn;
	struct metastore *ms = store_ms(s->st);
	uint64_t ino = 0;
	assert_int_equal(metastore_txn_begin(ms, false, &txn), 0);
	if (ns_dirent_lookup(ms, txn, 1, name, &ino))
		ino = 0;
	metastore_txn_abort(txn);
	return ino;
}

uint64_t t_file(struct t_store *s, const char *name, unsigned nblocks,
		uint8_t fill)
{
	uint64_t ino = t_lookup(s, name);
	if (!ino) {
		struct store_txn x;
		struct ms_inode in;
		struct names_node nn = {.mode = S_IFREG | 0644};
		assert_int_equal(store_txn_begin(s->st, &x), 0);
		assert_int_equal(names_make(&x, 1, name, &nn, &ino, &in), 0);
		assert_int_equal(store_txn_commit(&x), 0);
	}
	uint8_t buf[BLOCK_BYTES];
	for (unsigned i = 0; i < nblocks; i++) {
		struct array_io io = {0};
		bool drop = false;
		memset(buf, (uint8_t)(fill + i), sizeof(buf));
		assert_int_equal(datapath_write(s->st, ino,
						(uint64_t)i * BLOCK_BYTES, buf,
						sizeof(buf), &drop, &io),
				 0);
	}
	return ino;
}

int t_file_is(struct t_store *s, const char *name, unsigned nblocks,
	      uint8_t fill)
{
	uint64_t ino = t_lookup(s, name);
	if (!ino)
		return 0;
	uint8_t buf[BLOCK_BYTES];
	for (unsigned i = 0; i < nblocks; i++) {
		size_t got = 0;
		if (datapath_read(s->st, ino, (uint64_t)i * BLOCK_BYTES,
				  BLOCK_BYTES, buf, &got) ||
		    got != BLOCK_BYTES)
			return 0;
		for (size_t j = 0; j < got; j++)
			if (buf[j] != (uint8_t)(fill + i))
				return 0;
	}
	return 1;
}

uint64_t t_count(struct t_store *s, int table)
{
	MDB_txn *txn;
	struct metastore *ms = store_ms(s->st);
	MDB_stat st;
	assert_int_equal(metastore_txn_begin(ms, false, &txn), 0);
	assert_int_equal(
	    mdb_stat(txn, metastore_dbi(ms, (enum ms_table)table), &st), 0);
	metastore_txn_abort(txn);
	return st.ms_entries;
}

uint64_t t_repl_figure(struct repl *r, const char *name)
{
	char *buf = NULL, key[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	repl_status_json(r, f);
	fclose(f);
	snprintf(key, sizeof(key), "\"%s\":", name);
	char *at = strstr(buf, key);
	assert_non_null(at);
	uint64_t v = strtoull(at + strlen(key), NULL, 10);
	free(buf);
	return v;
}

int t_repl_status_has(struct repl *r, const char *line)
{
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	repl_control(r, "status", f, err, sizeof(err));
	fclose(f);
	int has = strstr(buf, line) != NULL;
	free(buf);
	return has;
}

unsigned t_lines_with(const char *path, const char *what)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned n = 0;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

uint64_t t_ns_of(int clk)
{
	struct timespec ts;
	clock_gettime((clockid_t)clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
