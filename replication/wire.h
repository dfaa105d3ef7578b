/* The replication messages as bytes: what the source sends and the
 * replica answers. The local link passes these buffers by call, TCP
 * carries each in a frame (replication/frame.h); the figures of bytes
 * "on the wire" are their lengths, plus what framing adds.
 *
 *   FPS     u8 full, u64 n, n x {u64 pblk, u64 xxh3, u8 has_sha,
 *           sha1[0..16)}                     source -> replica
 *   VERDICT n x u8 (enum repl_verdict)       replica -> source
 *   BLOCKS  u64 n, n x {u64 pblk, 4096 bytes} (the NEED ones, in order)
 *   META    u8 full, u64 nops, nops x {u8 op, u8 table, u32 klen, key,
 *           u32 vlen, value}                 source -> replica
 *   ACK     u32 status                       replica -> source
 *
 * Integers are little-endian.
 */
#ifndef ARRAYSIM_REPLICATION_WIRE_H
#define ARRAYSIM_REPLICATION_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REPL_SHA_LEN 16u /* the SHA-1 bytes a fpindex item keeps */
#define REPL_FP_ITEM (8u + 8u + 1u + REPL_SHA_LEN)
#define REPL_ACK_LEN 4u

enum repl_verdict {
	REPL_HAVE = 1,	   /* the replica holds this block at this pblk */
	REPL_LOCAL = 2,	   /* it holds the same bytes elsewhere: copied */
	REPL_NEED = 3,	   /* send the bytes */
	REPL_CONFLICT = 4, /* its pblk holds other bytes it still uses */
};

enum repl_op { REPL_OP_PUT = 1, REPL_OP_DEL = 2 };

/* A growing message; a failed allocation sticks in @oom. */
struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

void wbuf_put(struct wbuf *b, const void *src, size_t n);
void wbuf_u8(struct wbuf *b, uint8_t v);
void wbuf_u32(struct wbuf *b, uint32_t v);
void wbuf_u64(struct wbuf *b, uint64_t v);
void wbuf_reset(struct wbuf *b);
void wbuf_free(struct wbuf *b);

/* Reading one message; a short one sets @bad and reads zeros. */
struct rbuf {
	const uint8_t *p;
	size_t len, at;
	bool bad;
};

const uint8_t *rbuf_take(struct rbuf *b, size_t n);
uint8_t rbuf_u8(struct rbuf *b);
uint32_t rbuf_u32(struct rbuf *b);
uint64_t rbuf_u64(struct rbuf *b);

#endif
