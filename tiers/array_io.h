/* One request to the array model: what the data path hands to
 * array_submit() (tiers/array.h) and the completer completes
 * (tiers/completer.h). Types only. */
#ifndef ARRAYSIM_TIERS_ARRAY_IO_H
#define ARRAYSIM_TIERS_ARRAY_IO_H

#include <stdint.h>

enum array_io_kind { ARRAY_IO_READ, ARRAY_IO_WRITE, ARRAY_IO_FLUSH };

struct array_io {
	enum array_io_kind kind;
	uint64_t ino;
	uint64_t offset;	 /* bytes */
	uint64_t length;	 /* bytes */
	uint32_t blocks_stored;	 /* unique blocks written to the back end */
	uint32_t blocks_deduped; /* blocks that took a reference instead */
	int result;		 /* 0 or -errno, from the data path */
	/* When array_wants_blocks(): the physical block of each logical
	 * block of the request (0: a hole), so that a deduplicated block
	 * is resident in the flash tier once; NULL: by logical block. */
	const uint64_t *pblks;
	/* A write, with pblks, when the destager reduces
	 * (array_wants_kept): what data reduction keeps of each block
	 * (0: dedupe found it; else its
	 * compressed size, or 4096). NULL: all 4096, or all 0 when every
	 * block deduped. */
	const uint16_t *kept;
	uint64_t submit_ns; /* clock_mono_ns() when the request arrived */
	/* Injected latency (a `latency` fault): the request reaches the array
	 * this much after array_submit(), held by the array's arrivals
	 * thread meanwhile, not by the caller. 0: at once. */
	uint64_t delay_ns;
	/* Called exactly once when the request completes. */
	void (*complete)(struct array_io *io);
	/* tiers/array.c's, while the request waits out delay_ns. */
	struct {
		struct array *a;
		void (*complete)(struct array_io *io);
	} delayed;
};

#endif
