/* The one block size of arraysim: the unit of chunking, fingerprints,
 * block maps, the backing store's slots and the array model's I/O pieces.
 * Every layer agrees on it, so it is defined once, here. Not BLOCK_SIZE:
 * <linux/fs.h> and <sys/mount.h> define one of 1024, and a system header
 * included later would silently win. */
#ifndef ARRAYSIM_COMMON_BLOCK_H
#define ARRAYSIM_COMMON_BLOCK_H

#define BLOCK_BYTES 4096u
#define BLOCK_SHIFT 12u

#endif
