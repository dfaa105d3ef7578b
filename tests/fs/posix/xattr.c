/* posix_semantics, extended attributes: set, get, list, remove, flags, sizes.
 */
#include "posix.h"

static bool t_list_has(const char *list, ssize_t len, const char *name)
{
	for (ssize_t i = 0; i < len; i += (ssize_t)strlen(list + i) + 1)
		if (strcmp(list + i, name) == 0)
			return true;
	return false;
}

void check_xattrs(void)
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
