/* posix_semantics, basics and error codes: create, read, write, stat; ENOENT,
 * EEXIST, ENOTEMPTY, EISDIR, ENOTDIR, ENAMETOOLONG, ELOOP, EXDEV, EINVAL. */
#include "posix.h"

void check_create_read_write_stat(void)
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

void check_enoent(void)
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

void check_eexist(void)
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

void check_enotempty(void)
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

void check_eisdir(void)
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

void check_enotdir(void)
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

void check_enametoolong(void)
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

void check_eloop(void)
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

void check_exdev(void)
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

void check_einval_rename_into_subdir(void)
{
	REQUIRE_OK(mkdir("a", 0755));
	REQUIRE_OK(mkdir("a/b", 0755));
	EXPECT_ERR(EINVAL, rename("a", "a/c"));
	EXPECT_ERR(EINVAL, rename("a", "a/b/c"));
	EXPECT_ERR(EINVAL, rmdir("a/."));
	EXPECT(t_exists("a/b"), "a/b lost");
}
