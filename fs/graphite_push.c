/* The Carbon pusher; see fs/graphite_push.h. Carbon's plaintext protocol
 * is one `path value timestamp` line a sample over a TCP stream
 * (common/graphite.h makes the lines from the Prometheus exposition).
 *
 * The connection is kept open between pushes, as carbon-relay and collectd
 * do: Carbon takes any number of lines a connection. A push that cannot
 * be sent whole drops the connection and that second's lines, and the
 * next second connects again: Graphite stores one value a second per
 * series, so a lost second is a gap, never a wrong value. */
#include "fs/graphite_push.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/periodic.h"
#include "fs/metrics_render.h"

#define CONNECT_TIMEOUT_MS 1000

struct graphite_push {
	struct fs *fs;
	struct graphite_target t;
	struct periodic *loop;
	int fd;			    /* -1: not connected */
	bool down;		    /* the last push failed, and was logged */
	struct array_snapshot snap; /* the pusher thread's own */
};

/* Connect @fd to @a within CONNECT_TIMEOUT_MS: an unreachable server must
 * not hold the pusher for the kernel's two-minute SYN retries. */
static int connect_bounded(int fd, const struct addrinfo *a)
{
	struct pollfd p = {.fd = fd, .events = POLLOUT};
	int e = 0;
	socklen_t el = sizeof(e);

	if (!connect(fd, a->ai_addr, a->ai_addrlen))
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	if (poll(&p, 1, CONNECT_TIMEOUT_MS) != 1)
		return -ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el))
		return -errno;
	return -e;
}

static int open_conn(const struct graphite_target *t)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *a;
	int fd = -1, r = getaddrinfo(t->host, t->port, &hints, &res);

	if (r)
		return -EHOSTUNREACH;
	r = -ECONNREFUSED;
	for (a = res; a; a = a->ai_next) {
		fd = socket(a->ai_family,
			    a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		r = connect_bounded(fd, a);
		if (!r)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd >= 0 ? fd : r;
}

static int send_all(int fd, const char *b, size_t n)
{
	while (n) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);

		if (w > 0) {
			b += w;
			n -= (size_t)w;
		} else if (w < 0 && errno == EAGAIN) {
			if (poll(&p, 1, CONNECT_TIMEOUT_MS) != 1)
				return -ETIMEDOUT;
		} else {
			return w < 0 ? -errno : -EPIPE;
		}
	}
	return 0;
}

/* This second's lines, malloc'ed into *@out; their length. */
static size_t lines_now(struct graphite_push *g, char **out)
{
	char *expo = NULL;
	size_t elen = 0, len = 0;
	FILE *f = open_memstream(&expo, &elen);

	*out = NULL;
	if (!f)
		return 0;
	metrics_render(g->fs, &g->snap, f);
	fclose(f);
	f = open_memstream(out, &len);
	if (f) {
		graphite_from_exposition(expo, elen, g->t.prefix,
					 (uint64_t)clock_wall_ns() / NS_PER_SEC,
					 f, NULL);
		fclose(f);
	}
	free(expo);
	return len;
}

static void push(void *ctx)
{
	struct graphite_push *g = ctx;
	char *buf;
	size_t len = lines_now(g, &buf);
	int r = buf ? 0 : -ENOMEM;

	if (!r && g->fd < 0 && (r = open_conn(&g->t)) >= 0) {
		g->fd = r;
		r = 0;
	}
	if (!r)
		r = send_all(g->fd, buf, len);
	free(buf);
	if (r && g->fd >= 0) {
		close(g->fd);
		g->fd = -1;
	}
	if (r && !g->down)
		log_warn("graphite",
			 "cannot push to %s:%s: %s; trying again each second",
			 g->t.host, g->t.port, strerror(-r));
	else if (!r && g->down)
		log_info("graphite", "pushing to %s:%s again", g->t.host,
			 g->t.port);
	g->down = r != 0;
}

int graphite_push_start(struct fs *fs, const struct graphite_target *t,
			struct graphite_push **out, char *err, size_t errlen)
{
	struct graphite_push *g = calloc(1, sizeof(*g));
	int r;

	if (!g)
		return -ENOMEM;
	g->fs = fs;
	g->t = *t;
	g->fd = -1;
	r = periodic_start(NS_PER_SEC,
			   PERIODIC_FIXED_GRID | PERIODIC_RUN_AT_STOP, push, g,
			   &g->loop);
	if (r) {
		snprintf(err, errlen, "--graphite: cannot start: %s",
			 strerror(-r));
		free(g);
		return r;
	}
	*out = g;
	return 0;
}

void graphite_push_stop(struct graphite_push *g)
{
	if (!g)
		return;
	periodic_stop(g->loop);
	if (g->fd >= 0)
		close(g->fd);
	free(g);
}
