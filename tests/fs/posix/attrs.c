/* posix_semantics, attributes and times: chmod, chown, utimensat, mtime and
 * ctime of writes, truncates, links and renames, parent directory times. */
#include "posix.h"

void check_chmod_chown(void)
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

/* Explicit times, to the ns, negative and far in the future. */
static void utimensat_explicit(void)
{
	struct timespec ts[2];
	struct stat st;

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
}

/* UTIME_OMIT, UTIME_NOW, NULL (both now), futimens. */
static void utimensat_now_omit(void)
{
	struct timespec ts[2];
	struct stat st, st0;
	int64_t t0, t1;

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
}

void check_utimensat(void)
{
	struct timespec ts[2];
	struct stat st;

	REQUIRE(t_put_str("f", "x") == 0, "create f");
	utimensat_explicit();
	utimensat_now_omit();
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

void check_mtime_ctime_on_write_truncate(void)
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

void check_ctime_chmod_link_rename(void)
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

void check_parent_dir_times(void)
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
