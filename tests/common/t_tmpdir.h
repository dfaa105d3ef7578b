/* A fresh directory per unit test, and its removal: what every cmocka
 * suite that opens a store on disk does in its setup and teardown. */
#ifndef ARRAYSIM_TESTS_T_TMPDIR_H
#define ARRAYSIM_TESTS_T_TMPDIR_H

#include <stddef.h>

struct fs;
struct fs_config;

/* Make /tmp/arraysim-test-TAG-XXXXXX into @dir (@len bytes). 0, or -1
 * (errno set) when it does not fit or cannot be made. */
int t_tmpdir(char *dir, size_t len, const char *tag);

/* Remove @dir and everything under it (symlinks not followed). */
void t_rmtree(const char *dir);

/* A datastore opened with fs_open() on a fresh t_tmpdir(@tag) in @dir:
 * @cfg->store is set to it. 0, or -1 with the reason printed and the
 * directory removed. */
int t_fs_open(char *dir, size_t len, const char *tag, struct fs *fs,
	      struct fs_config *cfg);

/* fs_close(), then the directory removed. */
void t_fs_close(const char *dir, struct fs *fs);

#endif
