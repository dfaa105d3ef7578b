/* The one block size of arraysim: the unit of chunking, fingerprints,
 * block maps, the backing store's slots and the array model's I/O pieces.
 * Every layer agrees on it, so it is defined once, here. */
#ifndef ARRAYSIM_COMMON_BLOCK_H
#define ARRAYSIM_COMMON_BLOCK_H

#define BLOCK_SIZE 4096u
#define BLOCK_SHIFT 12u

#endif
