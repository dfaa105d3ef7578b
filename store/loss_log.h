/* STORE/lost.blocks: the log of the blocks the array model lost, so that
 * a loss outlives the mount (store/loss.c keeps the set).
 *
 * The format: the magic "ARSLOST1", then 16-byte records {pblk, xxh3} in
 * host byte order, as the rest of the store. A record whose pblk has
 * LOSS_LOG_FORGET set says the block was freed: its number no longer
 * names the lost bytes. Of a block's records the last one decides.
 * Appends are fdatasync'ed; a torn last record (a crash mid-append) is
 * ignored.
 */
#ifndef ARRAYSIM_STORE_LOSS_LOG_H
#define ARRAYSIM_STORE_LOSS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOSS_LOG_FORGET (1ull << 63)

struct loss_rec {
	uint64_t pblk, xxh3;
};

/* The whole file at @path into *buf (malloc'd), *len bytes; a missing
 * file is empty (*buf NULL). 0 or -errno. */
int loss_log_read(const char *path, char **buf, size_t *len);
/* The blocks the log's @len bytes at @buf call lost: *out (malloc'd, or
 * NULL when none; sorted by pblk), *n of them. *exact: the bytes hold
 * just those records, nothing torn, repeated or forgotten (no need to
 * compact). 0, -EBADMSG (not such a log) or -ENOMEM. */
int loss_log_parse(const char *buf, size_t len, struct loss_rec **out,
		   size_t *n, bool *exact);
/* Append the @n records @r to the log open on @fd and make them durable;
 * @forget marks them freed. 0 or -errno. */
int loss_log_append(int fd, const struct loss_rec *r, size_t n, bool forget);
/* Replace the log at @path with the @n records @r, durably (a new file
 * renamed over it); *fd: the new log, open for appends. 0 or -errno. */
int loss_log_rewrite(const char *path, const struct loss_rec *r, size_t n,
		     int *fd);

#endif
