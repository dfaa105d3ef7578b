/* What the replication unit tests share: a store opened on a temporary
 * directory (store_open, no FUSE), files written through the data path,
 * read back, and the directory removed. */
#ifndef ARRAYSIM_TESTS_REPL_TEST_H
#define ARRAYSIM_TESTS_REPL_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "common/stats.h"
#include "store/store.h"
#include "tests/common/t_tmpdir.h"

struct t_store {
	char dir[64];
	struct store *st;
	struct stats stats;
};

/* A new temporary directory in @dir (64 bytes); t_rmtree removes it. */
void t_newdir(char *dir);
/* Open (make) the store in @s->dir. */
void t_store_open(struct t_store *s);
void t_store_close(struct t_store *s);
/* A file @name in the root with @nblocks blocks, block i all @fill + i. */
uint64_t t_file(struct t_store *s, const char *name, unsigned nblocks,
		uint8_t fill);
/* The inode of @name in the root, 0 if none. */
uint64_t t_lookup(struct t_store *s, const char *name);
/* Does @name read back as t_file(@nblocks, @fill) wrote it? */
int t_file_is(struct t_store *s, const char *name, unsigned nblocks,
	      uint8_t fill);
struct repl;
struct repl_config;
/* repl_start from @src with @cfg (a failure fails the test). */
struct repl *t_repl_start(struct t_store *src, const struct repl_config *cfg);
/* repl_control, its output to stdout, its error in @err (512 bytes). */
int t_repl_ctl(struct repl *r, const char *args, char *err);
/* One integer figure of @r's status JSON (replication/repl.h). */
uint64_t t_repl_figure(struct repl *r, const char *name);
/* Does `replication status` hold the line @line (with its newline)? */
int t_repl_status_has(struct repl *r, const char *line);
/* Lines of the file @path (an event log) holding @what. */
unsigned t_lines_with(const char *path, const char *what);
/* @clk (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID) now, in ns. */
uint64_t t_ns_of(int clk);
/* Entries of table @t in the committed state. */
uint64_t t_count(struct t_store *s, int table);

#endif
