/* posix_semantics, size changes: truncate (grow, shrink, unaligned), fallocate,
 * punch hole, a sparse 1 GiB file. */
#include "posix.h"

void check_truncate_grow_zeros(void)
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

void check_truncate_shrink_regrow(void)
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

void check_truncate_unaligned(void)
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

void check_fallocate_extend(void)
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

void check_punch_hole(void)
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

void check_sparse_1g(void)
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
