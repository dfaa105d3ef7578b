/* Run a mounted arraysim until it is unmounted. */
#ifndef ARRAYSIM_FS_DAEMON_H
#define ARRAYSIM_FS_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "fs/channel.h"
#include "fs/fs.h"

struct daemon_opts {
	struct fs_config cfg;	/* cfg.store: absolute path */
	const char *mountpoint; /* absolute path */
	bool foreground;	/* -f: stay attached, log to stderr */
	const char *fuse_opts;	/* -o: passed to FUSE (allow_other, ...) */
	const char *metrics;	/* --metrics [ADDR:]PORT, or NULL */
	const char *graphite;	/* --graphite HOST:PORT[,prefix=P], or NULL */
	enum channel_uring io_uring; /* -o io_uring=off|auto|on */
	const char *replicate_to; /* the replica's store (absolute), or NULL */
	uint64_t rpo_ns;	  /* --rpo */
	const char *secret_file;  /* HOST:PORT: the secret (absolute) */
	bool repl_sync;		  /* --replication-mode sync */
};

/* Mount and serve. Without -f, returns in the parent once the mount is up
 * (0) or failed (2, reason printed); the child serves and exits. */
int fs_daemon_run(const struct daemon_opts *o);

#endif
