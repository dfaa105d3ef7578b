/* Replication over TCP: frames and the shared-secret handshake, used by
 * the source's link (link_tcp.c) and the replica's server (serve.c).
 *
 *   frame    u8 type, u64 length (little-endian), length bytes
 *   HELLO    "ARSREPL1", 32-byte nonce Ns          replica -> source
 *   AUTH     32-byte nonce Nc, HMAC-SHA256(secret, "arraysim replication
 *            source v1" || Ns || Nc)               source -> replica
 *   AUTH_OK  HMAC-SHA256(secret, "arraysim replication replica v1" ||
 *            Ns || Nc)                             replica -> source
 *   ERROR    u32 errno, a line of text             either way, then close
 *   FPS, BLOCKS, META: replication/wire.h's messages, source -> replica;
 *   VERDICT, ACK (u32 0): the replica's answers.
 *
 * Both sides prove the secret on the other's fresh nonce: a replica
 * takes nothing from a source that has not, and a source ships nothing
 * to a replica that has not. A frame longer than its type may be (before
 * the handshake: REPL_HS_FRAME_MAX), of an unknown or unexpected type,
 * or cut short ends the session. */
#ifndef ARRAYSIM_REPLICATION_FRAME_H
#define ARRAYSIM_REPLICATION_FRAME_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replication/wire.h"

enum repl_frame_type {
	RF_HELLO = 1,
	RF_AUTH,
	RF_AUTH_OK,
	RF_ERROR,
	RF_FPS,
	RF_VERDICT,
	RF_BLOCKS,
	RF_META,
	RF_ACK,
	RF_LAST = RF_ACK,
};

#define REPL_FRAME_HDR 9u
/* A batch's message may be at most this long (BLOCKS: about 260 000
 * blocks); a longer batch fails with one line. */
#define REPL_FRAME_MAX (1ull << 30)
#define REPL_HS_FRAME_MAX 512u
#define REPL_NONCE_LEN 32u
#define REPL_MAC_LEN 32u
#define REPL_MAGIC "ARSREPL1"
#define REPL_MAGIC_LEN 8u
#define REPL_SECRET_MAX 1024u

/* One end of a session. */
struct repl_conn {
	int fd;
	int timeout_ms;	      /* the longest wait for the peer; -1: none */
	const sigset_t *mask; /* ppoll's signal mask while waiting, or NULL */
	uint64_t bytes;	      /* every byte sent and received */
	/* An eventfd whose readability ends every wait with -ECANCELED (an
	 * unmount cutting a wait on a silent peer short), or NULL. */
	const int *cancel;
};

/* A session's socket: no Nagle delay, and TCP keepalive probes after
 * 10 s idle, 3 unanswered 5 s apart ending the connection, so that a
 * peer gone without a word (a cut network) is found in about 25 s, not
 * the kernel's 2 hours (an idle replica session would hold its one slot
 * that long). */
void repl_sock_tune(int fd);
/* "HOST:PORT" or "[V6]:PORT" split: 0 or -EINVAL. */
int repl_split_hostport(const char *hp, char *host, size_t hlen, char *port,
			size_t plen);
/* A frame's header: 0, or -EPROTO for an unknown type or a length over
 * @max. */
int repl_frame_parse(const uint8_t hdr[REPL_FRAME_HDR], uint8_t *type,
		     uint64_t *len, uint64_t max);
/* Until @c's fd is ready for @events (poll's): 0, -ETIMEDOUT, -EINTR
 * (a signal, with a mask) or -ECANCELED. */
int repl_conn_wait(const struct repl_conn *c, short events);
/* 0 or -errno: -EPIPE/-ECONNRESET the peer went, -ETIMEDOUT, -EINTR a
 * signal came while waiting (with a mask), -ECANCELED. */
int repl_frame_send(struct repl_conn *c, uint8_t type, const void *p,
		    size_t len);
/* A whole frame into @payload (reset first); as send, plus -EPROTO for a
 * bad header and -ECONNRESET for an end of stream. */
int repl_frame_recv(struct repl_conn *c, uint8_t *type, struct wbuf *payload,
		    uint64_t max);
/* An ERROR frame: @e (errno) and one line. */
int repl_frame_send_error(struct repl_conn *c, int e, const char *line);
/* An ERROR frame's line in @err (made printable); its errno. */
int repl_frame_error_of(const struct wbuf *payload, char *err, size_t errlen);

struct repl_secret {
	uint8_t key[REPL_SECRET_MAX];
	size_t len;
};

/* The secret in @path, trailing newlines dropped: 0, or -errno with one
 * line (missing, not a regular file, readable or writable by others,
 * empty, over REPL_SECRET_MAX bytes). */
int repl_secret_load(const char *path, struct repl_secret *s, char *err,
		     size_t errlen);
/* The MAC a side presents: @replica picks the context. */
void repl_hs_mac(const struct repl_secret *s, bool replica,
		 const uint8_t ns[REPL_NONCE_LEN],
		 const uint8_t nc[REPL_NONCE_LEN], uint8_t out[REPL_MAC_LEN]);
/* The handshake from each side: 0, or -errno with one line (-EACCES: the
 * peer does not hold the secret; -EPROTO: not our protocol). */
int repl_hs_replica(struct repl_conn *c, const struct repl_secret *s, char *err,
		    size_t errlen);
int repl_hs_source(struct repl_conn *c, const struct repl_secret *s, char *err,
		   size_t errlen);

#endif
