/* Chunking of a byte range into aligned 4 KiB logical blocks. */
#include "dedupe/chunker.h"

void chunker_init(struct chunker *c, uint64_t offset, size_t len)
{
	c->offset = offset;
	c->len = len;
	c->done = 0;
}

bool chunker_next(struct chunker *c, struct chunk_span *out)
{
	if (c->done >= c->len)
		return false;
	uint64_t pos = c->offset + c->done;
	uint32_t in_blk = (uint32_t)(pos % BLOCK_BYTES);
	size_t left = c->len - c->done;
	size_t room = BLOCK_BYTES - in_blk;
	out->lblk = pos / BLOCK_BYTES;
	out->blk_off = in_blk;
	out->len = (uint32_t)(left < room ? left : room);
	out->buf_off = c->done;
	c->done += out->len;
	return true;
}

uint64_t chunker_count(uint64_t offset, size_t len)
{
	if (len == 0)
		return 0;
	return (offset + len - 1) / BLOCK_BYTES - offset / BLOCK_BYTES + 1;
}
