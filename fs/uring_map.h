/* Ring requests by their unique (fs/uring.c): a reply, written by
 * libfuse from whatever thread answers the request, finds the ring entry
 * it belongs to. Intrusive: an entry embeds its uring_map_node. */
#ifndef ARRAYSIM_FS_URING_MAP_H
#define ARRAYSIM_FS_URING_MAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct uring_map_node {
	uint64_t unique;
	struct uring_map_node *next;
};

/* lock is statically initialized (URING_MAP_INIT) and never destroyed:
 * a reply may look a unique up while the rings are being torn down. */
struct uring_map {
	pthread_mutex_t lock;
	struct uring_map_node **buckets;
	unsigned mask;
	unsigned replying; /* taken, not yet released */
	bool closed;
};
#define URING_MAP_INIT                                                         \
	{                                                                      \
		.lock = PTHREAD_MUTEX_INITIALIZER                              \
	}

/* Room for @entries requests at once: 0 or -ENOMEM. */
int uring_map_alloc(struct uring_map *m, unsigned entries);
/* After uring_map_close, or when nothing was ever put. */
void uring_map_free(struct uring_map *m);
void uring_map_put(struct uring_map *m, struct uring_map_node *n);
/* Take the node of @unique out; the caller then owns its reply and calls
 * uring_map_release when done. NULL: not a ring request, or closed. */
struct uring_map_node *uring_map_take(struct uring_map *m, uint64_t unique);
void uring_map_release(struct uring_map *m);
/* No reply may reach a node after this returns. */
void uring_map_close(struct uring_map *m);

#endif
