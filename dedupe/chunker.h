/* Chunking: cut a byte range of a file into aligned 4 KiB logical blocks.
 *
 *   offset                                      offset+len
 *     |<-- head -->|<--- whole blocks --->|<-- tail -->|
 *   --+------------+----------+-----------+------------+--
 *     lblk a       a+1        ...         b            b+1
 *
 * A span that covers part of a block (head, tail, or a write inside one
 * block) needs read-modify-write; whole spans do not.
 */
#ifndef ARRAYSIM_DEDUPE_CHUNKER_H
#define ARRAYSIM_DEDUPE_CHUNKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/block.h"

struct chunk_span {
	uint64_t lblk;	  /* logical block number (offset / 4096) */
	uint32_t blk_off; /* first byte of the span within the block */
	uint32_t len;	  /* bytes of the span, 1..4096 */
	size_t buf_off;	  /* where the span starts in the caller's buffer */
};

struct chunker {
	uint64_t offset;
	size_t len;
	size_t done;
};

void chunker_init(struct chunker *c, uint64_t offset, size_t len);
/* Next span, in file order; false when the range is exhausted. */
bool chunker_next(struct chunker *c, struct chunk_span *out);
/* Number of logical blocks the range touches (0 for len 0). */
uint64_t chunker_count(uint64_t offset, size_t len);
static inline bool chunk_span_whole(const struct chunk_span *s)
{
	return s->len == BLOCK_BYTES;
}

#endif
