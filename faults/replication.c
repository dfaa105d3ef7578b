/* replication-link and replica: the link to the replica is lost, or the
 * replica is down. They stay in the registry until cleared; the
 * replication thread (replication/control.c) asks faults_active_kind()
 * before each batch and ships none while either stands: nothing fails,
 * nothing is lost, the backlog and the lag grow; cleared, the next batch
 * ships all of it. On a mount without --replicate-to they do nothing. */
#include "faults/kind.h"

const struct fault_ops fault_kind_replication_link = {
    .name = "replication-link",
    .help = "the link to the replica is down: no batch ships, the backlog "
	    "and lag grow; cleared, the next batch drains it",
    .single = true,
};

const struct fault_ops fault_kind_replica = {
    .name = "replica",
    .help = "the replica is down: as replication-link, the replica's "
	    "side",
    .single = true,
};
