/* The fs_open() half of t_tmpdir.h: its own file, so that suites which
 * only need a directory do not link the data path. */
#include "t_tmpdir.h"

#include <stdio.h>

#include "fs/fs_open.h"

int t_fs_open(char *dir, size_t len, const char *tag, struct fs *fs,
	      struct fs_config *cfg)
{
	char err[512] = "";

	if (t_tmpdir(dir, len, tag)) {
		perror("t_tmpdir");
		return -1;
	}
	cfg->store = dir;
	if (fs_open(fs, cfg, err, sizeof(err))) {
		fprintf(stderr, "fs_open: %s\n", err);
		t_rmtree(dir);
		return -1;
	}
	return 0;
}

void t_fs_close(const char *dir, struct fs *fs)
{
	fs_close(fs);
	t_rmtree(dir);
}
