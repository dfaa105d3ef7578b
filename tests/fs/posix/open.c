/* posix_semantics, open-file semantics: an unlinked open file, O_APPEND,
 * O_TRUNC. */
#include "posix.h"

void check_unlinked_open_file(void)
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

void check_o_append(void)
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

void check_o_trunc(void)
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
