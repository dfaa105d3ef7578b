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
 * Lateness is also kept per 100 ms step in a ring of 128 (12.8 s): the
 * samples' per-second late share and worst lateness, and the warning
 * when the late share of the last 10 s passes 5% (log_warn once per
 * episode, with the share and the worst; log_info when it is over).
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

#define COMPLETER_BATCH 64 /* completions per unlock */
#define RING (COMPLETER_SPAN_NS / COMPLETER_STEP_NS)
#define WARN_SPAN_NS 10000000000ull /* the warning's window */
#define WARN_SHARE 0.05
#define WARN_MIN 20 /* replies in the window, for a share to mean much */

struct late_step {
	uint64_t idx; /* now / COMPLETER_STEP_NS; 0: never used */
	uint64_t completed, late, worst_ns;
};

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
	int stop_fd; /* eventfd: written once by completer_free */
	struct completer_lateness late; /* under lock */
	struct late_step ring[RING];	/* under lock */
	uint64_t step_idx;		/* the step under way */
	bool warned;			/* in a host-bound episode */
	uint64_t episodes;
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

/* Count the top request, due at @deadline_ns and completed at @now_ns:
 * late when it goes out more than a tenth of its modelled latency (from
 * io->submit_ns) after its deadline, i.e. the host, not the model, set
 * its pace. Under the lock. */
/* The steps of the last @span_ns before step @idx's end (locked). */
static void window_sum(const struct completer *c, uint64_t idx,
		       uint64_t span_ns, struct completer_window *out)
{
	uint64_t n = (span_ns + COMPLETER_STEP_NS - 1) / COMPLETER_STEP_NS;

	*out = (struct completer_window){0};
	if (n > RING)
		n = RING;
	for (uint64_t k = 0; k < n && k <= idx; k++) {
		const struct late_step *s = &c->ring[(idx - k) % RING];

		if (s->idx != idx - k)
			continue;
		out->completed += s->completed;
		out->late += s->late;
		if (s->worst_ns > out->worst_ns)
			out->worst_ns = s->worst_ns;
	}
}

/* A step is over: is the host-bound episode starting or over? Once per
 * step, over the 10 s before it (locked). */
static void warn_check(struct completer *c, uint64_t done_idx)
{
	struct completer_window w;
	double share;

	window_sum(c, done_idx, WARN_SPAN_NS, &w);
	share = w.completed ? (double)w.late / (double)w.completed : 0;
	if (!c->warned && w.completed >= WARN_MIN && share > WARN_SHARE) {
		c->warned = true;
		c->episodes++;
		log_warn("array",
			 "host-bound: %.1f%% of %llu replies in the last 10 s "
			 "went out late (worst %.3f s late): the host, not "
			 "the model, sets the pace and the figures; try a "
			 "lower --scale",
			 share * 100, (unsigned long long)w.completed,
			 (double)w.worst_ns / 1e9);
	} else if (c->warned && share <= WARN_SHARE) {
		c->warned = false;
		log_info("array",
			 "host-bound no more: %.1f%% of %llu replies late "
			 "in the last 10 s",
			 share * 100, (unsigned long long)w.completed);
	}
}

/* The ring's step for @now_ns, started afresh when it is a new one. */
static struct late_step *step_at(struct completer *c, uint64_t now_ns)
{
	uint64_t idx = now_ns / COMPLETER_STEP_NS;
	struct late_step *s = &c->ring[idx % RING];

	if (idx != c->step_idx) {
		if (c->step_idx && idx > c->step_idx)
			warn_check(c, idx - 1);
		c->step_idx = idx;
	}
	if (s->idx != idx)
		*s = (struct late_step){.idx = idx};
	return s;
}

static void lateness_count(struct completer *c, uint64_t deadline_ns,
			   uint64_t now_ns)
{
	const struct array_io *io = c->heap[0].io;
	uint64_t modelled =
	    deadline_ns > io->submit_ns ? deadline_ns - io->submit_ns : 0;
	struct late_step *s = step_at(c, now_ns);

	c->late.completed++;
	s->completed++;
	if (now_ns > deadline_ns && now_ns - deadline_ns > c->late.worst_ns)
		c->late.worst_ns = now_ns - deadline_ns;
	if (now_ns > deadline_ns && now_ns - deadline_ns > s->worst_ns)
		s->worst_ns = now_ns - deadline_ns;
	if (now_ns > deadline_ns && now_ns - deadline_ns > modelled / 10) {
		c->late.late++;
		c->late.late_ns += now_ns - deadline_ns;
		s->late++;
	}
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
			lateness_count(c, c->heap[0].deadline_ns, now_ns);
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

void completer_lateness(struct completer *c, struct completer_lateness *out)
{
	pthread_mutex_lock(&c->lock);
	*out = c->late;
	pthread_mutex_unlock(&c->lock);
}

void completer_window(struct completer *c, uint64_t span_ns,
		      struct completer_window *out)
{
	pthread_mutex_lock(&c->lock);
	window_sum(c, clock_mono_ns() / COMPLETER_STEP_NS, span_ns, out);
	pthread_mutex_unlock(&c->lock);
}

uint64_t completer_episodes(struct completer *c)
{
	uint64_t n;

	pthread_mutex_lock(&c->lock);
	n = c->episodes;
	pthread_mutex_unlock(&c->lock);
	return n;
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
