/* posix_semantics, helpers every check shares: patterns, whole-file
 * writes and reads, cache drops, comparisons with a note of the first
 * difference. */
#include "posix.h"

#include "common/prng.h"

/* splitmix64's mixer of @x: the first step of common/prng.h's stream from
 * state @x. */
uint64_t t_mix64(uint64_t x)
{
	return prng_next(&x);
}

/* Fill @buf with the bytes a file of pattern @seed has at offsets
 * [@off, @off + @len): every 8-byte word differs, so no two blocks of a
 * pattern file dedupe with each other, and no byte position is zero-biased. */
void t_pattern(void *buf, size_t len, uint64_t off, uint32_t seed)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		uint64_t x = off + i;
		uint64_t w = t_mix64(((uint64_t)seed << 40) ^ (x >> 3));

		p[i] = (uint8_t)(w >> ((x & 7) * 8));
	}
}

void *t_xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		perror("calloc");
		exit(2);
	}
	return p;
}

int64_t t_ts_ns(struct timespec ts)
{
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t t_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return t_ts_ns(ts);
}

/* Sleep long enough that a coarse kernel clock ticks past a timestamp. */
void t_tick(void)
{
	struct timespec ts = {0, 30 * 1000 * 1000};

	nanosleep(&ts, NULL);
}

/* Write @len bytes of @buf as the whole content of @path: 0 or errno. */
int t_put(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int err = 0;

	if (fd < 0)
		return errno;
	for (size_t done = 0; done < len;) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			break;
		}
		done += (size_t)n;
	}
	if (close(fd) != 0 && !err)
		err = errno;
	return err;
}

int t_put_str(const char *path, const char *s)
{
	return t_put(path, s, strlen(s));
}

/* Force the next reads of @fd to reach the filesystem. */
void t_drop_fd_cache(int fd)
{
	fsync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

void t_drop_cache(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		t_drop_fd_cache(fd);
		close(fd);
	}
}

/* Read [@off, @off + @len) of @fd into @buf: the byte count or -errno. */
ssize_t t_pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  off + (off_t)done);

		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

ssize_t t_pwrite_full(int fd, const void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done,
				   off + (off_t)done);

		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* Compare [@off, @off + @len) of @fd with @want (NULL: zeros); describe the
 * first difference. */
bool t_range_is(int line, int fd, off_t off, size_t len, const uint8_t *want,
		const char *what)
{
	uint8_t *got = t_xmalloc(len);
	ssize_t n = t_pread_full(fd, got, len, off);
	bool ok = false;

	if (n < 0) {
		t_note(line, "%s: pread(%zu @ %jd): %s", what, len,
		       (intmax_t)off, t_errname((int)-n));
	} else if ((size_t)n != len) {
		t_note(line, "%s: pread(%zu @ %jd) returned %zd bytes", what,
		       len, (intmax_t)off, n);
	} else {
		size_t i;

		for (i = 0; i < len; i++)
			if (got[i] != (want ? want[i] : 0))
				break;
		if (i == len)
			ok = true;
		else
			t_note(
			    line,
			    "%s: byte at offset %jd is 0x%02x, expected 0x%02x",
			    what, (intmax_t)(off + (off_t)i), got[i],
			    want ? want[i] : 0);
	}
	free(got);
	return ok;
}

/* @path must hold exactly @want[0 .. @len): size and every byte. */
bool t_file_is(int line, const char *path, const uint8_t *want, size_t len)
{
	struct stat st;
	bool ok;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		t_note(line, "open(%s): %s", path, t_errname(errno));
		return false;
	}
	fstat(fd, &st);
	ok = st.st_size == (off_t)len;
	if (!ok)
		t_note(line, "%s: size %jd, expected %zu", path,
		       (intmax_t)st.st_size, len);
	else
		ok = t_range_is(line, fd, 0, len, want, path);
	close(fd);
	return ok;
}

bool t_stat(int line, const char *path, struct stat *st)
{
	if (lstat(path, st) == 0)
		return true;
	t_note(line, "lstat(%s): %s", path, t_errname(errno));
	memset(st, 0, sizeof(*st));
	return false;
}

bool t_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int t_renameat2(const char *from, const char *to, unsigned flags)
{
	return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
}

void t_mkfiles(const char *prefix, int from, int to)
{
	char name[64];

	for (int i = from; i < to; i++) {
		snprintf(name, sizeof(name), "%s%04d", prefix, i);
		int fd = open(name, O_CREAT | O_WRONLY | O_EXCL, 0644);

		if (fd < 0) {
			t_note(__LINE__, "create %s: %s", name,
			       t_errname(errno));
			return;
		}
		close(fd);
	}
}
