/* STORE/lost.blocks; see store/loss_log.h. */
#include "store/loss_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC "ARSLOST1"
#define MAGIC_LEN 8
#define CHUNK 256 /* records a write() */

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int loss_log_read(const char *path, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	off_t size = lseek(fd, 0, SEEK_END);
	int r = size < 0 ? -errno : 0;
	if (!r && size > 0 && !(*buf = malloc((size_t)size)))
		r = -ENOMEM;
	if (!r && size > 0 && pread(fd, *buf, (size_t)size, 0) != size)
		r = -EIO;
	close(fd);
	*len = r ? 0 : (size_t)size;
	return r;
}

/* One record and where it came in the log. */
struct logged {
	uint64_t pblk; /* LOSS_LOG_FORGET cleared */
	size_t seq;
	struct loss_rec rec;
};

static int cmp_logged(const void *a, const void *b)
{
	const struct logged *x = a, *y = b;
	if (x->pblk != y->pblk)
		return (x->pblk > y->pblk) - (x->pblk < y->pblk);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Replay the @n records @l (sorted here) into @out: of a block's
 * records the last one decides. O(n log n): a log of a million losses
 * replays in a moment. How many are lost. */
static size_t replay(struct logged *l, size_t n, struct loss_rec *out)
{
	size_t lost = 0;
	qsort(l, n, sizeof(*l), cmp_logged);
	for (size_t i = 0; i < n; i++) {
		bool last = i + 1 == n || l[i + 1].pblk != l[i].pblk;
		if (last && !(l[i].rec.pblk & LOSS_LOG_FORGET))
			out[lost++] = l[i].rec;
	}
	return lost;
}

int loss_log_parse(const char *buf, size_t len, struct loss_rec **out,
		   size_t *n, bool *exact)
{
	*out = NULL;
	*n = 0;
	*exact = false;
	if (len && (len < MAGIC_LEN || memcmp(buf, MAGIC, MAGIC_LEN)))
		return -EBADMSG;
	size_t nrec = len > MAGIC_LEN ? (len - MAGIC_LEN) / sizeof(**out) : 0;
	if (!nrec) {
		*exact = len == MAGIC_LEN;
		return 0;
	}
	struct logged *l = malloc(nrec * sizeof(*l));
	*out = malloc(nrec * sizeof(**out));
	if (!l || !*out) {
		free(l);
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < nrec; i++) {
		struct loss_rec r;
		memcpy(&r, buf + MAGIC_LEN + i * sizeof(r), sizeof(r));
		l[i] = (struct logged){r.pblk & ~LOSS_LOG_FORGET, i, r};
	}
	*n = replay(l, nrec, *out);
	free(l);
	*exact = len == MAGIC_LEN + nrec * sizeof(**out) && *n == nrec;
	return 0;
}

int loss_log_append(int fd, const struct loss_rec *r, size_t n, bool forget)
{
	struct loss_rec chunk[CHUNK];
	for (size_t i = 0; i < n;) {
		size_t k = 0;
		for (; k < CHUNK && i < n; k++, i++) {
			chunk[k] = r[i];
			chunk[k].pblk |= forget ? LOSS_LOG_FORGET : 0;
		}
		int rc = write_all(fd, chunk, k * sizeof(*chunk));
		if (rc)
			return rc;
	}
	return n && fdatasync(fd) ? -errno : 0;
}

/* fsync the directory holding @path: a rename in it is durable then. */
static void sync_dir_of(const char *path)
{
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
}

int loss_log_rewrite(const char *path, const struct loss_rec *r, size_t n,
		     int *fd)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	int nfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (nfd < 0)
		return -errno;
	int rc = write_all(nfd, MAGIC, MAGIC_LEN);
	if (!rc)
		rc = loss_log_append(nfd, r, n, false);
	if (!rc && fdatasync(nfd))
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	close(nfd);
	if (rc) {
		unlink(tmp);
		return rc;
	}
	sync_dir_of(path);
	*fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}
