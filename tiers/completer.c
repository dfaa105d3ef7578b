/* The completer: requests wait in a min-heap until their deadline.
 *
 *   submitters (any thread)              completer thread
 *   -----------------------              ----------------
 *   lock; heap push                      poll(timerfd, stopfd)
 *   earlier than the armed time?         lock; pop all due (<= now)
 *     timerfd_settime(deadline)  --->    unlock; io->complete(io) each
 *   unlock                               lock; arm timerfd to heap top
 *
 * The timer is armed with an absolute CLOCK_MONOTONIC time, so a deadline
 * already past fires at once and a late re-arm loses nothing. A submitter
 * whose deadline is the new earliest re-arms the timerfd itself, under the
 * lock: one syscall, where an eventfd kick would cost a syscall, a wakeup
 * and a re-arm by the thread. The eventfd only says "stop". `armed_ns`
 * (under the lock) is what the timerfd is set to, UINT64_MAX when unarmed.
 *
 * Precision: timerfd hrtimers are started with no slack; the thread also
 * sets its own timer slack to 1 ns (PR_SET_TIMERSLACK, default 50 us) so
 * that nothing else it sleeps on is deferred to coalesce wakeups. It
 * never spins: it sleeps in poll() until the timer or the stop event.
 * Lateness is then the host's wakeup latency (tests/tiers/test_completer
 * prints it; a bare timerfd loop on the same host is the floor).
 * Callbacks run without the lock, so io->complete may submit again.
 *
 * Every reply is counted, under the lock, by the late meter
 * (tiers/late_meter.h): the late share and the host-bound warning.
 */
#include "tiers/completer.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common/log.h"
#include "common/clock.h"
#include "tiers/array_io.h"
#include "tiers/late_meter.h"

#define COMPLETER_BATCH 64 /* completions per unlock */

struct completer_entry {
	uint64_t deadline_ns;
	struct array_io *io;
};

struct completer {
	pthread_mutex_t lock;
	struct completer_entry *heap; /* min-heap on deadline_ns */
	unsigned n, cap;
	uint64_t armed_ns; /* timerfd expiry, UINT64_MAX when disarmed */
	bool stopping;
	int timer_fd;
	int stop_fd;		 /* eventfd: written once by completer_free */
	struct late_meter meter; /* under lock */
	pthread_t thread;
};

/* ---- heap --------------------------------------------------------------- */

static int heap_push(struct completer *c, uint64_t deadline_ns,
		     struct array_io *io)
{
	unsigned i;

	if (c->n == c->cap) {
		unsigned cap = c->cap ? 2 * c->cap : 256;
		struct completer_entry *h = realloc(c->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		c->heap = h;
		c->cap = cap;
	}
	for (i = c->n++; i > 0; i = (i - 1) / 2) {
		unsigned parent = (i - 1) / 2;

		if (c->heap[parent].deadline_ns <= deadline_ns)
			break;
		c->heap[i] = c->heap[parent];
	}
	c->heap[i] = (struct completer_entry){deadline_ns, io};
	return 0;
}

static struct array_io *heap_pop(struct completer *c)
{
	struct array_io *top = c->heap[0].io;
	struct completer_entry last = c->heap[--c->n];
	unsigned i = 0;

	for (;;) {
		unsigned child = 2 * i + 1;

		if (child >= c->n)
			break;
		if (child + 1 < c->n &&
		    c->heap[child + 1].deadline_ns < c->heap[child].deadline_ns)
			child++;
		if (last.deadline_ns <= c->heap[child].deadline_ns)
			break;
		c->heap[i] = c->heap[child];
		i = child;
	}
	if (c->n)
		c->heap[i] = last;
	return top;
}

/* ---- timer -------------------------------------------------------------- */

/* Set the timerfd to @deadline_ns (UINT64_MAX: disarm). Under the lock. */
static void timer_arm_locked(struct completer *c, uint64_t deadline_ns)
{
	struct itimerspec its = {0};

	if (deadline_ns == c->armed_ns)
		return;
	if (deadline_ns != UINT64_MAX) {
		/* An all-zero it_value would disarm: deadline 0 is 1 ns. */
		uint64_t ns = deadline_ns ? deadline_ns : 1;

		its.it_value.tv_sec = (time_t)(ns / 1000000000u);
		its.it_value.tv_nsec = (long)(ns % 1000000000u);
	}
	if (timerfd_settime(c->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
		/* Cannot happen with a valid fd and time; say so if it does. */
		log_error("completer", "timerfd_settime: errno %d", errno);
		return;
	}
	c->armed_ns = deadline_ns;
}

static void *completer_main(void *arg)
{
	struct completer *c = arg;
	struct array_io *due[COMPLETER_BATCH];
	struct pollfd pfd[2] = {
	    {.fd = c->timer_fd, .events = POLLIN},
	    {.fd = c->stop_fd, .events = POLLIN},
	};
	uint64_t ticks;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	pthread_mutex_lock(&c->lock);
	for (;;) {
		uint64_t now_ns = clock_mono_ns();
		unsigned n = 0;

		while (n < COMPLETER_BATCH && c->n &&
		       (c->stopping || c->heap[0].deadline_ns <= now_ns)) {
			late_meter_count(&c->meter, c->heap[0].deadline_ns,
					 c->heap[0].io->submit_ns, now_ns);
			due[n++] = heap_pop(c);
		}
		if (n) {
			pthread_mutex_unlock(&c->lock);
			for (unsigned i = 0; i < n; i++)
				due[i]->complete(due[i]);
			pthread_mutex_lock(&c->lock);
			continue;
		}
		if (c->stopping)
			break; /* and the heap is empty */
		timer_arm_locked(c, c->n ? c->heap[0].deadline_ns : UINT64_MAX);
		pthread_mutex_unlock(&c->lock);

		while (poll(pfd, 2, -1) < 0 && errno == EINTR)
			;
		/* Non-blocking: clears the expiry if the timer fired. The
		 * loop then pops what is due and re-arms to the new top; the
		 * stop eventfd is never cleared, stopping is final. */
		if (read(c->timer_fd, &ticks, sizeof(ticks)) < 0 &&
		    errno != EAGAIN)
			log_error("completer", "timerfd read: errno %d", errno);
		pthread_mutex_lock(&c->lock);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* ---- API ---------------------------------------------------------------- */

int completer_new(struct completer **out)
{
	struct completer *c;
	int rc;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	pthread_mutex_init(&c->lock, NULL);
	c->armed_ns = UINT64_MAX;
	c->timer_fd =
	    timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (c->timer_fd < 0) {
		rc = -errno;
		goto out_free;
	}
	c->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (c->stop_fd < 0) {
		rc = -errno;
		goto out_close_timer;
	}
	rc = -pthread_create(&c->thread, NULL, completer_main, c);
	if (rc < 0)
		goto out_close_stop;
	*out = c;
	return 0;

out_close_stop:
	close(c->stop_fd);
out_close_timer:
	close(c->timer_fd);
out_free:
	log_error("completer", "cannot start: errno %d", -rc);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return rc;
}

int completer_submit(struct completer *c, uint64_t deadline_ns,
		     struct array_io *io)
{
	int rc;

	pthread_mutex_lock(&c->lock);
	if (c->stopping) {
		pthread_mutex_unlock(&c->lock);
		io->complete(io);
		return 0;
	}
	rc = heap_push(c, deadline_ns, io);
	/* A new earliest deadline: move the timer forward ourselves. */
	if (rc == 0 && deadline_ns < c->armed_ns)
		timer_arm_locked(c, deadline_ns);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

void completer_lateness(struct completer *c, struct late_totals *out)
{
	pthread_mutex_lock(&c->lock);
	*out = c->meter.totals;
	pthread_mutex_unlock(&c->lock);
}

void completer_window(struct completer *c, uint64_t span_ns,
		      struct late_window *out)
{
	pthread_mutex_lock(&c->lock);
	late_meter_window(&c->meter, clock_mono_ns(), span_ns, out);
	pthread_mutex_unlock(&c->lock);
}

unsigned completer_pending(struct completer *c)
{
	unsigned n;

	pthread_mutex_lock(&c->lock);
	n = c->n;
	pthread_mutex_unlock(&c->lock);
	return n;
}

void completer_free(struct completer *c)
{
	uint64_t one = 1;

	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stopping = true;
	pthread_mutex_unlock(&c->lock);
	if (write(c->stop_fd, &one, sizeof(one)) < 0)
		log_error("completer", "stop: errno %d", errno);
	pthread_join(c->thread, NULL);
	close(c->stop_fd);
	close(c->timer_fd);
	pthread_mutex_destroy(&c->lock);
	free(c->heap);
	free(c);
}
