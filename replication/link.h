/* The link between the engine and a replica: the three exchanges of a
 * batch (replication/wire.h's messages), to a store on this host
 * (link_local.c: by call) or to an `arraysim replica` process over TCP
 * (link_tcp.c: framed, after a mutual shared-secret handshake,
 * replication/frame.h). */
#ifndef ARRAYSIM_REPLICATION_LINK_H
#define ARRAYSIM_REPLICATION_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replication/replica.h"
#include "replication/wire.h"

/* Each returns 0 or -errno with one line in @err. A TCP link that fails
 * drops its connection: the next call makes a new one. */
struct repl_link_ops {
	int (*fps)(void *ctx, const struct wbuf *fps, struct wbuf *verdict,
		   struct replica_tally *t, char *err, size_t errlen);
	int (*blocks)(void *ctx, const struct wbuf *blocks, char *err,
		      size_t errlen);
	int (*commit)(void *ctx, const struct wbuf *meta, char *err,
		      size_t errlen);
	/* The bytes the link carried beyond the messages themselves
	 * (frame headers, handshakes, acks) since the last call. */
	uint64_t (*overhead)(void *ctx);
	void (*close)(void *ctx);
	/* TCP's alone (NULL elsewhere). cancel: from any thread, every
	 * wait on the peer from now on ends at once (-ECANCELED); drop: the
	 * connection, from the thread that ships (the next call connects
	 * again). */
	void (*cancel)(void *ctx);
	void (*drop)(void *ctx);
};

struct repl_link {
	const struct repl_link_ops *ops;
	void *ctx;
};

/* Whether --replicate-to DEST names HOST:PORT rather than a directory:
 * it has a ':' and no '/' (a directory is given with a '/' in it, e.g.
 * ./a:b). */
bool repl_link_is_tcp(const char *dest);
/* The store in @dir on this host (replica_open). */
int repl_link_local(const char *dir, struct repl_link *out, char *err,
		    size_t errlen);
/* An `arraysim replica` at @hostport, the secret read from @secret_file:
 * connected and authenticated now, so that a bad address or secret is
 * one line at the start. */
int repl_link_tcp(const char *hostport, const char *secret_file,
		  struct repl_link *out, char *err, size_t errlen);
/* NULL ops: nothing. */
void repl_link_close(struct repl_link *l);
/* The ops of the same names, where the link has them. */
void repl_link_cancel(struct repl_link *l);
void repl_link_drop(struct repl_link *l);
/* Whether a link's -errno @e says the link failed (the replica could
 * not be reached, the connection was refused, reset, closed or timed
 * out), which a reconnect may mend, rather than the replica or the
 * source (a conflict, a block failing its checksum, a refused secret, a
 * bad answer), which it cannot (replication/retry.c). */
bool repl_link_lost(int e);

#endif
