/* posix_semantics, links: hard links, directory link counts, symlinks. */
#include "posix.h"

void check_hard_links(void)
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

void check_dir_nlink(void)
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

void check_symlinks(void)
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
