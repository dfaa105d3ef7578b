/* Blocks the array model lost: a drive failure beyond what the RAID
 * level survives (tiers/placement.h) makes exactly the stored blocks on
 * the stripes it broke unreadable, for as long as they hold those bytes
 * (across mounts: STORE/lost.blocks); so does an unmirrored cache device
 * failure for the dirty blocks it held. Overwriting or deleting what
 * referenced them frees them, and the loss with them. */
#ifndef ARRAYSIM_STORE_LOSS_H
#define ARRAYSIM_STORE_LOSS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "store/store.h"

/* The set of lost blocks, as the log at @path (created if missing) left
 * it: those still holding the bytes that were lost. 0, or -errno with a
 * one-line reason in @err (a file that is not such a log: -EINVAL). */
int loss_open(struct store *st, const char *path, char *err, size_t errlen);
void loss_close(struct store *st);
/* Loss event @loss of the array (model_fault_effect.loss): find the
 * stored blocks it lost, add them to the set, and report them on @out
 * and in the event log (every file and offset that references one, then
 * "lost N blocks referenced M times"). 0, or -errno with a reason. */
int loss_add_event(struct store *st, unsigned loss, FILE *out, char *err,
		   size_t errlen);
/* The hybrid's cache device fails (fault inject cache-device): its dirty
 * blocks are lost (added and reported as above, cause "cache-device")
 * unless the profile mirrors the cache; either way the cache restarts
 * empty. 0, or -errno with a reason (-ENOTSUP: no flash cache). */
int loss_cache_device(struct store *st, FILE *out, char *err, size_t errlen);
/* The @n blocks @pblk were freed by a committed transaction: those in
 * the set leave it (their numbers may soon hold other bytes). */
void loss_forget(struct store *st, const uint64_t *pblk, size_t n);
/* Has the array lost any block still held? Cheap. */
bool loss_any(struct store *st);
/* Is @pblk, holding bytes of XXH3 @xxh3, lost? (A lost block freed and
 * reused for other bytes is not.) Cheap while nothing is lost. */
bool loss_has(struct store *st, uint64_t pblk, uint64_t xxh3);
/* The report of every block lost so far, as loss_add_event wrote it,
 * without events; nothing when none is. */
int loss_list(struct store *st, FILE *out);

#endif
