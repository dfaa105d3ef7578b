/* The replica's end of replication over TCP (`arraysim replica`): a
 * listening socket, and one source's session at a time on the store the
 * caller opened (replica_open): the handshake of replication/frame.h,
 * then FPS, BLOCKS, META frames in their order, each answered. A bad
 * frame, a failed step or a signal ends the session, never the store. */
#ifndef ARRAYSIM_REPLICATION_SERVE_H
#define ARRAYSIM_REPLICATION_SERVE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "replication/frame.h"
#include "replication/replica.h"

struct repl_server {
	struct replica *rp;
	const struct repl_secret *secret;
	const sigset_t *mask; /* ppoll's mask: the stop signals let in */
	int hs_timeout_ms;    /* the longest a peer may take to prove itself */
};

/* Listen on @hostport (port 0: any free one): the socket in @fd, the
 * bound "HOST:PORT" in @bound. 0, or -errno with one line. */
int repl_serve_listen(const char *hostport, int *fd, char *bound, size_t blen,
		      char *err, size_t errlen);
/* The socket's own (or, @peer, its peer's) address as "HOST:PORT". */
void repl_sock_name(int fd, bool peer, char *out, size_t len);
/* One session on the connected @fd (closed by the caller): 0 when the
 * source hung up, else -errno with one line (-EINTR: a signal). */
int repl_serve_session(const struct repl_server *s, int fd, char *err,
		       size_t errlen);
/* The session after the handshake: frames until the source hangs up. */
int repl_serve_frames(const struct repl_server *s, struct repl_conn *c,
		      char *err, size_t errlen);

#endif
