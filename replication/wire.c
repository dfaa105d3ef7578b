/* The replication messages' codec (replication/wire.h). */
#include "replication/wire.h"

#include <stdlib.h>
#include <string.h>

void wbuf_put(struct wbuf *b, const void *src, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

void wbuf_u8(struct wbuf *b, uint8_t v)
{
	wbuf_put(b, &v, 1);
}

void wbuf_u32(struct wbuf *b, uint32_t v)
{
	uint8_t x[4];
	for (int i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	wbuf_put(b, x, sizeof(x));
}

void wbuf_u64(struct wbuf *b, uint64_t v)
{
	uint8_t x[8];
	for (int i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	wbuf_put(b, x, sizeof(x));
}

void wbuf_reset(struct wbuf *b)
{
	b->len = 0;
	b->oom = false;
}

void wbuf_free(struct wbuf *b)
{
	free(b->p);
	*b = (struct wbuf){0};
}

const uint8_t *rbuf_take(struct rbuf *b, size_t n)
{
	static const uint8_t zeros[8];
	if (b->bad || n > b->len - b->at) {
		b->bad = true;
		return n <= sizeof(zeros) ? zeros : NULL;
	}
	const uint8_t *p = b->p + b->at;
	b->at += n;
	return p;
}

uint8_t rbuf_u8(struct rbuf *b)
{
	return *rbuf_take(b, 1);
}

/* @n little-endian bytes. */
static uint64_t rbuf_le(struct rbuf *b, size_t n)
{
	const uint8_t *x = rbuf_take(b, n);
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | x[i];
	return v;
}

uint32_t rbuf_u32(struct rbuf *b)
{
	return (uint32_t)rbuf_le(b, 4);
}

uint64_t rbuf_u64(struct rbuf *b)
{
	return rbuf_le(b, 8);
}
