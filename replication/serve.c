/* The replica's server (replication/serve.h). */
#include "replication/serve.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int repl_serve_listen(const char *hostport, int *fd, char *bound, size_t blen,
		      char *err, size_t errlen)
{
	char host[256], port[16];
	if (repl_split_hostport(hostport, host, sizeof(host), port,
				sizeof(port))) {
		snprintf(err, errlen, "--listen %.300s: not HOST:PORT",
			 hostport);
		return -EINVAL;
	}
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE},
			*res;
	int g = getaddrinfo(host, port, &hints, &res);
	if (g) {
		snprintf(err, errlen, "--listen %.300s: %s", hostport,
			 gai_strerror(g));
		return -EINVAL;
	}
	int s = -1, e = -EADDRNOTAVAIL, one = 1;
	for (struct addrinfo *a = res; a && s < 0; a = a->ai_next) {
		s = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
		if (s < 0)
			continue;
		/* A restart takes its port back at once. */
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(s, a->ai_addr, a->ai_addrlen) < 0 ||
		    listen(s, 4) < 0) {
			e = -errno;
			close(s);
			s = -1;
		}
	}
	freeaddrinfo(res);
	if (s < 0) {
		snprintf(err, errlen, "--listen %.300s: %s", hostport,
			 strerror(-e));
		return e;
	}
	repl_sock_name(s, false, bound, blen);
	*fd = s;
	return 0;
}

void repl_sock_name(int fd, bool peer, char *out, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char h[NI_MAXHOST], p[NI_MAXSERV];
	int e = peer ? getpeername(fd, (struct sockaddr *)&ss, &sl)
		     : getsockname(fd, (struct sockaddr *)&ss, &sl);
	if (e || getnameinfo((struct sockaddr *)&ss, sl, h, sizeof(h), p,
			     sizeof(p), NI_NUMERICHOST | NI_NUMERICSERV))
		snprintf(out, len, "?");
	else
		snprintf(out, len,
			 ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", h, p);
}

/* Where a session is in its batch: which frames may come next. */
enum stage { IDLE, FPS_DONE, BLOCKS_DONE };

/* One frame of @type from the source, answered; @stage moves on. */
static int step(const struct repl_server *s, struct repl_conn *c, uint8_t type,
		const struct wbuf *in, struct wbuf *out, enum stage *stage,
		char *err, size_t errlen)
{
	static const uint8_t ack[REPL_ACK_LEN] = {0};
	struct replica_tally t;
	int e;
	if (type == RF_FPS) {
		wbuf_reset(out);
		e = replica_fps(s->rp, in, out, &t, err, errlen);
		*stage = e ? IDLE : FPS_DONE;
		return e ? e : repl_frame_send(c, RF_VERDICT, out->p, out->len);
	}
	if (type == RF_BLOCKS && *stage == FPS_DONE) {
		e = replica_blocks(s->rp, in, err, errlen);
		*stage = e ? IDLE : BLOCKS_DONE;
		return e ? e : repl_frame_send(c, RF_ACK, ack, sizeof(ack));
	}
	if (type == RF_META && *stage == BLOCKS_DONE) {
		*stage = IDLE;
		e = replica_commit(s->rp, in, err, errlen);
		return e ? e : repl_frame_send(c, RF_ACK, ack, sizeof(ack));
	}
	snprintf(err, errlen, "a frame of type %u out of its place",
		 (unsigned)type);
	return -EPROTO;
}

int repl_serve_frames(const struct repl_server *s, struct repl_conn *c,
		      char *err, size_t errlen)
{
	struct wbuf in = {0}, out = {0};
	enum stage stage = IDLE;
	int e = 0;
	err[0] = '\0';
	while (!e) {
		uint8_t type;
		e = repl_frame_recv(c, &type, &in, REPL_FRAME_MAX);
		if (e == -ECONNRESET) {
			snprintf(err, errlen, "the source hung up");
			e = 1;
		} else if (e) {
			snprintf(err, errlen, "%s",
				 e == -EPROTO ? "a malformed frame"
					      : strerror(-e));
		} else {
			e = step(s, c, type, &in, &out, &stage, err, errlen);
			if (e && *err)
				repl_frame_send_error(c, -e, err);
			else if (e)
				snprintf(err, errlen, "answering: %s",
					 strerror(-e));
		}
	}
	wbuf_free(&in);
	wbuf_free(&out);
	return e == 1 ? 0 : e;
}

int repl_serve_session(const struct repl_server *s, int fd, char *err,
		       size_t errlen)
{
	struct repl_conn c = {
	    .fd = fd, .timeout_ms = s->hs_timeout_ms, .mask = s->mask};
	repl_sock_tune(fd);
	int e = repl_hs_replica(&c, s->secret, err, errlen);
	if (e)
		return e;
	c.timeout_ms = -1; /* a source may idle between batches */
	return repl_serve_frames(s, &c, err, errlen);
}
