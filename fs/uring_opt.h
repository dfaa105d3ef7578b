/* mount -o io_uring=off|auto|on: the FUSE transport a mount asks for
 * (fs/channel.c); and -o writeback_cache, the kernel's writeback cache
 * (fs/ops.c). Pure parsing, no FUSE: unit-tested and fuzzed. */
#ifndef ARRAYSIM_FS_URING_OPT_H
#define ARRAYSIM_FS_URING_OPT_H

#include <stdbool.h>
#include <stddef.h>

/* In this order: the names "off", "auto", "on" parse to it. */
enum channel_uring {
	CHANNEL_URING_OFF,  /* classic /dev/fuse (the default) */
	CHANNEL_URING_AUTO, /* rings when the kernel offers them */
	CHANNEL_URING_ON,   /* rings, or no mount */
};

/* "off", "auto" or "on" into *@out. 0, or -EINVAL. */
int uring_opt_parse(const char *s, enum channel_uring *out);
/* Take every io_uring=VALUE out of the comma-separated -o string @opts
 * (FUSE does not know it; the last one counts; none: off). *@rest: the
 * items left for FUSE, in @buf, or NULL when none are. 0, or -EINVAL
 * with a one-line reason in @err (a bad value, or @opts not fitting in
 * @buflen). */
int uring_opt_take(const char *opts, char *buf, size_t buflen,
		   const char **rest, enum channel_uring *mode, char *err,
		   size_t errlen);
/* Take every item that is exactly @key out of the comma-separated
 * string @opts (may be NULL), in place: *@set, whether there was one.
 * Returns @opts, or NULL when no item is left. For -o writeback_cache,
 * which libfuse's mount would refuse as unknown. */
char *uring_opt_take_flag(char *opts, const char *key, bool *set);

#endif
