/* posix_semantics: POSIX behaviour of a mounted arraysim, seen from outside.
 *
 *   posix_semantics MOUNTPOINT [SUBSTRING]
 *
 * Runs every check (or those whose name contains SUBSTRING) in a fresh
 * directory MOUNTPOINT/posix.PID/CHECK, as the calling user (root in
 * tests/fs/posix.sh). Output, stdout, one line per check:
 *
 *   ok   enoent
 *   FAIL eisdir: line 312: open("d", O_WRONLY): got 3, expected -1 EISDIR
 *
 * then exactly "N passed, M failed". Every failed expectation of a check is
 * also printed to stderr ("# check: line: what"), so one FAIL line may hide
 * more. Exit status 0 only if no check failed.
 *
 * Each check is one function that keeps going after a failed EXPECT (so one
 * run shows everything wrong), and stops at a failed REQUIRE (when what
 * follows would only be noise). Reads that must reach the filesystem rather
 * than the kernel's page cache go through t_drop_cache() first (fsync, then
 * POSIX_FADV_DONTNEED).
 *
 * What is not here: permission checks between users (posix.sh does those
 * with setpriv) and persistence across a remount (posix.sh again).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <linux/falloc.h>
#include <linux/fs.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#define FUSE_SUPER_MAGIC 0x65735546

#define BLK 4096
#define KIB 1024
#define MIB (1024 * 1024)
#define GIB (1024LL * 1024 * 1024)

/* ---- reporting --------------------------------------------------------- */

static const char *t_check;  /* name of the running check */
static int t_check_failures; /* failed expectations in it */
static char t_first_failure[512];
static int t_passed, t_failed;

static void t_note(int line, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void t_note(int line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "# %s: line %d: %s\n", t_check, line, msg);
	if (t_check_failures++ == 0)
		snprintf(t_first_failure, sizeof(t_first_failure),
			 "line %d: %s", line, msg);
}

static const char *t_errname(int e)
{
	const char *n = e ? strerrorname_np(e) : "0";

	return n ? n : "E?";
}

/* True if @cond; otherwise records the failure and is false. */
#define EXPECT(cond, ...)                                                      \
	((cond) ? true : (t_note(__LINE__, __VA_ARGS__), false))
#define REQUIRE(cond, ...)                                                     \
	do {                                                                   \
		if (!EXPECT(cond, __VA_ARGS__))                                \
			return;                                                \
	} while (0)

static bool t_expect_err(int line, const char *what, long r, int e, int want)
{
	if (r == -1 && e == want)
		return true;
	if (r == -1)
		t_note(line, "%s: got -1 %s, expected -1 %s", what,
		       t_errname(e), t_errname(want));
	else
		t_note(line, "%s: got %ld, expected -1 %s", what, r,
		       t_errname(want));
	return false;
}

/* @call (returning -1 + errno on failure) must fail with errno @want. */
#define EXPECT_ERR(want, call)                                                 \
	({                                                                     \
		errno = 0;                                                     \
		long r_ = (long)(call);                                        \
		int e_ = errno;                                                \
		t_expect_err(__LINE__, #call, r_, e_, (want));                 \
	})

/* @call must not return -1; the expression's value is whether it did not. */
#define EXPECT_OK(call)                                                        \
	({                                                                     \
		errno = 0;                                                     \
		long r_ = (long)(call);                                        \
		int e_ = errno;                                                \
		if (r_ == -1)                                                  \
			t_note(__LINE__, "%s: failed: %s", #call,              \
			       t_errname(e_));                                 \
		r_ != -1;                                                      \
	})
#define REQUIRE_OK(call)                                                       \
	do {                                                                   \
		if (!EXPECT_OK(call))                                          \
			return;                                                \
	} while (0)

/* ---- helpers ----------------------------------------------------------- */

static uint64_t t_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Fill @buf with the bytes a file of pattern @seed has at offsets
 * [@off, @off + @len): every 8-byte word differs, so no two blocks of a
 * pattern file dedupe with each other, and no byte position is zero-biased. */
static void t_pattern(void *buf, size_t len, uint64_t off, uint32_t seed)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++) {
		uint64_t x = off + i;
		uint64_t w = t_mix64(((uint64_t)seed << 40) ^ (x >> 3));

		p[i] = (uint8_t)(w >> ((x & 7) * 8));
	}
}

static void *t_xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		perror("calloc");
		exit(2);
	}
	return p;
}

static int64_t t_ts_ns(struct timespec ts)
{
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t t_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return t_ts_ns(ts);
}

/* Sleep long enough that a coarse kernel clock ticks past a timestamp. */
static void t_tick(void)
{
	struct timespec ts = {0, 30 * 1000 * 1000};

	nanosleep(&ts, NULL);
}

/* Write @len bytes of @buf as the whole content of @path: 0 or errno. */
static int t_put(const char *path, const void *buf, size_t len)
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

static int t_put_str(const char *path, const char *s)
{
	return t_put(path, s, strlen(s));
}

/* Force the next reads of @fd to reach the filesystem. */
static void t_drop_fd_cache(int fd)
{
	fsync(fd);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

static void t_drop_cache(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		t_drop_fd_cache(fd);
		close(fd);
	}
}

/* Read [@off, @off + @len) of @fd into @buf: the byte count or -errno. */
static ssize_t t_pread_full(int fd, void *buf, size_t len, off_t off)
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

static ssize_t t_pwrite_full(int fd, const void *buf, size_t len, off_t off)
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
static bool t_range_is(int line, int fd, off_t off, size_t len,
		       const uint8_t *want, const char *what)
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
#define EXPECT_RANGE(fd, off, len, want, what)                                 \
	t_range_is(__LINE__, (fd), (off), (len), (want), (what))

/* @path must hold exactly @want[0 .. @len): size and every byte. */
static bool t_file_is(int line, const char *path, const uint8_t *want,
		      size_t len)
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
#define EXPECT_FILE(path, want, len) t_file_is(__LINE__, (path), (want), (len))

static bool t_stat(int line, const char *path, struct stat *st)
{
	if (lstat(path, st) == 0)
		return true;
	t_note(line, "lstat(%s): %s", path, t_errname(errno));
	memset(st, 0, sizeof(*st));
	return false;
}
#define STAT(path, st) t_stat(__LINE__, (path), (st))

static bool t_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int t_renameat2(const char *from, const char *to, unsigned flags)
{
	return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
}

static void t_mkfiles(const char *prefix, int from, int to)
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

/* ---- checks: basics and error codes ------------------------------------ */

static void check_create_read_write_stat(void)
{
	uint8_t buf[12345], back[12345];
	struct stat st, fst;
	int fd;

	t_pattern(buf, sizeof(buf), 0, 1);
	REQUIRE_OK(fd = open("f", O_CREAT | O_EXCL | O_RDWR, 0640));
	EXPECT(write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf), "write");
	REQUIRE_OK(fstat(fd, &fst));
	EXPECT(fst.st_size == (off_t)sizeof(buf), "fstat size %jd",
	       (intmax_t)fst.st_size);
	EXPECT(pread(fd, back, 100, 5000) == 100 &&
		   memcmp(back, buf + 5000, 100) == 0,
	       "pread 100 @ 5000 on the writing fd");
	EXPECT_OK(close(fd));

	STAT("f", &st);
	EXPECT(S_ISREG(st.st_mode), "mode 0%o is not a regular file",
	       st.st_mode);
	EXPECT((st.st_mode & 07777) == 0640, "permissions 0%o, expected 0640",
	       st.st_mode & 07777);
	EXPECT(st.st_nlink == 1, "nlink %ju", (uintmax_t)st.st_nlink);
	EXPECT(st.st_uid == geteuid() && st.st_gid == getegid(),
	       "owner %u:%u, expected %u:%u", st.st_uid, st.st_gid, geteuid(),
	       getegid());
	EXPECT(st.st_ino == fst.st_ino, "ino %ju by path, %ju by fd",
	       (uintmax_t)st.st_ino, (uintmax_t)fst.st_ino);
	EXPECT(st.st_blksize > 0, "st_blksize %ld", (long)st.st_blksize);
	t_drop_cache("f");
	EXPECT_FILE("f", buf, sizeof(buf));

	/* Overwrite in the middle, then append: a read-modify-write. */
	REQUIRE_OK(fd = open("f", O_RDWR));
	t_pattern(buf + 3000, 200, 0, 2);
	EXPECT(pwrite(fd, buf + 3000, 200, 3000) == 200, "pwrite 200 @ 3000");
	EXPECT_OK(close(fd));
	t_drop_cache("f");
	EXPECT_FILE("f", buf, sizeof(buf));

	/* An empty file. */
	EXPECT(t_put("empty", "", 0) == 0, "create empty");
	EXPECT(STAT("empty", &st) && st.st_size == 0 && st.st_blocks == 0,
	       "empty file: size %jd blocks %jd", (intmax_t)st.st_size,
	       (intmax_t)st.st_blocks);
	EXPECT(read(fd = open("empty", O_RDONLY), back, 10) == 0,
	       "read of an empty file is not EOF");
	close(fd);
}

static void check_enoent(void)
{
	EXPECT_ERR(ENOENT, open("nope", O_RDONLY));
	EXPECT_ERR(ENOENT, open("nope", O_WRONLY));
	EXPECT_ERR(ENOENT, access("nope", F_OK));
	EXPECT_ERR(ENOENT, unlink("nope"));
	EXPECT_ERR(ENOENT, rmdir("nope"));
	EXPECT_ERR(ENOENT, rename("nope", "other"));
	EXPECT_ERR(ENOENT, truncate("nope", 0));
	EXPECT_ERR(ENOENT, chmod("nope", 0600));
	EXPECT_ERR(ENOENT, readlink("nope", (char[8]){0}, 8));
	EXPECT_ERR(ENOENT, open("nodir/f", O_CREAT | O_WRONLY, 0644));
	EXPECT_ERR(ENOENT, mkdir("nodir/d", 0755));
	EXPECT_ERR(ENOENT, symlink("x", "nodir/s"));
	EXPECT_ERR(ENOENT, getxattr("nope", "user.x", NULL, 0));
	/* A name that existed and was removed is gone again. */
	EXPECT(t_put_str("was", "x") == 0, "create was");
	EXPECT_OK(unlink("was"));
	EXPECT_ERR(ENOENT, open("was", O_RDONLY));
	EXPECT_ERR(ENOENT, link("was", "was2"));
}

static void check_eexist(void)
{
	REQUIRE(t_put_str("f", "data") == 0, "create f");
	REQUIRE_OK(mkdir("d", 0755));
	EXPECT_ERR(EEXIST, open("f", O_CREAT | O_EXCL | O_WRONLY, 0644));
	EXPECT_ERR(EEXIST, open("d", O_CREAT | O_EXCL | O_RDONLY, 0644));
	EXPECT_ERR(EEXIST, mkdir("d", 0755));
	EXPECT_ERR(EEXIST, mkdir("f", 0755));
	EXPECT_ERR(EEXIST, symlink("target", "f"));
	EXPECT_ERR(EEXIST, link("f", "d"));
	EXPECT_ERR(EEXIST, mknod("f", S_IFIFO | 0644, 0));
	/* The failed O_EXCL create did not truncate f. */
	EXPECT_FILE("f", (const uint8_t *)"data", 4);
}

static void check_enotempty(void)
{
	struct stat st;

	REQUIRE_OK(mkdir("a", 0755));
	REQUIRE(t_put_str("a/x", "x") == 0, "create a/x");
	EXPECT_ERR(ENOTEMPTY, rmdir("a"));
	REQUIRE_OK(mkdir("b", 0755));
	EXPECT_ERR(ENOTEMPTY, rename("b", "a"));
	EXPECT(STAT("b", &st) && S_ISDIR(st.st_mode), "b lost");
	EXPECT(t_exists("a/x"), "a/x lost");
	/* A directory holding only a subdirectory is not empty either. */
	REQUIRE_OK(mkdir("c", 0755));
	REQUIRE_OK(mkdir("c/sub", 0755));
	EXPECT_ERR(ENOTEMPTY, rmdir("c"));
	EXPECT_ERR(ENOTEMPTY, rename("b", "c"));
	/* Once emptied, both work. */
	EXPECT_OK(unlink("a/x"));
	EXPECT_OK(rename("b", "a"));
	EXPECT_OK(rmdir("c/sub"));
	EXPECT_OK(rmdir("c"));
	EXPECT_ERR(ENOENT, lstat("b", &st));
}

static void check_eisdir(void)
{
	char buf[16];
	int fd;

	REQUIRE_OK(mkdir("d", 0755));
	REQUIRE(t_put_str("f", "f") == 0, "create f");
	EXPECT_ERR(EISDIR, open("d", O_WRONLY));
	EXPECT_ERR(EISDIR, open("d", O_RDWR));
	EXPECT_ERR(EISDIR, open("d", O_WRONLY | O_CREAT, 0644));
	EXPECT_ERR(EISDIR, truncate("d", 0));
	EXPECT_ERR(EISDIR, unlink("d"));
	EXPECT_ERR(EISDIR, rename("f", "d"));
	EXPECT(t_exists("f") && t_exists("d"),
	       "rename onto a dir moved something");
	if (EXPECT_OK(fd = open("d", O_RDONLY | O_DIRECTORY))) {
		EXPECT_ERR(EISDIR, read(fd, buf, sizeof(buf)));
		close(fd);
	}
}

static void check_enotdir(void)
{
	struct stat st;

	REQUIRE_OK(mkdir("d", 0755));
	REQUIRE(t_put_str("f", "f") == 0, "create f");
	EXPECT_ERR(ENOTDIR, rename("d", "f"));
	EXPECT(STAT("f", &st) && S_ISREG(st.st_mode), "f replaced by a dir");
	EXPECT_ERR(ENOTDIR, open("f/x", O_RDONLY));
	EXPECT_ERR(ENOTDIR, open("f/x", O_CREAT | O_WRONLY, 0644));
	EXPECT_ERR(ENOTDIR, lstat("f/x", &st));
	EXPECT_ERR(ENOTDIR, mkdir("f/x", 0755));
	EXPECT_ERR(ENOTDIR, rmdir("f"));
	EXPECT_ERR(ENOTDIR, open("f", O_RDONLY | O_DIRECTORY));
	EXPECT_ERR(ENOTDIR, rename("f", "d/"));
	EXPECT(opendir("f") == NULL && errno == ENOTDIR,
	       "opendir(file) errno %s", t_errname(errno));
}

static void check_enametoolong(void)
{
	char name[257], name255[256];
	struct stat st;
	int fd;

	memset(name, 'n', 256);
	name[256] = '\0';
	memset(name255, 'm', 255);
	name255[255] = '\0';
	REQUIRE(t_put_str("f", "f") == 0, "create f");
	EXPECT_ERR(ENAMETOOLONG, open(name, O_CREAT | O_WRONLY, 0644));
	EXPECT_ERR(ENAMETOOLONG, mkdir(name, 0755));
	EXPECT_ERR(ENAMETOOLONG, symlink("f", name));
	EXPECT_ERR(ENAMETOOLONG, link("f", name));
	EXPECT_ERR(ENAMETOOLONG, rename("f", name));
	EXPECT_ERR(ENAMETOOLONG, lstat(name, &st));
	EXPECT(t_exists("f"), "f lost after a failed rename");
	/* 255 bytes is allowed (f_namemax) and reads back in readdir. */
	if (EXPECT_OK(fd = open(name255, O_CREAT | O_WRONLY, 0644))) {
		close(fd);
		DIR *d = opendir(".");
		struct dirent *e;
		bool seen = false;

		while (d && (e = readdir(d)))
			seen |= strcmp(e->d_name, name255) == 0;
		if (d)
			closedir(d);
		EXPECT(seen, "255-byte name not listed by readdir");
		EXPECT_OK(unlink(name255));
	}
}

static void check_eloop(void)
{
	struct stat st;

	REQUIRE_OK(symlink("b", "a"));
	REQUIRE_OK(symlink("a", "b"));
	REQUIRE_OK(symlink("self", "self"));
	EXPECT_ERR(ELOOP, open("a", O_RDONLY));
	EXPECT_ERR(ELOOP, open("a", O_CREAT | O_WRONLY, 0644));
	EXPECT_ERR(ELOOP, stat("b", &st));
	EXPECT_ERR(ELOOP, stat("self", &st));
	EXPECT_ERR(ELOOP, open("a/x", O_RDONLY));
	EXPECT(STAT("a", &st) && S_ISLNK(st.st_mode), "lstat of a loop link");
	REQUIRE(t_put_str("f", "f") == 0, "create f");
	REQUIRE_OK(symlink("f", "tof"));
	EXPECT_ERR(ELOOP, open("tof", O_RDONLY | O_NOFOLLOW));
}

static void check_exdev(void)
{
	char other[64];
	struct stat st;

	snprintf(other, sizeof(other), "/tmp/posix_semantics.%d",
		 (int)getpid());
	REQUIRE(t_put_str("f", "f") == 0, "create f");
	REQUIRE_OK(mkdir("d", 0755));
	EXPECT_ERR(EXDEV, rename("f", other));
	EXPECT_ERR(EXDEV, rename("d", other));
	EXPECT_ERR(EXDEV, link("f", other));
	EXPECT(t_exists("f") && t_exists("d"), "source lost after EXDEV");
	EXPECT(lstat(other, &st) == -1, "%s created", other);
	unlink(other);
	rmdir(other);
}

static void check_einval_rename_into_subdir(void)
{
	REQUIRE_OK(mkdir("a", 0755));
	REQUIRE_OK(mkdir("a/b", 0755));
	EXPECT_ERR(EINVAL, rename("a", "a/c"));
	EXPECT_ERR(EINVAL, rename("a", "a/b/c"));
	EXPECT_ERR(EINVAL, rmdir("a/."));
	EXPECT(t_exists("a/b"), "a/b lost");
}

/* ---- checks: rename ---------------------------------------------------- */

static void check_rename_replaces_file(void)
{
	uint8_t a[20000], b[30000];
	struct stat sa, sb, st;
	int fd_old;

	t_pattern(a, sizeof(a), 0, 10);
	t_pattern(b, sizeof(b), 0, 11);
	REQUIRE(t_put("a", a, sizeof(a)) == 0 && t_put("b", b, sizeof(b)) == 0,
		"create a and b");
	STAT("a", &sa);
	STAT("b", &sb);
	REQUIRE_OK(fd_old = open("b", O_RDONLY));
	EXPECT_OK(rename("a", "b"));
	EXPECT_ERR(ENOENT, lstat("a", &st));
	EXPECT(STAT("b", &st) && st.st_ino == sa.st_ino,
	       "b has ino %ju, expected a's %ju", (uintmax_t)st.st_ino,
	       (uintmax_t)sa.st_ino);
	EXPECT(st.st_nlink == 1, "b nlink %ju", (uintmax_t)st.st_nlink);
	t_drop_cache("b");
	EXPECT_FILE("b", a, sizeof(a));
	/* The replaced inode lives on through the open handle only. */
	EXPECT(fstat(fd_old, &st) == 0 && st.st_nlink == 0 &&
		   st.st_ino == sb.st_ino,
	       "replaced inode: nlink %ju ino %ju", (uintmax_t)st.st_nlink,
	       (uintmax_t)st.st_ino);
	t_drop_fd_cache(fd_old);
	EXPECT_RANGE(fd_old, 0, sizeof(b), b, "replaced inode via open fd");
	EXPECT_OK(close(fd_old));
	/* Nothing reachable by name still shows the old data. */
	t_drop_cache("b");
	EXPECT_FILE("b", a, sizeof(a));

	/* Rename onto another name of the same inode: nothing happens. */
	REQUIRE_OK(link("b", "b2"));
	EXPECT_OK(rename("b", "b2"));
	EXPECT(t_exists("b") && t_exists("b2"),
	       "rename between hard links removed one");
	/* Rename to itself. */
	EXPECT_OK(rename("b", "b"));
	EXPECT(t_exists("b"), "rename(b, b) removed b");
	/* An empty dir can be replaced by a dir; across directories too. */
	REQUIRE_OK(mkdir("d1", 0755));
	REQUIRE_OK(mkdir("d2", 0755));
	REQUIRE_OK(mkdir("d2/empty", 0755));
	REQUIRE(t_put_str("d1/keep", "k") == 0, "create d1/keep");
	EXPECT_OK(rename("d1", "d2/empty"));
	EXPECT(t_exists("d2/empty/keep"),
	       "d2/empty/keep missing after dir over empty dir");
	/* File over file across directories. */
	REQUIRE(t_put_str("x", "new") == 0 && t_put_str("d2/x", "old") == 0,
		"create x, d2/x");
	EXPECT_OK(rename("x", "d2/x"));
	EXPECT_FILE("d2/x", (const uint8_t *)"new", 3);
}

static void check_renameat2_noreplace(void)
{
	struct stat st;

	REQUIRE(t_put_str("a", "AAAA") == 0 && t_put_str("b", "BB") == 0,
		"create a, b");
	EXPECT_ERR(EEXIST, t_renameat2("a", "b", RENAME_NOREPLACE));
	EXPECT_FILE("a", (const uint8_t *)"AAAA", 4);
	EXPECT_FILE("b", (const uint8_t *)"BB", 2);
	EXPECT_OK(t_renameat2("a", "c", RENAME_NOREPLACE));
	EXPECT_ERR(ENOENT, lstat("a", &st));
	EXPECT_FILE("c", (const uint8_t *)"AAAA", 4);
	/* Directories too. */
	REQUIRE_OK(mkdir("d", 0755));
	REQUIRE_OK(mkdir("e", 0755));
	EXPECT_ERR(EEXIST, t_renameat2("d", "e", RENAME_NOREPLACE));
	EXPECT_OK(t_renameat2("d", "e/d", RENAME_NOREPLACE));
	EXPECT(STAT("e/d", &st) && S_ISDIR(st.st_mode), "e/d not a dir");
}

static void check_renameat2_exchange(void)
{
	struct stat sa, sb, st, sp1, sp2;

	REQUIRE(t_put_str("a", "AAAA") == 0 && t_put_str("b", "BB") == 0,
		"create a, b");
	STAT("a", &sa);
	STAT("b", &sb);
	EXPECT_OK(t_renameat2("a", "b", RENAME_EXCHANGE));
	EXPECT_FILE("a", (const uint8_t *)"BB", 2);
	EXPECT_FILE("b", (const uint8_t *)"AAAA", 4);
	EXPECT(STAT("a", &st) && st.st_ino == sb.st_ino,
	       "a's ino after exchange");
	EXPECT(STAT("b", &st) && st.st_ino == sa.st_ino,
	       "b's ino after exchange");
	EXPECT_ERR(ENOENT, t_renameat2("a", "missing", RENAME_EXCHANGE));

	/* Directories: their contents follow the names. */
	REQUIRE_OK(mkdir("d1", 0755));
	REQUIRE_OK(mkdir("d2", 0755));
	REQUIRE(t_put_str("d1/x", "x") == 0 && t_put_str("d2/y", "y") == 0,
		"create d1/x d2/y");
	EXPECT_OK(t_renameat2("d1", "d2", RENAME_EXCHANGE));
	EXPECT(t_exists("d1/y") && t_exists("d2/x") && !t_exists("d1/x") &&
		   !t_exists("d2/y"),
	       "directory contents did not follow the exchange");

	/* A file and a directory in different parents: types swap, and each
	 * parent's nlink follows the subdirectory. */
	REQUIRE_OK(mkdir("p1", 0755));
	REQUIRE_OK(mkdir("p2", 0755));
	REQUIRE_OK(mkdir("p1/sub", 0755));
	REQUIRE(t_put_str("p1/sub/in", "in") == 0, "create p1/sub/in");
	REQUIRE(t_put_str("p2/file", "file") == 0, "create p2/file");
	EXPECT_OK(t_renameat2("p1/sub", "p2/file", RENAME_EXCHANGE));
	EXPECT(STAT("p1/sub", &st) && S_ISREG(st.st_mode), "p1/sub not a file");
	EXPECT_FILE("p1/sub", (const uint8_t *)"file", 4);
	EXPECT(STAT("p2/file", &st) && S_ISDIR(st.st_mode),
	       "p2/file not a dir");
	EXPECT(t_exists("p2/file/in"), "p2/file/in missing");
	STAT("p1", &sp1);
	STAT("p2", &sp2);
	EXPECT(sp1.st_nlink == 2,
	       "p1 nlink %ju after its subdir left, expected 2",
	       (uintmax_t)sp1.st_nlink);
	EXPECT(sp2.st_nlink == 3,
	       "p2 nlink %ju after a subdir arrived, expected 3",
	       (uintmax_t)sp2.st_nlink);
	EXPECT(stat("p2/file/..", &st) == 0 && st.st_ino == sp2.st_ino,
	       "p2/file/.. is not p2");
}

/* ---- checks: links ----------------------------------------------------- */

static void check_hard_links(void)
{
	uint8_t buf[9000];
	struct stat st, st2;

	t_pattern(buf, sizeof(buf), 0, 20);
	REQUIRE(t_put("f", buf, sizeof(buf)) == 0, "create f");
	REQUIRE_OK(mkdir("sub", 0755));
	REQUIRE_OK(link("f", "g"));
	REQUIRE_OK(link("f", "sub/h"));
	STAT("f", &st);
	STAT("sub/h", &st2);
	EXPECT(st.st_nlink == 3 && st2.st_nlink == 3,
	       "nlink %ju/%ju, expected 3", (uintmax_t)st.st_nlink,
	       (uintmax_t)st2.st_nlink);
	EXPECT(st.st_ino == st2.st_ino, "links have different inos");

	/* Written through one name, read through the others. */
	int fd = open("g", O_WRONLY);

	if (EXPECT_OK(fd)) {
		t_pattern(buf + 4090, 20, 0, 21);
		EXPECT(pwrite(fd, buf + 4090, 20, 4090) == 20, "pwrite via g");
		close(fd);
	}
	t_drop_cache("f");
	EXPECT_FILE("f", buf, sizeof(buf));
	EXPECT_FILE("sub/h", buf, sizeof(buf));

	EXPECT_OK(unlink("f"));
	EXPECT(STAT("g", &st) && st.st_nlink == 2,
	       "nlink %ju after unlink, expected 2", (uintmax_t)st.st_nlink);
	t_drop_cache("g");
	EXPECT_FILE("g", buf, sizeof(buf));
	EXPECT_OK(unlink("sub/h"));
	EXPECT(STAT("g", &st) && st.st_nlink == 1, "nlink %ju, expected 1",
	       (uintmax_t)st.st_nlink);
	EXPECT_FILE("g", buf, sizeof(buf));

	/* Directories cannot be hard-linked; symlinks can. */
	EXPECT_ERR(EPERM, link("sub", "sub2"));
	REQUIRE_OK(symlink("g", "s"));
	EXPECT_OK(link("s", "s2"));
	EXPECT(STAT("s2", &st) && S_ISLNK(st.st_mode) && st.st_nlink == 2,
	       "link to symlink: mode 0%o nlink %ju", st.st_mode,
	       (uintmax_t)st.st_nlink);
}

static void check_dir_nlink(void)
{
	struct stat st;

#define NLINK_IS(path, n)                                                      \
	EXPECT(STAT(path, &st) && st.st_nlink == (n),                          \
	       "%s nlink %ju, expected %d", path, (uintmax_t)st.st_nlink, (n))
	REQUIRE_OK(mkdir("d", 0755));
	NLINK_IS("d", 2);
	REQUIRE_OK(mkdir("d/a", 0755));
	REQUIRE_OK(mkdir("d/b", 0755));
	REQUIRE_OK(mkdir("d/c", 0755));
	NLINK_IS("d", 5);
	REQUIRE(t_put_str("d/file", "x") == 0, "create d/file");
	REQUIRE_OK(symlink("file", "d/link"));
	NLINK_IS("d", 5);
	EXPECT_OK(rmdir("d/a"));
	NLINK_IS("d", 4);
	/* Rename within the same directory changes nothing. */
	EXPECT_OK(rename("d/b", "d/b2"));
	NLINK_IS("d", 4);
	/* Across directories: one parent loses a link, the other gains one. */
	REQUIRE_OK(mkdir("e", 0755));
	EXPECT_OK(rename("d/b2", "e/b"));
	NLINK_IS("d", 3);
	NLINK_IS("e", 3);
	/* Over an existing empty dir in the other parent: the target's link
	 * goes away, the moved one arrives. */
	REQUIRE_OK(mkdir("e/empty", 0755));
	NLINK_IS("e", 4);
	EXPECT_OK(rename("d/c", "e/empty"));
	NLINK_IS("d", 2);
	NLINK_IS("e", 4);
	/* ".." of a moved dir is its new parent, for stat and for readdir. */
	struct stat se;

	STAT("e", &se);
	EXPECT(stat("e/b/..", &st) == 0 && st.st_ino == se.st_ino,
	       "e/b/.. is not e");
	DIR *dir = opendir("e/b");
	struct dirent *ent;
	bool dotdot = false;

	while (dir && (ent = readdir(dir))) {
		if (strcmp(ent->d_name, "..") == 0) {
			dotdot = true;
			EXPECT(ent->d_ino == se.st_ino,
			       "readdir(e/b) '..' d_ino %ju, expected e's %ju",
			       (uintmax_t)ent->d_ino, (uintmax_t)se.st_ino);
		}
	}
	if (dir)
		closedir(dir);
	EXPECT(dotdot, "readdir(e/b) lists no '..'");
	EXPECT_OK(rmdir("e/b"));
	EXPECT_OK(rmdir("e/empty"));
	NLINK_IS("e", 2);
#undef NLINK_IS
}

static void check_symlinks(void)
{
	char buf[2048], target[1001];
	struct stat st;
	ssize_t n;

	REQUIRE_OK(symlink("target/path", "s"));
	n = readlink("s", buf, sizeof(buf));
	EXPECT(n == 11 && memcmp(buf, "target/path", 11) == 0,
	       "readlink returned %zd '%.*s'", n, (int)(n > 0 ? n : 0), buf);
	EXPECT(STAT("s", &st) && S_ISLNK(st.st_mode) && st.st_size == 11,
	       "lstat: mode 0%o size %jd, expected a link of size 11",
	       st.st_mode, (intmax_t)st.st_size);
	/* Dangling: lstat works, stat and open do not. */
	EXPECT_ERR(ENOENT, stat("s", &st));
	EXPECT_ERR(ENOENT, open("s", O_RDONLY));
	/* A short buffer truncates without a NUL. */
	memset(buf, '#', sizeof(buf));
	EXPECT(readlink("s", buf, 4) == 4 && memcmp(buf, "targ#", 5) == 0,
	       "readlink into 4 bytes");
	/* Through a link to an existing file. */
	REQUIRE(t_put_str("real", "content") == 0, "create real");
	REQUIRE_OK(symlink("real", "tofile"));
	EXPECT(stat("tofile", &st) == 0 && S_ISREG(st.st_mode) &&
		   st.st_size == 7,
	       "stat through a link");
	EXPECT_FILE("tofile", (const uint8_t *)"content", 7);
	/* O_CREAT through a dangling link creates its target. */
	REQUIRE_OK(symlink("made", "tomade"));
	int fd = open("tomade", O_CREAT | O_WRONLY, 0644);

	if (EXPECT_OK(fd))
		close(fd);
	EXPECT(STAT("made", &st) && S_ISREG(st.st_mode),
	       "O_CREAT via link did not create its target");
	/* Long target, and a symlink to a directory. */
	memset(target, 'x', 1000);
	target[1000] = '\0';
	REQUIRE_OK(symlink(target, "long"));
	n = readlink("long", buf, sizeof(buf));
	EXPECT(n == 1000 && memcmp(buf, target, 1000) == 0,
	       "1000-byte target read back as %zd bytes", n);
	REQUIRE_OK(mkdir("dir", 0755));
	REQUIRE(t_put_str("dir/in", "in") == 0, "create dir/in");
	REQUIRE_OK(symlink("dir", "todir"));
	EXPECT_FILE("todir/in", (const uint8_t *)"in", 2);
	EXPECT_ERR(ENOTDIR, rmdir("todir"));
	EXPECT_OK(unlink("todir"));
	EXPECT(t_exists("dir/in"),
	       "unlinking a dir symlink removed the dir's content");
}

/* ---- checks: size changes ---------------------------------------------- */

static void check_truncate_grow_zeros(void)
{
	uint8_t want[10000] = {0};

	t_pattern(want, 100, 0, 30);
	REQUIRE(t_put("f", want, 100) == 0, "create f");
	EXPECT_OK(truncate("f", sizeof(want)));
	t_drop_cache("f");
	EXPECT_FILE("f", want, sizeof(want));
	/* Grow past many blocks and through an open fd. */
	int fd = open("f", O_RDWR);

	REQUIRE_OK(fd);
	EXPECT_OK(ftruncate(fd, 5 * MIB + 17));
	t_drop_fd_cache(fd);
	EXPECT_RANGE(fd, 0, sizeof(want), want, "head after grow");
	{
		uint8_t *zeros = t_xmalloc(5 * MIB + 17 - sizeof(want));

		EXPECT_RANGE(fd, sizeof(want), 5 * MIB + 17 - sizeof(want),
			     zeros, "grown tail");
		free(zeros);
	}
	close(fd);
}

static void check_truncate_shrink_regrow(void)
{
	enum { LEN = 3 * BLK + 100, CUT = 5000 };
	uint8_t want[LEN];

	t_pattern(want, LEN, 0, 31);
	REQUIRE(t_put("f", want, LEN) == 0, "create f");
	t_drop_cache("f");
	EXPECT_OK(truncate("f", CUT));
	EXPECT_OK(truncate("f", LEN));
	memset(want + CUT, 0, LEN - CUT);
	EXPECT_FILE("f", want, LEN);
	t_drop_cache("f");
	EXPECT_FILE("f", want, LEN);

	/* The same while a writer holds the file open with cached pages. */
	int fd = open("g", O_CREAT | O_RDWR, 0644);

	REQUIRE_OK(fd);
	t_pattern(want, LEN, 0, 32);
	EXPECT(t_pwrite_full(fd, want, LEN, 0) == LEN, "write g");
	EXPECT_OK(ftruncate(fd, 10));
	EXPECT_OK(ftruncate(fd, LEN));
	memset(want + 10, 0, LEN - 10);
	EXPECT_RANGE(fd, 0, LEN, want, "g through its fd");
	t_drop_fd_cache(fd);
	EXPECT_RANGE(fd, 0, LEN, want, "g after dropping the cache");
	/* To zero and back. */
	EXPECT_OK(ftruncate(fd, 0));
	EXPECT_OK(ftruncate(fd, 2 * BLK));
	t_drop_fd_cache(fd);
	EXPECT_RANGE(fd, 0, 2 * BLK, NULL, "g regrown from 0");
	close(fd);
}

static void check_truncate_unaligned(void)
{
	static const off_t sizes[] = {4095, 4096, 4097, 1,     8191,
				      8192, 8193, 0,	12289, 16383};
	enum { FULL = 4 * BLK };
	uint8_t full[FULL], want[FULL];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		off_t s = sizes[i];
		struct stat st;
		char what[64];

		t_pattern(full, FULL, 0, 40 + (uint32_t)i);
		REQUIRE(t_put("f", full, FULL) == 0, "create f");
		t_drop_cache("f");
		EXPECT_OK(truncate("f", s));
		EXPECT(STAT("f", &st) && st.st_size == s,
		       "size %jd after truncate to %jd", (intmax_t)st.st_size,
		       (intmax_t)s);
		t_drop_cache("f");
		EXPECT_FILE("f", full, (size_t)s);
		/* Regrow: [s, FULL) must read zeros, not the old bytes. */
		EXPECT_OK(truncate("f", FULL));
		memcpy(want, full, (size_t)s);
		memset(want + s, 0, FULL - (size_t)s);
		t_drop_cache("f");
		snprintf(what, sizeof(what), "f cut to %jd then regrown",
			 (intmax_t)s);
		int fd = open("f", O_RDONLY);

		if (EXPECT_OK(fd)) {
			EXPECT_RANGE(fd, 0, FULL, want, what);
			close(fd);
		}
	}
}

static void check_fallocate_extend(void)
{
	uint8_t head[3000];
	struct stat st;
	int fd;

	t_pattern(head, sizeof(head), 0, 50);
	REQUIRE_OK(fd = open("f", O_CREAT | O_RDWR, 0644));
	EXPECT(write(fd, head, sizeof(head)) == (ssize_t)sizeof(head), "write");
	if (EXPECT_OK(fallocate(fd, 0, 0, 100000))) {
		EXPECT(fstat(fd, &st) == 0 && st.st_size == 100000,
		       "size %jd after fallocate to 100000",
		       (intmax_t)st.st_size);
		t_drop_fd_cache(fd);
		EXPECT_RANGE(fd, 0, sizeof(head), head,
			     "data before fallocate");
		uint8_t *zeros = t_xmalloc(100000);

		EXPECT_RANGE(fd, sizeof(head), 100000 - sizeof(head), zeros,
			     "fallocated range");
		free(zeros);
	}
	/* Inside the file, size is unchanged; with KEEP_SIZE past it too. */
	EXPECT_OK(fallocate(fd, 0, 50000, 10));
	EXPECT_OK(fallocate(fd, FALLOC_FL_KEEP_SIZE, 100000, 8192));
	EXPECT(fstat(fd, &st) == 0 && st.st_size == 100000,
	       "size %jd after in-range/KEEP_SIZE fallocate",
	       (intmax_t)st.st_size);
	EXPECT_ERR(EINVAL, fallocate(fd, 0, 0, 0));
	close(fd);
}

static void check_punch_hole(void)
{
	enum { LEN = 10 * BLK, P_OFF = 1000, P_LEN = 3 * BLK + 2000 };
	uint8_t want[LEN];
	struct stat before, after;
	int fd;

	t_pattern(want, LEN, 0, 60);
	REQUIRE_OK(fd = open("f", O_CREAT | O_RDWR, 0644));
	REQUIRE(t_pwrite_full(fd, want, LEN, 0) == LEN, "write f");
	EXPECT_OK(fsync(fd));
	REQUIRE_OK(fstat(fd, &before));
	EXPECT(before.st_blocks >= LEN / 512,
	       "st_blocks %jd for %d written bytes", (intmax_t)before.st_blocks,
	       LEN);
	/* [1000, 15288): blocks 1 and 2 whole, the edges of 0 and 3 partly. */
	if (EXPECT_OK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				P_OFF, P_LEN))) {
		memset(want + P_OFF, 0, P_LEN);
		EXPECT_RANGE(fd, 0, LEN, want, "punched file (cached)");
		t_drop_fd_cache(fd);
		EXPECT_RANGE(fd, 0, LEN, want, "punched file");
		REQUIRE_OK(fstat(fd, &after));
		EXPECT(after.st_size == LEN, "size %jd after KEEP_SIZE punch",
		       (intmax_t)after.st_size);
		EXPECT(
		    after.st_blocks <= before.st_blocks - 2 * BLK / 512,
		    "st_blocks %jd -> %jd: two whole punched blocks not freed",
		    (intmax_t)before.st_blocks, (intmax_t)after.st_blocks);
	}
	/* Punch without KEEP_SIZE is invalid; a punch past EOF changes nothing.
	 */
	EXPECT_ERR(EOPNOTSUPP, fallocate(fd, FALLOC_FL_PUNCH_HOLE, 0, BLK));
	EXPECT_OK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			    LEN + BLK, BLK));
	EXPECT(fstat(fd, &after) == 0 && after.st_size == LEN, "size %jd",
	       (intmax_t)after.st_size);
	/* Writing into the hole again. */
	t_pattern(want + 5000, 100, 0, 61);
	EXPECT(pwrite(fd, want + 5000, 100, 5000) == 100, "pwrite into hole");
	t_drop_fd_cache(fd);
	EXPECT_RANGE(fd, 0, LEN, want, "hole rewritten");
	close(fd);
}

static void check_sparse_1g(void)
{
	uint8_t data[BLK];
	struct stat st;
	int fd;

	t_pattern(data, BLK, GIB, 70);
	REQUIRE_OK(fd = open("sparse", O_CREAT | O_RDWR, 0644));
	EXPECT(pwrite(fd, data, BLK, GIB) == BLK, "pwrite 4 KiB @ 1 GiB");
	EXPECT_OK(fsync(fd));
	REQUIRE_OK(fstat(fd, &st));
	EXPECT(st.st_size == GIB + BLK, "size %jd, expected %lld",
	       (intmax_t)st.st_size, GIB + BLK);
	EXPECT(st.st_blocks * 512 <= 256 * KIB,
	       "st_blocks %jd for one written block", (intmax_t)st.st_blocks);
	t_drop_fd_cache(fd);
	EXPECT_RANGE(fd, 0, BLK, NULL, "hole @ 0");
	EXPECT_RANGE(fd, 512 * MIB + 123, 3 * BLK, NULL, "hole @ 512 MiB");
	{
		uint8_t want[200] = {0};

		memcpy(want + 100, data, 100);
		EXPECT_RANGE(fd, GIB - 100, 200, want,
			     "hole/data edge @ 1 GiB");
	}
	EXPECT_RANGE(fd, GIB, BLK, data, "data @ 1 GiB");
	char c;

	EXPECT(pread(fd, &c, 1, GIB + BLK) == 0, "read at EOF is not 0");
	EXPECT_OK(lseek(fd, 0, SEEK_SET));
	close(fd);
	EXPECT_OK(unlink("sparse"));
}

/* ---- checks: attributes and times -------------------------------------- */

static void check_chmod_chown(void)
{
	struct stat st, sl;

	REQUIRE(t_put_str("f", "x") == 0, "create f");
	EXPECT_OK(chmod("f", 0600));
	EXPECT(STAT("f", &st) && st.st_mode == (S_IFREG | 0600),
	       "mode 0%o, expected 0100600", st.st_mode);
	EXPECT_OK(chmod("f", 07777));
	EXPECT(STAT("f", &st) && st.st_mode == (S_IFREG | 07777),
	       "mode 0%o, expected 0107777", st.st_mode);
	EXPECT_OK(chmod("f", 0640));
	EXPECT_OK(chown("f", 1234, 5678));
	EXPECT(STAT("f", &st) && st.st_uid == 1234 && st.st_gid == 5678,
	       "owner %u:%u, expected 1234:5678", st.st_uid, st.st_gid);
	EXPECT(st.st_mode == (S_IFREG | 0640), "mode 0%o changed by chown",
	       st.st_mode);
	EXPECT_OK(chown("f", (uid_t)-1, 4321));
	EXPECT(STAT("f", &st) && st.st_uid == 1234 && st.st_gid == 4321,
	       "owner %u:%u, expected 1234:4321", st.st_uid, st.st_gid);
	EXPECT_OK(chown("f", (uid_t)-1, (gid_t)-1));
	EXPECT(STAT("f", &st) && st.st_uid == 1234 && st.st_gid == 4321,
	       "chown(-1, -1) changed the owner to %u:%u", st.st_uid,
	       st.st_gid);
	/* chown of a set-user-ID file clears the bit (Linux, even for root). */
	EXPECT_OK(chmod("f", 04755));
	EXPECT_OK(chown("f", 0, 0));
	EXPECT(STAT("f", &st) && (st.st_mode & S_ISUID) == 0,
	       "set-user-ID survived chown: mode 0%o", st.st_mode);
	/* lchown changes the link, not its target. */
	REQUIRE_OK(symlink("f", "s"));
	EXPECT_OK(lchown("s", 42, 43));
	EXPECT(STAT("s", &sl) && sl.st_uid == 42 && sl.st_gid == 43,
	       "link owner %u:%u", sl.st_uid, sl.st_gid);
	EXPECT(STAT("f", &st) && st.st_uid == 0,
	       "lchown changed the target to %u", st.st_uid);
	/* Directories. */
	REQUIRE_OK(mkdir("d", 0755));
	EXPECT_OK(chmod("d", 0711));
	EXPECT(STAT("d", &st) && st.st_mode == (S_IFDIR | 0711), "dir mode 0%o",
	       st.st_mode);
	int fd = open("f", O_RDONLY);

	if (EXPECT_OK(fd)) {
		EXPECT_OK(fchmod(fd, 0604));
		EXPECT(fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0604,
		       "fchmod: mode 0%o", st.st_mode);
		close(fd);
	}
}

static void check_utimensat(void)
{
	struct timespec ts[2];
	struct stat st, st0;
	int64_t t0, t1;

	REQUIRE(t_put_str("f", "x") == 0, "create f");
	ts[0] = (struct timespec){1000000000, 123456789};
	ts[1] = (struct timespec){1500000000, 987654321};
	EXPECT_OK(utimensat(AT_FDCWD, "f", ts, 0));
	EXPECT(STAT("f", &st) && t_ts_ns(st.st_atim) == 1000000000123456789LL &&
		   t_ts_ns(st.st_mtim) == 1500000000987654321LL,
	       "times %jd.%09ld / %jd.%09ld, expected 1000000000.123456789 / "
	       "1500000000.987654321",
	       (intmax_t)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	       (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	/* Negative and far-future times. */
	ts[0] = (struct timespec){-86400, 1};
	ts[1] = (struct timespec){4102444800LL, 999999999};
	EXPECT_OK(utimensat(AT_FDCWD, "f", ts, 0));
	EXPECT(STAT("f", &st) &&
		   t_ts_ns(st.st_atim) == -86400LL * 1000000000 + 1 &&
		   t_ts_ns(st.st_mtim) == 4102444800999999999LL,
	       "times %jd.%09ld / %jd.%09ld, expected -86400.000000001 / "
	       "4102444800.999999999",
	       (intmax_t)st.st_atim.tv_sec, st.st_atim.tv_nsec,
	       (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);

	/* UTIME_OMIT keeps atime; UTIME_NOW sets mtime to the current time. */
	ts[0] = (struct timespec){1000000000, 5};
	ts[1] = (struct timespec){1000000000, 6};
	EXPECT_OK(utimensat(AT_FDCWD, "f", ts, 0));
	STAT("f", &st0);
	t_tick();
	t0 = t_now_ns();
	ts[0] = (struct timespec){0, UTIME_OMIT};
	ts[1] = (struct timespec){0, UTIME_NOW};
	EXPECT_OK(utimensat(AT_FDCWD, "f", ts, 0));
	t1 = t_now_ns();
	STAT("f", &st);
	EXPECT(t_ts_ns(st.st_atim) == 1000000000000000005LL,
	       "UTIME_OMIT changed atime to %jd.%09ld",
	       (intmax_t)st.st_atim.tv_sec, st.st_atim.tv_nsec);
	EXPECT(t_ts_ns(st.st_mtim) >= t0 - 20000000 &&
		   t_ts_ns(st.st_mtim) <= t1 + 20000000,
	       "UTIME_NOW mtime %jd.%09ld not within [%jd, %jd] ns",
	       (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (intmax_t)t0,
	       (intmax_t)t1);
	EXPECT(t_ts_ns(st.st_ctim) > t_ts_ns(st0.st_ctim),
	       "ctime did not advance on utimensat");
	/* UTIME_NOW on atime, OMIT on mtime. */
	ts[0] = (struct timespec){0, UTIME_NOW};
	ts[1] = (struct timespec){0, UTIME_OMIT};
	int64_t mtime = t_ts_ns(st.st_mtim);

	EXPECT_OK(utimensat(AT_FDCWD, "f", ts, 0));
	STAT("f", &st);
	EXPECT(t_ts_ns(st.st_mtim) == mtime, "UTIME_OMIT changed mtime");
	EXPECT(t_ts_ns(st.st_atim) >= t0 - 20000000,
	       "UTIME_NOW atime in the past");
	/* NULL: both now. futimens through a fd. */
	EXPECT_OK(utimensat(AT_FDCWD, "f", NULL, 0));
	STAT("f", &st);
	EXPECT(t_ts_ns(st.st_mtim) >= t0 - 20000000 &&
		   t_ts_ns(st.st_atim) >= t0 - 20000000,
	       "utimensat(NULL) did not set both to now");
	int fd = open("f", O_RDONLY);

	if (EXPECT_OK(fd)) {
		ts[0] = (struct timespec){1234567890, 111};
		ts[1] = (struct timespec){1234567890, 222};
		EXPECT_OK(futimens(fd, ts));
		EXPECT(fstat(fd, &st) == 0 && st.st_mtim.tv_nsec == 222 &&
			   st.st_atim.tv_nsec == 111,
		       "futimens ns %ld/%ld", st.st_atim.tv_nsec,
		       st.st_mtim.tv_nsec);
		close(fd);
	}
	/* AT_SYMLINK_NOFOLLOW sets the link's own times. */
	REQUIRE_OK(symlink("f", "s"));
	ts[0] = (struct timespec){1111111111, 1};
	ts[1] = (struct timespec){1111111111, 2};
	EXPECT_OK(utimensat(AT_FDCWD, "s", ts, AT_SYMLINK_NOFOLLOW));
	EXPECT(STAT("s", &st) && t_ts_ns(st.st_mtim) == 1111111111000000002LL,
	       "link mtime %jd.%09ld", (intmax_t)st.st_mtim.tv_sec,
	       st.st_mtim.tv_nsec);
	EXPECT(STAT("f", &st) && st.st_mtim.tv_sec == 1234567890,
	       "target mtime changed by AT_SYMLINK_NOFOLLOW");
}

static void check_mtime_ctime_on_write_truncate(void)
{
	static const struct timespec old[2] = {{1000000000, 0},
					       {1000000000, 0}};
	struct stat st0, st;
	int64_t t0;
	int fd;

	REQUIRE_OK(fd = open("f", O_CREAT | O_RDWR, 0644));
	EXPECT(write(fd, "abc", 3) == 3, "write");
	/* write */
	EXPECT_OK(futimens(fd, old));
	REQUIRE_OK(fstat(fd, &st0));
	t_tick();
	t0 = t_now_ns();
	EXPECT(pwrite(fd, "defg", 4, 3) == 4, "pwrite");
	EXPECT_OK(fsync(fd));
	REQUIRE_OK(stat("f", &st));
	EXPECT(t_ts_ns(st.st_mtim) >= t0 - 20000000,
	       "mtime %jd.%09ld not advanced by write",
	       (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	EXPECT(t_ts_ns(st.st_ctim) > t_ts_ns(st0.st_ctim),
	       "ctime not advanced by write");
	/* ftruncate, growing and shrinking */
	EXPECT_OK(futimens(fd, old));
	REQUIRE_OK(fstat(fd, &st0));
	t_tick();
	t0 = t_now_ns();
	EXPECT_OK(ftruncate(fd, 100));
	REQUIRE_OK(stat("f", &st));
	EXPECT(t_ts_ns(st.st_mtim) >= t0 - 20000000,
	       "mtime not advanced by ftruncate (grow)");
	EXPECT(t_ts_ns(st.st_ctim) > t_ts_ns(st0.st_ctim),
	       "ctime not advanced by ftruncate");
	EXPECT_OK(futimens(fd, old));
	REQUIRE_OK(fstat(fd, &st0));
	t_tick();
	t0 = t_now_ns();
	EXPECT_OK(truncate("f", 2));
	REQUIRE_OK(stat("f", &st));
	EXPECT(t_ts_ns(st.st_mtim) >= t0 - 20000000,
	       "mtime not advanced by truncate (shrink)");
	EXPECT(t_ts_ns(st.st_ctim) > t_ts_ns(st0.st_ctim),
	       "ctime not advanced by truncate");
	/* O_TRUNC */
	EXPECT_OK(futimens(fd, old));
	close(fd);
	REQUIRE_OK(stat("f", &st0));
	t_tick();
	t0 = t_now_ns();
	REQUIRE_OK(fd = open("f", O_WRONLY | O_TRUNC));
	close(fd);
	REQUIRE_OK(stat("f", &st));
	EXPECT(t_ts_ns(st.st_mtim) >= t0 - 20000000,
	       "mtime not advanced by O_TRUNC");
	EXPECT(t_ts_ns(st.st_ctim) > t_ts_ns(st0.st_ctim),
	       "ctime not advanced by O_TRUNC");
	/* A read changes neither mtime nor ctime. */
	REQUIRE(t_put_str("f", "some data") == 0, "rewrite f");
	REQUIRE_OK(stat("f", &st0));
	t_tick();
	char buf[16];

	REQUIRE_OK(fd = open("f", O_RDONLY));
	EXPECT(read(fd, buf, sizeof(buf)) == 9, "read");
	close(fd);
	REQUIRE_OK(stat("f", &st));
	EXPECT(t_ts_ns(st.st_mtim) == t_ts_ns(st0.st_mtim) &&
		   t_ts_ns(st.st_ctim) == t_ts_ns(st0.st_ctim),
	       "read changed mtime or ctime");
}

static void check_ctime_chmod_link_rename(void)
{
	struct stat st0, st;

	REQUIRE(t_put_str("f", "x") == 0, "create f");
	REQUIRE_OK(stat("f", &st0));
	t_tick();
	EXPECT_OK(chmod("f", 0600));
	EXPECT(stat("f", &st) == 0 &&
		   t_ts_ns(st.st_ctim) > t_ts_ns(st0.st_ctim),
	       "ctime not advanced by chmod");
	EXPECT(t_ts_ns(st.st_mtim) == t_ts_ns(st0.st_mtim),
	       "mtime changed by chmod");
	st0 = st;
	t_tick();
	EXPECT_OK(chown("f", 1, 1));
	EXPECT(stat("f", &st) == 0 &&
		   t_ts_ns(st.st_ctim) > t_ts_ns(st0.st_ctim),
	       "ctime not advanced by chown");
	st0 = st;
	t_tick();
	EXPECT_OK(link("f", "g"));
	EXPECT(stat("f", &st) == 0 &&
		   t_ts_ns(st.st_ctim) > t_ts_ns(st0.st_ctim),
	       "ctime not advanced by link");
	st0 = st;
	t_tick();
	EXPECT_OK(unlink("g"));
	EXPECT(stat("f", &st) == 0 &&
		   t_ts_ns(st.st_ctim) > t_ts_ns(st0.st_ctim),
	       "ctime not advanced by unlink of another link");
	st0 = st;
	t_tick();
	EXPECT_OK(rename("f", "h"));
	EXPECT(stat("h", &st) == 0 &&
		   t_ts_ns(st.st_ctim) > t_ts_ns(st0.st_ctim),
	       "ctime not advanced by rename");
	EXPECT(t_ts_ns(st.st_mtim) == t_ts_ns(st0.st_mtim),
	       "mtime changed by rename");
	st0 = st;
	t_tick();
	EXPECT_OK(setxattr("h", "user.t", "v", 1, 0));
	EXPECT(stat("h", &st) == 0 &&
		   t_ts_ns(st.st_ctim) > t_ts_ns(st0.st_ctim),
	       "ctime not advanced by setxattr");
}

static void check_parent_dir_times(void)
{
	static const struct timespec old[2] = {{1000000000, 0},
					       {1000000000, 0}};
	struct stat st;
	int64_t t0;

#define DIR_TOUCHED_BY(what, op)                                               \
	do {                                                                   \
		EXPECT_OK(utimensat(AT_FDCWD, "d", old, 0));                   \
		t_tick();                                                      \
		t0 = t_now_ns();                                               \
		op;                                                            \
		EXPECT(                                                        \
		    stat("d", &st) == 0 &&                                     \
			t_ts_ns(st.st_mtim) >= t0 - 20000000 &&                \
			t_ts_ns(st.st_ctim) >= t0 - 20000000,                  \
		    "parent mtime/ctime not advanced by %s (mtime %jd.%09ld)", \
		    what, (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);    \
	} while (0)

	REQUIRE_OK(mkdir("d", 0755));
	REQUIRE_OK(mkdir("other", 0755));
	DIR_TOUCHED_BY("create",
		       EXPECT(t_put_str("d/f", "x") == 0, "create d/f"));
	DIR_TOUCHED_BY("unlink", EXPECT_OK(unlink("d/f")));
	DIR_TOUCHED_BY("mkdir", EXPECT_OK(mkdir("d/sub", 0755)));
	DIR_TOUCHED_BY("rmdir", EXPECT_OK(rmdir("d/sub")));
	DIR_TOUCHED_BY("symlink", EXPECT_OK(symlink("x", "d/s")));
	DIR_TOUCHED_BY("rename within", EXPECT_OK(rename("d/s", "d/s2")));
	DIR_TOUCHED_BY("rename out", EXPECT_OK(rename("d/s2", "other/s2")));
	DIR_TOUCHED_BY("rename in", EXPECT_OK(rename("other/s2", "d/s3")));
	REQUIRE(t_put_str("other/f", "x") == 0, "create other/f");
	DIR_TOUCHED_BY("link in", EXPECT_OK(link("other/f", "d/l")));
	/* Writing a file in d does not touch d. */
	EXPECT_OK(utimensat(AT_FDCWD, "d", old, 0));
	EXPECT(t_put_str("d/l", "changed") == 0, "rewrite d/l");
	EXPECT(stat("d", &st) == 0 && st.st_mtim.tv_sec == 1000000000,
	       "writing d/l changed d's mtime");
#undef DIR_TOUCHED_BY
}

/* ---- checks: xattrs ---------------------------------------------------- */

static bool t_list_has(const char *list, ssize_t len, const char *name)
{
	for (ssize_t i = 0; i < len; i += (ssize_t)strlen(list + i) + 1)
		if (strcmp(list + i, name) == 0)
			return true;
	return false;
}

static void check_xattrs(void)
{
	char buf[2048], list[1024];
	uint8_t bin[1000], binback[1000];
	ssize_t n;

	REQUIRE(t_put_str("f", "x") == 0, "create f");
	EXPECT_OK(setxattr("f", "user.a", "v1", 2, XATTR_CREATE));
	EXPECT_ERR(EEXIST, setxattr("f", "user.a", "v2", 2, XATTR_CREATE));
	EXPECT_ERR(ENODATA, setxattr("f", "user.b", "v", 1, XATTR_REPLACE));
	EXPECT_ERR(ENODATA, getxattr("f", "user.b", buf, sizeof(buf)));
	EXPECT_ERR(ENODATA, getxattr("f", "user.nope", NULL, 0));
	n = getxattr("f", "user.a", NULL, 0);
	EXPECT(n == 2, "size query returned %zd, expected 2", n);
	EXPECT_ERR(ERANGE, getxattr("f", "user.a", buf, 1));
	n = getxattr("f", "user.a", buf, sizeof(buf));
	EXPECT(n == 2 && memcmp(buf, "v1", 2) == 0, "getxattr returned %zd", n);
	/* Replace, an empty value, a binary value with NULs. */
	EXPECT_OK(setxattr("f", "user.a", "longer value", 12, XATTR_REPLACE));
	n = getxattr("f", "user.a", buf, sizeof(buf));
	EXPECT(n == 12 && memcmp(buf, "longer value", 12) == 0,
	       "replaced value: %zd bytes", n);
	EXPECT_OK(setxattr("f", "user.empty", "", 0, 0));
	EXPECT(getxattr("f", "user.empty", buf, sizeof(buf)) == 0,
	       "empty value");
	t_pattern(bin, sizeof(bin), 0, 80);
	bin[0] = bin[500] = 0;
	EXPECT_OK(setxattr("f", "user.bin", bin, sizeof(bin), 0));
	n = getxattr("f", "user.bin", binback, sizeof(binback));
	EXPECT(n == (ssize_t)sizeof(bin) &&
		   memcmp(bin, binback, sizeof(bin)) == 0,
	       "binary value: %zd bytes or content differs", n);
	/* listxattr: size query, ERANGE, names. */
	n = listxattr("f", NULL, 0);
	ssize_t want = (ssize_t)(strlen("user.a") + strlen("user.empty") +
				 strlen("user.bin") + 3);

	EXPECT(n >= want, "listxattr size query %zd, expected >= %zd", n, want);
	EXPECT_ERR(ERANGE, listxattr("f", list, 3));
	n = listxattr("f", list, sizeof(list));
	EXPECT(n >= want && t_list_has(list, n, "user.a") &&
		   t_list_has(list, n, "user.empty") &&
		   t_list_has(list, n, "user.bin"),
	       "listxattr (%zd bytes) misses a name", n);
	/* removexattr */
	EXPECT_OK(removexattr("f", "user.a"));
	EXPECT_ERR(ENODATA, getxattr("f", "user.a", buf, sizeof(buf)));
	EXPECT_ERR(ENODATA, removexattr("f", "user.a"));
	n = listxattr("f", list, sizeof(list));
	EXPECT(n >= 0 && !t_list_has(list, n, "user.a") &&
		   t_list_has(list, n, "user.bin"),
	       "listxattr after removexattr");
	/* Through a fd, on a directory, and kept per inode across links. */
	int fd = open("f", O_RDONLY);

	if (EXPECT_OK(fd)) {
		EXPECT_OK(fsetxattr(fd, "user.fd", "1", 1, 0));
		EXPECT(fgetxattr(fd, "user.fd", buf, sizeof(buf)) == 1,
		       "fgetxattr");
		close(fd);
	}
	REQUIRE_OK(mkdir("d", 0755));
	EXPECT_OK(setxattr("d", "user.dir", "dv", 2, 0));
	EXPECT(getxattr("d", "user.dir", buf, sizeof(buf)) == 2,
	       "xattr on a dir");
	EXPECT_OK(link("f", "g"));
	EXPECT(getxattr("g", "user.fd", buf, sizeof(buf)) == 1,
	       "xattr not visible through a hard link");
	/* An unknown namespace is refused. */
	EXPECT_ERR(EOPNOTSUPP, setxattr("f", "bogus.x", "v", 1, 0));
}

/* ---- checks: open-file semantics --------------------------------------- */

static void check_unlinked_open_file(void)
{
	enum { LEN = 64 * KIB };
	uint8_t *want = t_xmalloc(2 * LEN);
	struct stat st;
	char proc[64];
	int fd, fd2;

	t_pattern(want, 2 * LEN, 0, 90);
	fd = open("f", O_CREAT | O_RDWR, 0644);
	if (!EXPECT_OK(fd))
		goto out_free;
	EXPECT(t_pwrite_full(fd, want, LEN, 0) == LEN, "write before unlink");
	EXPECT_OK(unlink("f"));
	EXPECT_ERR(ENOENT, lstat("f", &st));
	EXPECT(fstat(fd, &st) == 0 && st.st_nlink == 0,
	       "fstat nlink %ju, expected 0", (uintmax_t)st.st_nlink);
	t_drop_fd_cache(fd);
	EXPECT_RANGE(fd, 0, LEN, want, "unlinked file, first half");
	EXPECT(t_pwrite_full(fd, want + LEN, LEN, LEN) == LEN,
	       "write after unlink");
	EXPECT_OK(fsync(fd));
	EXPECT(fstat(fd, &st) == 0 && st.st_size == 2 * LEN,
	       "size %jd, expected %d", (intmax_t)st.st_size, 2 * LEN);
	t_drop_fd_cache(fd);
	EXPECT_RANGE(fd, 0, 2 * LEN, want, "unlinked file, both halves");
	EXPECT_OK(ftruncate(fd, LEN + 10));
	EXPECT(fstat(fd, &st) == 0 && st.st_size == LEN + 10,
	       "ftruncate of an unlinked file");
	/* Reopening the unlinked inode through /proc reaches the filesystem. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	fd2 = open(proc, O_RDONLY);
	if (EXPECT_OK(fd2)) {
		EXPECT_RANGE(fd2, 0, LEN + 10, want, "reopened via /proc");
		close(fd2);
	}
	/* A new file of the same name is a different inode. */
	EXPECT(t_put_str("f", "new") == 0, "create a new f");
	EXPECT(stat("f", &st) == 0 && st.st_size == 3, "new f size %jd",
	       (intmax_t)st.st_size);
	EXPECT_RANGE(fd, 0, LEN, want, "unlinked file after a new f appeared");
	EXPECT_OK(close(fd));
	EXPECT_OK(unlink("f"));
	/* That the space comes back after the last close is posix.sh's to
	 * check, with `arraysim stats`: statfs here follows the host disk. */
out_free:
	free(want);
}

static void check_o_append(void)
{
	int fd1, fd2;

	REQUIRE(t_put_str("f", "hello") == 0, "create f");
	REQUIRE_OK(fd1 = open("f", O_WRONLY | O_APPEND));
	REQUIRE_OK(fd2 = open("f", O_WRONLY | O_APPEND));
	EXPECT_OK(lseek(fd1, 0, SEEK_SET));
	EXPECT(write(fd1, "world", 5) == 5, "write");
	EXPECT(lseek(fd1, 0, SEEK_CUR) == 10, "offset after append %jd",
	       (intmax_t)lseek(fd1, 0, SEEK_CUR));
	EXPECT(write(fd2, "A", 1) == 1, "write fd2");
	EXPECT(write(fd1, "B", 1) == 1, "write fd1");
	EXPECT(write(fd2, "C", 1) == 1, "write fd2");
	close(fd1);
	close(fd2);
	t_drop_cache("f");
	EXPECT_FILE("f", (const uint8_t *)"helloworldABC", 13);
	/* Appends across a block boundary. */
	uint8_t big[BLK + 100];

	t_pattern(big, sizeof(big), 0, 91);
	memcpy(big, "helloworldABC", 13);
	REQUIRE_OK(fd1 = open("f", O_WRONLY | O_APPEND));
	EXPECT(write(fd1, big + 13, sizeof(big) - 13) ==
		   (ssize_t)(sizeof(big) - 13),
	       "append across a block");
	close(fd1);
	t_drop_cache("f");
	EXPECT_FILE("f", big, sizeof(big));
}

static void check_o_trunc(void)
{
	uint8_t buf[10000];
	struct stat st;
	int fd;

	t_pattern(buf, sizeof(buf), 0, 95);
	REQUIRE(t_put("f", buf, sizeof(buf)) == 0, "create f");
	REQUIRE_OK(fd = open("f", O_WRONLY | O_TRUNC));
	EXPECT(fstat(fd, &st) == 0 && st.st_size == 0, "size %jd after O_TRUNC",
	       (intmax_t)st.st_size);
	EXPECT(write(fd, "x", 1) == 1, "write");
	close(fd);
	t_drop_cache("f");
	EXPECT_FILE("f", (const uint8_t *)"x", 1);
	/* Regrow: the old bytes stay gone. */
	EXPECT_OK(truncate("f", sizeof(buf)));
	memset(buf, 0, sizeof(buf));
	buf[0] = 'x';
	t_drop_cache("f");
	EXPECT_FILE("f", buf, sizeof(buf));
}

/* ---- checks: readdir --------------------------------------------------- */

enum { NENT = 2000 };

/* Read the whole of @path: counts[i] gets how often "<prefix>NNNN" was
 * seen; other names besides . and .. are counted in *@others. */
static void t_count_entries(const char *path, const char *prefix, int *counts,
			    int n, int *others)
{
	DIR *d = opendir(path);
	struct dirent *e;
	size_t plen = strlen(prefix);

	*others = 0;
	if (!d) {
		t_note(__LINE__, "opendir(%s): %s", path, t_errname(errno));
		return;
	}
	while ((e = readdir(d))) {
		int i;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (strncmp(e->d_name, prefix, plen) == 0 &&
		    sscanf(e->d_name + plen, "%4d", &i) == 1 && i >= 0 && i < n)
			counts[i]++;
		else
			(*others)++;
	}
	closedir(d);
}

static void check_readdir_large(void)
{
	int counts[NENT] = {0}, others, wrong = 0;
	struct dirent *e;
	int dots = 0, dotdots = 0, badtype = 0, badino = 0;

	REQUIRE_OK(mkdir("big", 0755));
	REQUIRE_OK(chdir("big"));
	t_mkfiles("e", 0, NENT);
	REQUIRE_OK(mkdir("subdir", 0755));
	t_count_entries(".", "e", counts, NENT, &others);
	for (int i = 0; i < NENT; i++)
		if (counts[i] != 1 && wrong++ < 5)
			t_note(__LINE__, "e%04d listed %d times", i, counts[i]);
	EXPECT(wrong == 0, "%d of %d entries not listed exactly once", wrong,
	       NENT);
	EXPECT(others == 1, "%d other names listed, expected 1 (subdir)",
	       others);

	DIR *d = opendir(".");

	REQUIRE(d, "opendir");
	while ((e = readdir(d))) {
		struct stat st;

		dots += !strcmp(e->d_name, ".");
		dotdots += !strcmp(e->d_name, "..");
		if (e->d_type != DT_UNKNOWN &&
		    e->d_type !=
			(strcmp(e->d_name, "subdir") && e->d_name[0] != '.'
			     ? DT_REG
			     : DT_DIR))
			badtype++;
		if (e->d_name[0] == 'e' && e->d_name[4] == '7' &&
		    (lstat(e->d_name, &st) != 0 || st.st_ino != e->d_ino))
			badino++;
	}
	closedir(d);
	EXPECT(dots == 1 && dotdots == 1, "'.' listed %d times, '..' %d times",
	       dots, dotdots);
	EXPECT(badtype == 0, "%d entries with a wrong d_type", badtype);
	EXPECT(badino == 0, "%d entries whose d_ino differs from stat", badino);
	EXPECT_OK(chdir(".."));
}

static bool t_touched_m(int i)
{
	return (i >= 100 && i < 200) || (i >= 1000 && i < 1400) ||
	       (i >= 250 && i < 300) || (i >= 1500 && i < 1550);
}

static void t_rename_m(int i)
{
	char from[32], to[32];

	snprintf(from, sizeof(from), "m%04d", i);
	snprintf(to, sizeof(to), "r%04d", i);
	EXPECT_OK(rename(from, to));
}

static void check_readdir_during_changes(void)
{
	int seen_m[NENT] = {0}, seen_n[500] = {0}, seen_r[NENT] = {0};
	int counts[NENT];
	int others = 0, read = 0, wrong = 0;
	struct dirent *e;
	char name[32];

	REQUIRE_OK(mkdir("big", 0755));
	REQUIRE_OK(chdir("big"));
	t_mkfiles("m", 0, NENT);
	DIR *d = opendir(".");

	REQUIRE(d, "opendir");
	while ((e = readdir(d))) {
		int i;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_name[0] == 'm' &&
		    sscanf(e->d_name + 1, "%4d", &i) == 1)
			seen_m[i]++;
		else if (e->d_name[0] == 'n' &&
			 sscanf(e->d_name + 1, "%4d", &i) == 1)
			seen_n[i]++;
		else if (e->d_name[0] == 'r' &&
			 sscanf(e->d_name + 1, "%4d", &i) == 1)
			seen_r[i]++;
		else
			others++;
		if (++read == 300) {
			/* Mid-iteration: remove some read and some unread
			 * entries, add new ones. */
			for (i = 100; i < 200; i++) {
				snprintf(name, sizeof(name), "m%04d", i);
				EXPECT_OK(unlink(name));
			}
			for (i = 1000; i < 1400; i++) {
				snprintf(name, sizeof(name), "m%04d", i);
				EXPECT_OK(unlink(name));
			}
			t_mkfiles("n", 0, 500);
			/* Renames of read and unread entries: the new
			 * names, like added ones, may show up once. */
			for (i = 250; i < 300; i++)
				t_rename_m(i);
			for (i = 1500; i < 1550; i++)
				t_rename_m(i);
		}
	}
	closedir(d);
	/* Entries untouched during the iteration: exactly once. Removed or
	 * added ones: at most once. */
	for (int i = 0; i < NENT; i++) {
		bool touched = t_touched_m(i);

		if ((touched ? seen_m[i] > 1 : seen_m[i] != 1) && wrong++ < 5)
			t_note(__LINE__, "m%04d (%s) listed %d times", i,
			       touched ? "removed or renamed" : "untouched",
			       seen_m[i]);
		if (seen_r[i] > 1 && wrong++ < 5)
			t_note(__LINE__, "r%04d (renamed to) listed %d times",
			       i, seen_r[i]);
	}
	for (int i = 0; i < 500; i++)
		if (seen_n[i] > 1 && wrong++ < 5)
			t_note(__LINE__, "n%04d (added) listed %d times", i,
			       seen_n[i]);
	EXPECT(wrong == 0, "%d entries listed wrongly during changes", wrong);
	EXPECT(others == 0, "%d unexpected names", others);

	/* A fresh pass sees exactly the new state. */
	memset(counts, 0, sizeof(counts));
	t_count_entries(".", "m", counts, NENT, &others);
	wrong = 0;
	for (int i = 0; i < NENT; i++)
		wrong += counts[i] != (t_touched_m(i) ? 0 : 1);
	EXPECT(wrong == 0 && others == 600,
	       "after changes: %d m-entries wrong, %d others (expected 500 n + "
	       "100 r)",
	       wrong, others);
	EXPECT_OK(chdir(".."));
}

static void check_seekdir_telldir(void)
{
	char first[NAME_MAX + 1] = "", x[NAME_MAX + 1] = "", name[NAME_MAX + 1];
	char *seen[NENT + 2];
	int nseen = 0, count = 0;
	struct dirent *e;
	long pos;

	REQUIRE_OK(mkdir("big", 0755));
	REQUIRE_OK(chdir("big"));
	t_mkfiles("s", 0, NENT);
	DIR *d = opendir(".");

	REQUIRE(d, "opendir");
	for (int i = 0; i < 700 && (e = readdir(d)); i++) {
		if (i == 0)
			snprintf(first, sizeof(first), "%s", e->d_name);
		seen[nseen++] = strdup(e->d_name);
	}
	pos = telldir(d);
	e = readdir(d);
	REQUIRE(e, "readdir after 700 entries returned NULL");
	snprintf(x, sizeof(x), "%s", e->d_name);
	for (int i = 0; i < 50 && readdir(d); i++)
		;
	seekdir(d, pos);
	e = readdir(d);
	EXPECT(e && strcmp(e->d_name, x) == 0,
	       "after seekdir: '%s', expected '%s'", e ? e->d_name : "(end)",
	       x);
	/* Still right after entries before the position were removed. */
	for (int i = 0; i < 100 && i < nseen; i++) {
		if (seen[i][0] != 's')
			continue;
		snprintf(name, sizeof(name), "%s", seen[i]);
		EXPECT_OK(unlink(name));
		count++;
	}
	seekdir(d, pos);
	e = readdir(d);
	EXPECT(e && strcmp(e->d_name, x) == 0,
	       "after unlinks and seekdir: '%s', expected '%s'",
	       e ? e->d_name : "(end)", x);
	/* rewinddir starts over and sees the current set. */
	rewinddir(d);
	int total = 0;

	while ((e = readdir(d)))
		total++;
	EXPECT(total == NENT + 2 - count,
	       "after rewinddir %d entries, expected %d", total,
	       NENT + 2 - count);
	closedir(d);
	for (int i = 0; i < nseen; i++)
		free(seen[i]);
	EXPECT_OK(chdir(".."));
}

/* ---- checks: I/O paths ------------------------------------------------- */

static void check_o_direct(void)
{
	enum { LEN = 4 * BLK, OFF = 2 * BLK };
	void *wbuf = NULL, *rbuf = NULL;
	struct stat st;
	int fd;

	if (posix_memalign(&wbuf, BLK, LEN) || posix_memalign(&rbuf, BLK, LEN))
		exit(2);
	t_pattern(wbuf, LEN, OFF, 100);
	fd = open("f", O_CREAT | O_RDWR | O_DIRECT, 0644);
	if (!EXPECT_OK(fd))
		goto out_free;
	EXPECT(pwrite(fd, wbuf, LEN, OFF) == LEN,
	       "O_DIRECT pwrite 16 KiB @ 8 KiB");
	memset(rbuf, 0xee, LEN);
	EXPECT(pread(fd, rbuf, LEN, OFF) == LEN && memcmp(rbuf, wbuf, LEN) == 0,
	       "O_DIRECT pread back differs");
	EXPECT(pread(fd, rbuf, BLK, 0) == BLK, "O_DIRECT pread of the hole");
	EXPECT(((uint8_t *)rbuf)[0] == 0 && ((uint8_t *)rbuf)[BLK - 1] == 0,
	       "hole before O_DIRECT data not zero");
	EXPECT(fstat(fd, &st) == 0 && st.st_size == OFF + LEN, "size %jd",
	       (intmax_t)st.st_size);
	EXPECT_OK(fsync(fd));
	close(fd);
	/* The buffered view agrees. */
	fd = open("f", O_RDONLY);
	if (EXPECT_OK(fd)) {
		EXPECT_RANGE(fd, OFF, LEN, wbuf,
			     "buffered read of O_DIRECT data");
		EXPECT_RANGE(fd, 0, OFF, NULL, "buffered read of the hole");
		close(fd);
	}
out_free:
	free(wbuf);
	free(rbuf);
}

/* A small fsx: random overlapping writes and truncates against a model. */
static void check_unaligned_io(void)
{
	enum { MAXLEN = 20 * BLK };
	uint8_t *model = t_xmalloc(MAXLEN), *chunk = t_xmalloc(MAXLEN);
	size_t len = 0;
	uint64_t rng = 12345;
	int fd;

	fd = open("f", O_CREAT | O_RDWR, 0644);
	if (!EXPECT_OK(fd))
		goto out_free;
	/* The case from the brief first: 10000 bytes at offset 4000. */
	t_pattern(chunk, 10000, 0, 110);
	EXPECT(t_pwrite_full(fd, chunk, 10000, 4000) == 10000,
	       "pwrite 10000 @ 4000");
	memcpy(model + 4000, chunk, 10000);
	len = 14000;
	t_drop_fd_cache(fd);
	EXPECT_RANGE(fd, 0, len, model, "10000 @ 4000");

	/* One write much larger than a FUSE request, at an odd offset. */
	{
		enum { BIG = 3 * MIB + 123, BIGOFF = 4097 };
		uint8_t *big = t_xmalloc(BIG);
		int bfd = open("big", O_CREAT | O_RDWR, 0644);

		t_pattern(big, BIG, BIGOFF, 109);
		if (EXPECT_OK(bfd)) {
			EXPECT(t_pwrite_full(bfd, big, BIG, BIGOFF) == BIG,
			       "pwrite 3 MiB + 123 @ 4097");
			t_drop_fd_cache(bfd);
			EXPECT_RANGE(bfd, BIGOFF, BIG, big,
				     "3 MiB + 123 @ 4097");
			EXPECT_RANGE(bfd, 0, BIGOFF, NULL, "hole before it");
			close(bfd);
		}
		free(big);
	}

	for (int op = 0; op < 300; op++) {
		rng = t_mix64(rng);
		size_t off = rng % (MAXLEN - 1);
		size_t n = 1 + (rng >> 20) % (3 * BLK);

		if (off + n > MAXLEN)
			n = MAXLEN - off;
		if ((rng >> 40) % 10 == 0) {
			/* truncate to off */
			if (!EXPECT_OK(ftruncate(fd, (off_t)off)))
				break;
			if (off > len)
				memset(model + len, 0, off - len);
			len = off;
		} else {
			t_pattern(chunk, n, off, 111 + (uint32_t)op);
			if (!EXPECT(t_pwrite_full(fd, chunk, n, (off_t)off) ==
					(ssize_t)n,
				    "pwrite %zu @ %zu", n, off))
				break;
			if (off > len)
				memset(model + len, 0, off - len);
			memcpy(model + off, chunk, n);
			if (off + n > len)
				len = off + n;
		}
		if (op % 25 == 24) {
			char what[64];

			snprintf(what, sizeof(what), "after op %d", op);
			t_drop_fd_cache(fd);
			if (!EXPECT_RANGE(fd, 0, len, model, what))
				break;
		}
	}
	close(fd);
	t_drop_cache("f");
	EXPECT_FILE("f", model, len);
out_free:
	free(model);
	free(chunk);
}

static void check_fsync_fdatasync(void)
{
	int fd, dfd;

	REQUIRE_OK(fd = open("f", O_CREAT | O_RDWR, 0644));
	EXPECT(write(fd, "data", 4) == 4, "write");
	EXPECT_OK(fsync(fd));
	EXPECT(write(fd, "more", 4) == 4, "write");
	EXPECT_OK(fdatasync(fd));
	EXPECT_OK(fsync(fd)); /* nothing dirty */
	close(fd);
	REQUIRE_OK(fd = open("f", O_RDONLY));
	EXPECT_OK(fsync(fd)); /* read-only fd */
	close(fd);
	REQUIRE_OK(dfd = open(".", O_RDONLY | O_DIRECTORY));
	EXPECT_OK(fsync(dfd));
	EXPECT_OK(syncfs(dfd));
	close(dfd);
}

static void check_statfs(const char *root)
{
	struct statvfs sv;
	struct statfs sf;

	REQUIRE_OK(statvfs(root, &sv));
	EXPECT(sv.f_bsize == 4096, "f_bsize %lu", sv.f_bsize);
	EXPECT(sv.f_frsize > 0, "f_frsize 0");
	EXPECT(sv.f_namemax == 255, "f_namemax %lu", sv.f_namemax);
	EXPECT(sv.f_blocks > 0, "f_blocks 0");
	EXPECT(sv.f_bfree <= sv.f_blocks && sv.f_bavail <= sv.f_bfree,
	       "f_blocks %ju f_bfree %ju f_bavail %ju", (uintmax_t)sv.f_blocks,
	       (uintmax_t)sv.f_bfree, (uintmax_t)sv.f_bavail);
	EXPECT(sv.f_ffree <= sv.f_files, "f_files %ju < f_ffree %ju",
	       (uintmax_t)sv.f_files, (uintmax_t)sv.f_ffree);
	REQUIRE_OK(statfs(root, &sf));
	EXPECT(sf.f_type == FUSE_SUPER_MAGIC, "f_type 0x%lx is not FUSE",
	       (unsigned long)sf.f_type);
}

static void check_identical_blocks(void)
{
	enum { NBLK = 4096, CHUNK = 256 }; /* 16 MiB, written 1 MiB at a time */
	uint8_t blk[BLK], other[BLK], *buf = t_xmalloc(CHUNK * BLK);
	int fd, fd2, bad = 0;

	t_pattern(blk, BLK, 0, 120);
	t_pattern(other, BLK, 0, 121);
	for (int i = 0; i < CHUNK; i++)
		memcpy(buf + (size_t)i * BLK, blk, BLK);
	fd = open("f", O_CREAT | O_RDWR, 0644);
	fd2 = open("g", O_CREAT | O_RDWR, 0644);
	if (!EXPECT_OK(fd) || !EXPECT_OK(fd2))
		goto out_free;
	for (int i = 0; i < NBLK / CHUNK; i++) {
		off_t off = (off_t)i * CHUNK * BLK;

		EXPECT(t_pwrite_full(fd, buf, CHUNK * BLK, off) == CHUNK * BLK,
		       "write f @ %jd", (intmax_t)off);
		EXPECT(t_pwrite_full(fd2, buf, CHUNK * BLK, off) == CHUNK * BLK,
		       "write g @ %jd", (intmax_t)off);
	}
	/* Change one logical copy: the shared block must not change. */
	EXPECT(pwrite(fd, other, BLK, 1000 * BLK) == BLK,
	       "overwrite block 1000 of f");
	EXPECT(pwrite(fd, other + 1, 10, 2000 * BLK + 7) == 10,
	       "partial write in block 2000 of f");
	t_drop_fd_cache(fd);
	t_drop_fd_cache(fd2);
	for (int i = 0; i < NBLK && bad < 3; i++) {
		uint8_t want[BLK];

		memcpy(want, i == 1000 ? other : blk, BLK);
		if (i == 2000)
			memcpy(want + 7, other + 1, 10);
		if (!EXPECT_RANGE(fd, (off_t)i * BLK, BLK, want, "f block"))
			bad++;
		if (!EXPECT_RANGE(fd2, (off_t)i * BLK, BLK, blk, "g block"))
			bad++;
	}
	close(fd);
	close(fd2);
out_free:
	free(buf);
}

/* Dedupe refcounts: rewriting a shared block with its own content, then
 * dropping the other references and reusing the freed space, must leave the
 * block intact (a decrement-before-increment would free it). */
static void check_dedupe_rewrite_same(void)
{
	enum { NB = 8 };
	uint8_t blk[BLK], want[NB * BLK];
	int fd;

	t_pattern(blk, BLK, 0, 130);
	for (int i = 0; i < NB; i++)
		memcpy(want + i * BLK, blk, BLK);
	REQUIRE(t_put("f", want, sizeof(want)) == 0, "create f");
	REQUIRE(t_put("g", blk, BLK) == 0, "create g");
	REQUIRE_OK(fd = open("f", O_RDWR));
	for (int i = 0; i < NB; i++)
		EXPECT(pwrite(fd, blk, BLK, (off_t)i * BLK) == BLK,
		       "rewrite block %d with the same bytes", i);
	/* And a partial rewrite that leaves the block's content unchanged. */
	EXPECT(pwrite(fd, blk + 100, 50, 5 * BLK + 100) == 50,
	       "partial same-byte rewrite");
	EXPECT_OK(fsync(fd));
	EXPECT_OK(unlink("g"));
	EXPECT_OK(syncfs(fd));
	/* Reuse whatever was freed. */
	{
		uint8_t *u = t_xmalloc(256 * BLK);

		t_pattern(u, 256 * BLK, 0, 131);
		EXPECT(t_put("h", u, 256 * BLK) == 0,
		       "write 1 MiB of unique data");
		t_drop_cache("h");
		EXPECT_FILE("h", u, 256 * BLK);
		free(u);
	}
	t_drop_fd_cache(fd);
	EXPECT_RANGE(fd, 0, sizeof(want), want,
		     "f after same-content rewrites");
	/* Punch and truncate away some copies; the rest stay. */
	EXPECT_OK(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			    2 * BLK));
	EXPECT_OK(ftruncate(fd, 6 * BLK));
	EXPECT_OK(syncfs(fd));
	memset(want, 0, 2 * BLK);
	t_drop_fd_cache(fd);
	EXPECT_RANGE(fd, 0, 6 * BLK, want, "f after punch + truncate");
	close(fd);
}

/* Names are bytes: everything but '/' and NUL round-trips. */
static void check_odd_names(void)
{
	static const char *const names[] = {
	    "with space",  "new\nline",	   "tab\there",
	    "caf\xc3\xa9", "\xff\xfe\x01", "-dash",
	    "..dots",	   "...",	   " ",
	    "back\\slash", "*?[glob]",	   "'quote\"",
	    "a:b;c",
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	int seen[N] = {0}, others = 0;
	struct dirent *e;
	struct stat st;

	for (int i = 0; i < N; i++)
		EXPECT(t_put_str(names[i], names[i]) == 0, "create '%s'",
		       names[i]);
	for (int i = 0; i < N; i++)
		EXPECT(STAT(names[i], &st) &&
			   st.st_size == (off_t)strlen(names[i]),
		       "stat '%s'", names[i]);
	DIR *d = opendir(".");

	REQUIRE(d, "opendir");
	while ((e = readdir(d))) {
		int i;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		for (i = 0; i < N; i++)
			if (strcmp(e->d_name, names[i]) == 0)
				break;
		if (i < N)
			seen[i]++;
		else
			others++;
	}
	closedir(d);
	for (int i = 0; i < N; i++)
		EXPECT(seen[i] == 1, "'%s' listed %d times", names[i], seen[i]);
	EXPECT(others == 0, "%d names listed that were never created", others);
	/* "." and ".." are not creatable as files. */
	EXPECT_ERR(EEXIST, mkdir(".", 0755));
	EXPECT_ERR(EEXIST, mkdir("..", 0755));
}

/* Offsets far beyond anything written: no overflow, no crash. */
static void check_huge_offsets(void)
{
	static const off_t tib = 1LL << 40;
	uint8_t data[100];
	struct stat st;
	int fd;

	t_pattern(data, sizeof(data), 0, 140);
	REQUIRE_OK(fd = open("f", O_CREAT | O_RDWR, 0644));
	EXPECT_OK(ftruncate(fd, tib));
	EXPECT(fstat(fd, &st) == 0 && st.st_size == tib && st.st_blocks == 0,
	       "1 TiB sparse: size %jd blocks %jd", (intmax_t)st.st_size,
	       (intmax_t)st.st_blocks);
	EXPECT(pwrite(fd, data, sizeof(data), tib - 50) ==
		   (ssize_t)sizeof(data),
	       "pwrite across the 1 TiB mark");
	t_drop_fd_cache(fd);
	EXPECT_RANGE(fd, tib - 50, sizeof(data), data, "data @ 1 TiB - 50");
	EXPECT_RANGE(fd, tib / 3, BLK, NULL, "hole @ 1/3 TiB");
	/* Near the largest offset: it works or it is EFBIG/EINVAL. */
	off_t far = INT64_MAX - BLK;
	ssize_t n = pwrite(fd, data, 10, far);

	EXPECT(n == 10 || (n == -1 && (errno == EFBIG || errno == EINVAL)),
	       "pwrite @ INT64_MAX - 4096: %zd %s", n, t_errname(errno));
	int r = ftruncate(fd, INT64_MAX);

	EXPECT(r == 0 || errno == EFBIG || errno == EINVAL,
	       "ftruncate(INT64_MAX): %s", t_errname(errno));
	EXPECT_OK(ftruncate(fd, 0));
	EXPECT(fstat(fd, &st) == 0 && st.st_size == 0 && st.st_blocks == 0,
	       "back to 0: size %jd blocks %jd", (intmax_t)st.st_size,
	       (intmax_t)st.st_blocks);
	close(fd);
	EXPECT_OK(statfs(".", &(struct statfs){0}));
}

/* mmap: a private mapping sees the file; a shared one writes through and
 * sees write(2)s, both ways. */
static void check_mmap(void)
{
	enum { LEN = 3 * BLK };
	uint8_t want[LEN];
	uint8_t *p;
	int fd;

	t_pattern(want, LEN, 0, 150);
	REQUIRE(t_put("f", want, LEN) == 0, "create f");
	REQUIRE_OK(fd = open("f", O_RDWR));
	p = mmap(NULL, LEN, PROT_READ, MAP_PRIVATE, fd, 0);
	if (EXPECT(p != MAP_FAILED, "mmap MAP_PRIVATE: %s", t_errname(errno))) {
		EXPECT(memcmp(p, want, LEN) == 0,
		       "MAP_PRIVATE mapping differs from the file");
		munmap(p, LEN);
	}
	p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (EXPECT(p != MAP_FAILED, "mmap MAP_SHARED read-write: %s",
		   t_errname(errno))) {
		EXPECT(memcmp(p, want, LEN) == 0,
		       "MAP_SHARED mapping differs from the file");
		memcpy(p + 4000, "mapped", 6);
		memcpy(want + 4000, "mapped", 6);
		EXPECT_OK(msync(p, LEN, MS_SYNC));
		EXPECT_RANGE(fd, 0, LEN, want,
			     "read(2) after a store through the mapping");
		EXPECT(pwrite(fd, "written", 7, 9000) == 7, "pwrite");
		memcpy(want + 9000, "written", 7);
		EXPECT(memcmp(p + 9000, "written", 7) == 0,
		       "mapping does not see a pwrite");
		munmap(p, LEN);
		close(fd);
		t_drop_cache("f");
		EXPECT_FILE("f", want, LEN);
	} else {
		close(fd);
	}
}

/* ---- driver ------------------------------------------------------------ */

struct check {
	const char *name;
	void (*fn)(void);
};

static const struct check checks[] = {
    {"create_read_write_stat", check_create_read_write_stat},
    {"enoent", check_enoent},
    {"eexist", check_eexist},
    {"enotempty", check_enotempty},
    {"eisdir", check_eisdir},
    {"enotdir", check_enotdir},
    {"enametoolong", check_enametoolong},
    {"eloop", check_eloop},
    {"exdev", check_exdev},
    {"einval_rename_into_subdir", check_einval_rename_into_subdir},
    {"rename_replaces_file", check_rename_replaces_file},
    {"renameat2_noreplace", check_renameat2_noreplace},
    {"renameat2_exchange", check_renameat2_exchange},
    {"hard_links", check_hard_links},
    {"dir_nlink", check_dir_nlink},
    {"symlinks", check_symlinks},
    {"truncate_grow_zeros", check_truncate_grow_zeros},
    {"truncate_shrink_regrow", check_truncate_shrink_regrow},
    {"truncate_unaligned", check_truncate_unaligned},
    {"fallocate_extend", check_fallocate_extend},
    {"punch_hole", check_punch_hole},
    {"sparse_1g", check_sparse_1g},
    {"chmod_chown", check_chmod_chown},
    {"utimensat", check_utimensat},
    {"mtime_ctime_on_write_truncate", check_mtime_ctime_on_write_truncate},
    {"ctime_chmod_link_rename", check_ctime_chmod_link_rename},
    {"parent_dir_times", check_parent_dir_times},
    {"xattrs", check_xattrs},
    {"unlinked_open_file", check_unlinked_open_file},
    {"o_append", check_o_append},
    {"o_trunc", check_o_trunc},
    {"readdir_large", check_readdir_large},
    {"readdir_during_changes", check_readdir_during_changes},
    {"seekdir_telldir", check_seekdir_telldir},
    {"o_direct", check_o_direct},
    {"unaligned_io", check_unaligned_io},
    {"fsync_fdatasync", check_fsync_fdatasync},
    {"identical_blocks", check_identical_blocks},
    {"dedupe_rewrite_same", check_dedupe_rewrite_same},
    {"odd_names", check_odd_names},
    {"huge_offsets", check_huge_offsets},
    {"mmap", check_mmap},
};

static const char *t_root;

static void check_statfs_root(void)
{
	check_statfs(t_root);
}

static void t_run(const char *base, const struct check *c)
{
	char dir[PATH_MAX];

	t_check = c->name;
	t_check_failures = 0;
	t_first_failure[0] = '\0';
	snprintf(dir, sizeof(dir), "%s/%s", base, c->name);
	if (mkdir(dir, 0755) != 0 || chdir(dir) != 0) {
		t_note(__LINE__, "mkdir/chdir %s: %s", dir, t_errname(errno));
	} else {
		c->fn();
	}
	if (chdir(base) != 0)
		t_note(__LINE__, "chdir %s: %s", base, t_errname(errno));
	if (t_check_failures == 0) {
		t_passed++;
		printf("ok   %s\n", c->name);
	} else {
		t_failed++;
		if (t_check_failures > 1)
			printf("FAIL %s: %s (+%d more on stderr)\n", c->name,
			       t_first_failure, t_check_failures - 1);
		else
			printf("FAIL %s: %s\n", c->name, t_first_failure);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const struct check statfs_check = {"statfs", check_statfs_root};
	char base[PATH_MAX];

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s MOUNTPOINT [CHECK-SUBSTRING]\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	umask(0);
	t_root = argv[1];
	snprintf(base, sizeof(base), "%s/posix.%d", argv[1], (int)getpid());
	if (mkdir(base, 0755) != 0) {
		fprintf(stderr, "posix_semantics: mkdir %s: %s\n", base,
			strerror(errno));
		return 2;
	}
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		if (argc < 3 || strstr(checks[i].name, argv[2]))
			t_run(base, &checks[i]);
	if (argc < 3 || strstr("statfs", argv[2]))
		t_run(base, &statfs_check);
	printf("%d passed, %d failed\n", t_passed, t_failed);
	return t_failed ? 1 : 0;
}
