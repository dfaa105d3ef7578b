/* The harnesses' temporary replica (replica_tmp.h). */
#include "replica_tmp.h"

#include <stdio.h>
#include <stdlib.h>

#include "tests/common/t_tmpdir.h"

static struct replica *rp;
static char dir[64];

static void remove_replica(void)
{
	replica_close(rp);
	t_rmtree(dir);
}

struct replica *fuzz_replica_tmp(void)
{
	char err[512];
	if (rp)
		return rp;
	if (t_tmpdir(dir, sizeof(dir), "fuzz-replica") ||
	    replica_open(dir, &rp, err, sizeof(err))) {
		fprintf(stderr, "replica_open %s failed\n", dir);
		abort();
	}
	atexit(remove_replica);
	return rp;
}
