/* A replica across TCP: an `arraysim replica` process (replication/link.h,
 * the frames and handshake of replication/frame.h). A failed exchange
 * drops the connection; the next one connects again. Every wait on the
 * peer is bounded (connect, handshake, answer) and ends at a cancel, so
 * that a peer gone silent (blackholed) never holds the thread for good. */
#include "replication/link.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "replication/frame.h"

/* A batch's answer may take the replica this long (its bytes made
 * durable); connecting, and the replica's part of the handshake (it
 * answers at once when it is free), this long each. */
#define ANSWER_MS 120000
#define CONNECT_MS 5000
#define HANDSHAKE_MS 5000

struct tcp_link {
	char host[256], port[16];
	struct repl_secret secret;
	struct repl_conn c; /* fd -1: not connected */
	struct wbuf in;
	uint64_t overhead;
	int cancel_fd; /* an eventfd: readable once cancelled */
};

/* Connect @fd to @a within CONNECT_MS: 0 or -errno. */
static int connect_within(struct tcp_link *t, int fd, const struct addrinfo *a)
{
	if (!connect(fd, a->ai_addr, a->ai_addrlen))
		return 0;
	if (errno != EINPROGRESS)
		return -errno;
	struct repl_conn w = {
	    .fd = fd, .timeout_ms = CONNECT_MS, .cancel = &t->cancel_fd};
	int e = repl_conn_wait(&w, POLLOUT);
	socklen_t len = sizeof(int);
	int so = 0;
	if (!e && getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &len) < 0)
		so = errno;
	return e ? e : -so;
}

static int dial(struct tcp_link *t, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *a;
	int g = getaddrinfo(t->host, t->port, &hints, &res);
	if (g) {
		snprintf(err, errlen, "replica %s:%s: %s", t->host, t->port,
			 gai_strerror(g));
		return -EHOSTUNREACH;
	}
	int fd = -1, e = -ECONNREFUSED;
	for (a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family,
			    a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			continue;
		if ((e = connect_within(t, fd, a))) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, errlen, "replica %s:%s: %s", t->host, t->port,
			 strerror(-e));
		return e;
	}
	repl_sock_tune(fd);
	t->c.fd = fd;
	return 0;
}

static void hang_up(struct tcp_link *t)
{
	if (t->c.fd >= 0)
		close(t->c.fd);
	t->c.fd = -1;
}

/* Connected and authenticated, or one line why not. */
static int ensure(struct tcp_link *t, char *err, size_t errlen)
{
	if (t->c.fd >= 0)
		return 0;
	uint64_t before = t->c.bytes;
	int e = dial(t, err, errlen);
	char line[400];
	t->c.timeout_ms = HANDSHAKE_MS;
	if (!e)
		e = repl_hs_source(&t->c, &t->secret, line, sizeof(line));
	t->c.timeout_ms = ANSWER_MS;
	if (e && t->c.fd >= 0) {
		snprintf(err, errlen, "replica %s:%s: %s", t->host, t->port,
			 line);
		hang_up(t);
	}
	t->overhead += t->c.bytes - before;
	return e;
}

/* Send a message, take the answer of type @want (at most @max bytes). */
static int exchange(struct tcp_link *t, uint8_t type, const struct wbuf *m,
		    uint8_t want, uint64_t max, char *err, size_t errlen)
{
	int e = ensure(t, err, errlen);
	if (e)
		return e;
	uint8_t got = 0;
	uint64_t lim = max < REPL_HS_FRAME_MAX ? REPL_HS_FRAME_MAX : max;
	if (!(e = repl_frame_send(&t->c, type, m->p, m->len)))
		e = repl_frame_recv(&t->c, &got, &t->in, lim);
	char line[420];
	if (!e && got == RF_ERROR) {
		e = repl_frame_error_of(&t->in, line, sizeof(line));
		/* the replica's own failure, never one a reconnect mends */
		e = repl_link_lost(e) ? -EREMOTEIO : e;
		snprintf(err, errlen, "replica %s:%s says: %s", t->host,
			 t->port, line);
	} else if (!e && (got != want || t->in.len > max)) {
		e = -EPROTO;
		snprintf(err, errlen, "replica %s:%s: a bad answer", t->host,
			 t->port);
	} else if (e) {
		snprintf(err, errlen, "replica %s:%s: %s", t->host, t->port,
			 e == -ECONNRESET ? "connection lost" : strerror(-e));
	}
	if (e)
		hang_up(t);
	return e;
}

/* What an exchange carried beyond the @counted bytes of the messages
 * themselves (all of it when it failed) goes to the overhead. */
static void account(struct tcp_link *t, uint64_t before, uint64_t counted,
		    int e)
{
	uint64_t carried = t->c.bytes - before;
	t->overhead += e || carried < counted ? carried : carried - counted;
}

static int t_fps(void *ctx, const struct wbuf *fps, struct wbuf *verdict,
		 struct replica_tally *tally, char *err, size_t errlen)
{
	struct tcp_link *t = ctx;
	uint64_t before = t->c.bytes, n = 0;
	for (int i = 0; i < 8 && fps->len >= 9; i++)
		n |= (uint64_t)fps->p[1 + i] << (8 * i);
	int e = exchange(t, RF_FPS, fps, RF_VERDICT, n, err, errlen);
	if (!e && t->in.len != n)
		e = -EPROTO;
	*tally = (struct replica_tally){0};
	for (size_t i = 0; !e && i < n; i++) {
		uint8_t v = t->in.p[i];
		tally->have += v == REPL_HAVE;
		tally->local += v == REPL_LOCAL;
		tally->need += v == REPL_NEED;
		tally->conflict += v == REPL_CONFLICT;
		e = v < REPL_HAVE || v > REPL_CONFLICT ? -EPROTO : 0;
	}
	wbuf_reset(verdict);
	if (!e && n) /* an empty batch's FPS: no verdicts, no bytes */
		wbuf_put(verdict, t->in.p, n);
	if (!e && verdict->oom)
		e = -ENOMEM;
	if (e == -EPROTO || e == -ENOMEM) {
		snprintf(err, errlen, "replica %s:%s: %s", t->host, t->port,
			 e == -ENOMEM ? "out of memory" : "bad verdicts");
		hang_up(t);
	}
	account(t, before, fps->len + n, e);
	return e;
}

static int t_acked(struct tcp_link *t, uint8_t type, const struct wbuf *m,
		   uint64_t counted, char *err, size_t errlen)
{
	uint64_t before = t->c.bytes;
	int e = exchange(t, type, m, RF_ACK, REPL_ACK_LEN, err, errlen);
	if (!e && t->in.len != REPL_ACK_LEN) {
		snprintf(err, errlen, "replica %s:%s: a bad answer", t->host,
			 t->port);
		hang_up(t);
		e = -EPROTO;
	}
	account(t, before, counted, e);
	return e;
}

static int t_blocks(void *ctx, const struct wbuf *blocks, char *err,
		    size_t errlen)
{
	return t_acked(ctx, RF_BLOCKS, blocks, blocks->len, err, errlen);
}

static int t_commit(void *ctx, const struct wbuf *meta, char *err,
		    size_t errlen)
{
	return t_acked(ctx, RF_META, meta, meta->len + REPL_ACK_LEN, err,
		       errlen);
}

static uint64_t t_overhead(void *ctx)
{
	struct tcp_link *t = ctx;
	uint64_t o = t->overhead;
	t->overhead = 0;
	return o;
}

static void t_close(void *ctx)
{
	struct tcp_link *t = ctx;
	hang_up(t);
	wbuf_free(&t->in);
	if (t->cancel_fd >= 0)
		close(t->cancel_fd);
	OPENSSL_cleanse(&t->secret, sizeof(t->secret));
	free(t);
}

static void t_cancel(void *ctx)
{
	struct tcp_link *t = ctx;
	uint64_t one = 1;
	ssize_t n = write(t->cancel_fd, &one, sizeof(one));
	(void)n; /* an eventfd takes 2^64 - 2 of them */
}

static void t_drop(void *ctx)
{
	hang_up(ctx);
}

static const struct repl_link_ops tcp_ops = {
    t_fps, t_blocks, t_commit, t_overhead, t_close, t_cancel, t_drop,
};

int repl_link_tcp(const char *hostport, const char *secret_file,
		  struct repl_link *out, char *err, size_t errlen)
{
	struct tcp_link *t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	t->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	t->c = (struct repl_conn){
	    .fd = -1, .timeout_ms = ANSWER_MS, .cancel = &t->cancel_fd};
	int e = t->cancel_fd < 0 ? -errno : 0;
	if (e)
		snprintf(err, errlen, "eventfd: %s", strerror(-e));
	else if (repl_split_hostport(hostport, t->host, sizeof(t->host),
				     t->port, sizeof(t->port))) {
		snprintf(err, errlen,
			 "--replicate-to %.300s: not HOST:PORT (a directory "
			 "with ':' in its name: give it with a '/')",
			 hostport);
		e = -EINVAL;
	} else if (!secret_file) {
		snprintf(err, errlen,
			 "--replicate-to %.300s: TCP needs "
			 "--replication-secret-file",
			 hostport);
		e = -EINVAL;
	}
	if (!e)
		e = repl_secret_load(secret_file, &t->secret, err, errlen);
	if (!e)
		e = ensure(t, err, errlen);
	if (e) {
		t_close(t);
		return e;
	}
	*out = (struct repl_link){&tcp_ops, t};
	return 0;
}
