/* The harnesses' temporary replica (replica_tmp.h). */
#include "replica_tmp.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static struct replica *rp;
static char dir[] = "/tmp/arraysim-fuzz-replica-XXXXXX";

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_replica(void)
{
	replica_close(rp);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

struct replica *fuzz_replica_tmp(void)
{
	char err[512];
	if (rp)
		return rp;
	if (!mkdtemp(dir) || replica_open(dir, &rp, err, sizeof(err))) {
		fprintf(stderr, "replica_open %s failed\n", dir);
		abort();
	}
	atexit(remove_replica);
	return rp;
}
