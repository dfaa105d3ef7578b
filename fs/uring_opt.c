/* mount -o io_uring=...: see fs/uring_opt.h. */
#include "fs/uring_opt.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int uring_opt_parse(const char *s, enum channel_uring *out)
{
	static const char *const names[] = {"off", "auto", "on"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum channel_uring)i;
			return 0;
		}
	return -EINVAL;
}

/* One item of -o: ours (into *@mode), or appended to @buf for FUSE. */
static int take_item(const char *item, size_t len, char *buf, size_t *used,
		     enum channel_uring *mode, char *err, size_t errlen)
{
	static const char key[] = "io_uring=";
	const size_t klen = sizeof(key) - 1;
	if (len >= klen && !strncmp(item, key, klen)) {
		char val[8] = "";
		size_t n = len - klen;
		if (n < sizeof(val))
			memcpy(val, item + klen, n);
		if (n < sizeof(val) && !uring_opt_parse(val, mode))
			return 0;
		snprintf(err, errlen,
			 "-o %.*s: io_uring is one of off, auto, on",
			 (int)(len < 64 ? len : 64), item);
		return -EINVAL;
	}
	if (len) {
		buf[(*used)++] = ',';
		memcpy(buf + *used, item, len);
		*used += len;
	}
	return 0;
}

int uring_opt_take(const char *opts, char *buf, size_t buflen,
		   const char **rest, enum channel_uring *mode, char *err,
		   size_t errlen)
{
	*mode = CHANNEL_URING_OFF;
	*rest = NULL;
	if (!opts)
		return 0;
	if (strlen(opts) + 2 > buflen) {
		snprintf(err, errlen, "-o: options longer than %zu bytes",
			 buflen - 2);
		return -EINVAL;
	}
	size_t used = 0;
	for (const char *p = opts;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int r = take_item(p, len, buf, &used, mode, err, errlen);
		if (r)
			return r;
		if (!end)
			break;
		p = end + 1;
	}
	buf[used] = '\0';
	if (used)
		*rest = buf + 1; /* past the first item's comma */
	return 0;
}

char *uring_opt_take_flag(char *opts, const char *key, bool *set)
{
	*set = false;
	if (!opts)
		return NULL;
	size_t klen = strlen(key), used = 0;
	for (char *p = opts;;) {
		char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == klen && !strncmp(p, key, klen)) {
			*set = true;
		} else if (len) {
			if (used)
				opts[used++] = ',';
			memmove(opts + used, p, len);
			used += len;
		}
		if (!end)
			break;
		p = end + 1;
	}
	opts[used] = '\0';
	return used ? opts : NULL;
}
