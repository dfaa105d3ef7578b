/* Ring setup and teardown in one order (common/ring_setup.h). */
#include "common/ring_setup.h"

#include <pthread.h>

static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;

int ring_setup(unsigned entries, struct io_uring *ring, unsigned flags)
{
	pthread_mutex_lock(&setup_lock);
	int r = io_uring_queue_init(entries, ring, flags);
	pthread_mutex_unlock(&setup_lock);
	return r;
}

void ring_teardown(struct io_uring *ring)
{
	pthread_mutex_lock(&setup_lock);
	io_uring_queue_exit(ring);
	pthread_mutex_unlock(&setup_lock);
}
