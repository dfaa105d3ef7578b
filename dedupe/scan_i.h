/* dedupe-scan internals shared by the engine (scan.c), its walker
 * (scan_walk.c) and the queue between them (scan_queue.c): scan.c calls
 * scan_walk.c, both call scan_queue.c, which calls neither. */
#ifndef ARRAYSIM_DEDUPE_SCAN_I_H
#define ARRAYSIM_DEDUPE_SCAN_I_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#include "dedupe/scan.h"
#include "dedupe/scan_index.h"

/* A directory or an extension; workers add to it while the walk goes on,
 * so it never moves once made. */
struct group {
	char *name;
	_Atomic uint64_t blocks[SCAN_MAX_SIZES];
	_Atomic uint64_t dup[SCAN_MAX_SIZES];
	struct group *next; /* extension hash chain */
};

struct sfile {
	int fd;
	uint64_t size;
	bool sparse; /* fewer bytes allocated than its size: look for holes */
	struct group *dir, *ext;
	char *name;	   /* for the list of unreadable files */
	bool name_is_path; /* named on the command line: @name says it all */
	_Atomic int units; /* queued or in reading; the last closes fd */
	_Atomic bool failed;
	_Atomic bool changed; /* shorter than the walk saw it */
};

struct unit {
	struct sfile *f;
	uint64_t start, end;
};

struct queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty, nonfull;
	struct unit *u;
	size_t cap, head, n;
	bool closed;
};

struct group_list {
	struct group **g;
	size_t n, cap;
};

struct inode_set {
	uint64_t *key; /* dev, ino pairs; 0,0 is empty */
	size_t cap, used;
};

struct scan {
	const struct scan_config *cfg;
	struct scan_result *res; /* walk counts: written by the walker only */
	struct queue q;
	struct scan_index *ix[SCAN_MAX_SIZES];
	uint32_t chunk; /* read size; a multiple of every block size */
	uint32_t max_bs;
	uint64_t unit; /* a multiple of chunk */
	struct group_list dirs, exts;
	struct group **ext_hash;
	struct inode_set links;
	pthread_mutex_t unreadable_lock;
	_Atomic uint64_t bytes_done, bytes_found, files_found;
	_Atomic bool walk_done;
	_Atomic uint64_t changed;
	uint64_t t0;
};

/* Walk cfg->paths and queue every file; closes nothing (the caller closes
 * the queue). 0, or -ENOMEM. */
int scan_walk(struct scan *s);
/* Count and list @dir/@name (either may be NULL) as unreadable. */
void scan_unreadable(struct scan *s, const char *dir, const char *name);
/* The queue (scan_queue.c): init (0 or -ENOMEM) and fini. */
int scan_queue_init(struct queue *q);
void scan_queue_fini(struct queue *q);
/* Queue a unit, waiting while the queue is full. */
void scan_queue_push(struct queue *q, const struct unit *u);
/* No more units: waiting workers wake and find none. */
void scan_queue_close(struct queue *q);
/* Next unit; false when none is queued (and @wait is false, or the queue
 * is closed). */
bool scan_queue_pop(struct queue *q, struct unit *out, bool wait);
/* Drop one unit's hold on its file; the last closes and frees it. */
void scan_file_unref(struct sfile *f);

#endif
