/* The one block size of arraysim: the unit of chunking, fingerprints,
 * block maps, the backing store's slots and the array model's I/O pieces.
 * Every layer agrees on it, so it is defined once, here.
 *
 * Beware: <linux/fs.h> and <sys/mount.h> define a BLOCK_SIZE of 1024. A
 * file that includes one of them after this header silently gets theirs
 * (a redefinition in a system header is not warned about); before it, the
 * build fails on the redefinition. Such a file uses MS_BLOCK_SIZE or does
 * not use BLOCK_SIZE. */
#ifndef ARRAYSIM_COMMON_BLOCK_H
#define ARRAYSIM_COMMON_BLOCK_H

#define BLOCK_SIZE 4096u
#define BLOCK_SHIFT 12u

#endif
