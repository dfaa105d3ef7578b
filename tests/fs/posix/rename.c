/* posix_semantics, rename: over a file, RENAME_NOREPLACE, RENAME_EXCHANGE. */
#include "posix.h"

void check_rename_replaces_file(void)
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

void check_renameat2_noreplace(void)
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

void check_renameat2_exchange(void)
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
