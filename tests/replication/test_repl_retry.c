/* Reconnecting by itself (replication/retry.c), no FUSE:
 *   - which failures a reconnect may mend (the link's) and which it may
 *     not (a conflict, a damaged block, a refused secret, a bad answer)
 *   - the backoff: 0.1 s, doubling, at most 2 s
 *   - over loopback TCP to a replica server run here: the server killed,
 *     `sync` says the link is lost, state reconnecting, held_by
 *     link-lost, one replication_paused event, the thread idle (no spin)
 *     while nothing listens; the server back on its port, the source
 *     ships again by itself (no `start`): running, replication_resumed,
 *     the replica reads the file written while it was down
 *   - a server back with another secret: that refusal is no link loss,
 *     the state goes to failed with its one line
 * Waits are polls bounded at 10 s. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "faults/events.h"
#include "repl_test.h"
#include "replication/link.h"
#include "replication/repl_i.h"
#include "replication/serve.h"

static void test_link_lost_or_not(void **state)
{
	(void)state;
	static const int lost[] = {ECONNREFUSED, ECONNRESET,   EPIPE,
				   ETIMEDOUT,	 EHOSTUNREACH, ENETUNREACH,
				   ECONNABORTED, ENOTCONN,     ECANCELED};
	static const int not_lost[] = {EEXIST, EILSEQ, EACCES, EPROTO,
				       EIO,    ENOMEM, ENOSPC, EREMOTEIO};
	for (size_t i = 0; i < sizeof(lost) / sizeof(*lost); i++)
		assert_true(repl_link_lost(-lost[i]));
	for (size_t i = 0; i < sizeof(not_lost) / sizeof(*not_lost); i++)
		assert_false(repl_link_lost(-not_lost[i]));
	assert_false(repl_link_lost(0));
}

static void test_backoff(void **state)
{
	(void)state;
	const uint64_t ms = 1000000;
	static const uint64_t want[] = {100, 200, 400, 800, 1600, 2000, 2000};
	uint64_t b = 0;
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		b = repl_backoff_next(b);
		assert_int_equal(b, want[i] * ms);
	}
}

/* A replica server on 127.0.0.1, one session at a time, on a thread;
 * killed by shutting its session and listening sockets. */
struct srv {
	char dir[64], bound[300];
	int port, lfd;
	_Atomic int session, stop;
	struct repl_secret secret;
	struct replica *rp;
	pthread_t th;
};

static void *srv_main(void *arg)
{
	struct srv *s = arg;
	struct repl_server rs = {s->rp, &s->secret, NULL, 2000};
	while (!atomic_load(&s->stop)) {
		struct pollfd p = {s->lfd, POLLIN, 0};
		if (poll(&p, 1, 20) <= 0)
			continue;
		int fd = accept(s->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		atomic_store(&s->session, fd);
		char err[512];
		if (!atomic_load(&s->stop))
			repl_serve_session(&rs, fd, err, sizeof(err));
		atomic_store(&s->session, -1);
		close(fd);
	}
	return NULL;
}

static void srv_start(struct srv *s, const char *secret)
{
	char err[512], hp[32];
	snprintf(hp, sizeof(hp), "127.0.0.1:%d", s->port);
	memcpy(s->secret.key, secret, strlen(secret));
	s->secret.len = strlen(secret);
	assert_int_equal(replica_open(s->dir, &s->rp, err, sizeof(err)), 0);
	if (repl_serve_listen(hp, &s->lfd, s->bound, sizeof(s->bound), err,
			      sizeof(err)))
		fail_msg("listen: %s", err);
	s->port = atoi(strrchr(s->bound, ':') + 1);
	atomic_store(&s->session, -1);
	atomic_store(&s->stop, 0);
	assert_int_equal(pthread_create(&s->th, NULL, srv_main, s), 0);
}

static void srv_kill(struct srv *s)
{
	atomic_store(&s->stop, 1);
	int fd = atomic_load(&s->session);
	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
	pthread_join(s->th, NULL);
	close(s->lfd);
	replica_close(s->rp);
}

struct ctx {
	struct t_store src;
	struct srv srv;
	char tmp[64], secret[128], evpath[128];
	struct events *ev;
	struct repl *r;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	t_newdir(c->src.dir);
	t_newdir(c->srv.dir);
	t_newdir(c->tmp);
	snprintf(c->evpath, sizeof(c->evpath), "%s/events.jsonl", c->tmp);
	snprintf(c->secret, sizeof(c->secret), "%s/secret", c->tmp);
	FILE *f = fopen(c->secret, "w");
	fputs("retry secret\n", f);
	fclose(f);
	chmod(c->secret, 0600);
	t_store_open(&c->src);
	assert_int_equal(events_open(c->evpath, &c->ev), 0);
	srv_start(&c->srv, "retry secret");
	char dest[64];
	snprintf(dest, sizeof(dest), "127.0.0.1:%d", c->srv.port);
	struct repl_config cfg = {.dest = dest,
				  .secret_file = c->secret,
				  .rpo_ns = 50ull * 1000 * 1000,
				  .events = c->ev};
	c->r = t_repl_start(&c->src, &cfg);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	repl_close(c->r);
	if (c->srv.rp)
		srv_kill(&c->srv);
	events_close(c->ev);
	t_store_close(&c->src);
	t_rmtree(c->src.dir);
	t_rmtree(c->srv.dir);
	t_rmtree(c->tmp);
	free(c);
	return 0;
}

static int ctl(struct ctx *c, const char *args, char *err)
{
	return t_repl_ctl(c->r, args, err);
}

static void wait_status(struct ctx *c, const char *line)
{
	struct timespec tick = {0, 10 * 1000 * 1000};
	for (int i = 0; i < 1000 && !t_repl_status_has(c->r, line); i++)
		nanosleep(&tick, NULL);
	if (!t_repl_status_has(c->r, line))
		fail_msg("status never had '%s'", line);
}

/* The replica gone: the link is lost, and the thread tries again on its
 * backoff, sleeping between tries (over 1 s, far less than a core). */
static void lose_the_replica(struct ctx *c)
{
	char err[512];
	t_file(&c->src, "a", 4, 0x10);
	assert_int_equal(ctl(c, "sync", err), 0);
	srv_kill(&c->srv);
	c->srv.rp = NULL;
	t_file(&c->src, "b", 3, 0x50);
	assert_int_not_equal(ctl(c, "sync", err), 0);
	assert_non_null(strstr(err, "reconnecting by itself"));
	assert_true(t_repl_status_has(c->r, "state reconnecting\n"));
	assert_true(t_repl_status_has(c->r, "held_by link-lost\n"));
	assert_int_equal(t_repl_figure(c->r, "link_losses"), 1);
	assert_int_equal(
	    t_lines_with(c->evpath, "\"event\":\"replication_paused\",\"why\":"
				    "\"link-lost\""),
	    1);
	struct timespec window = {1, 0};
	uint64_t cpu = t_ns_of(CLOCK_PROCESS_CPUTIME_ID);
	nanosleep(&window, NULL);
	cpu = t_ns_of(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	if (cpu > 250ull * 1000 * 1000)
		fail_msg("%.0f ms of CPU in 1 s reconnecting: spinning",
			 cpu / 1e6);
	assert_true(t_repl_status_has(c->r, "state reconnecting\n"));
}

static void test_reconnects_by_itself(void **state)
{
	struct ctx *c = *state;
	lose_the_replica(c);
	uint64_t batches = t_repl_figure(c->r, "batches");
	srv_start(&c->srv, "retry secret"); /* the same port */
	wait_status(c, "state running\n");
	assert_true(t_repl_figure(c->r, "batches") > batches);
	assert_false(t_repl_status_has(c->r, "held_by"));
	assert_int_equal(
	    t_lines_with(c->evpath, "\"event\":\"replication_resumed\",\"why\":"
				    "\"link-lost\""),
	    1);
	assert_int_equal(t_repl_figure(c->r, "backlog_txns"), 0);
	repl_close(c->r);
	c->r = NULL;
	srv_kill(&c->srv);
	c->srv.rp = NULL;
	struct t_store dst;
	memcpy(dst.dir, c->srv.dir, sizeof(dst.dir));
	t_store_open(&dst);
	assert_true(t_file_is(&dst, "b", 3, 0x50));
	assert_true(t_file_is(&dst, "a", 4, 0x10));
	t_store_close(&dst);
}

static void test_refused_secret_fails(void **state)
{
	struct ctx *c = *state;
	char err[512];
	lose_the_replica(c);
	srv_start(&c->srv, "another secret");
	assert_int_not_equal(ctl(c, "sync", err), 0);
	wait_status(c, "state failed\n");
	assert_non_null(strstr(err, "secret"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(ctl(c, "sync", err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_link_lost_or_not),
	    cmocka_unit_test(test_backoff),
	    cmocka_unit_test_setup_teardown(test_reconnects_by_itself, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_refused_secret_fails, setup,
					    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
