/* What the replication harnesses share: one replica store in a temporary
 * directory, opened on first use and removed at exit. */
#ifndef ARRAYSIM_TESTS_FUZZ_REPLICA_TMP_H
#define ARRAYSIM_TESTS_FUZZ_REPLICA_TMP_H

#include "replication/replica.h"

struct replica *fuzz_replica_tmp(void);

#endif
