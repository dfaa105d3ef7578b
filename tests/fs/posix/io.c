/* posix_semantics, I/O paths: O_DIRECT, unaligned I/O, fsync, statfs, identical
 * blocks (dedupe), odd names, huge offsets, mmap. */
#include "posix.h"

void check_o_direct(void)
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
void check_unaligned_io(void)
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

void check_fsync_fdatasync(void)
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

void check_statfs(const char *root)
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

void check_identical_blocks(void)
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
void check_dedupe_rewrite_same(void)
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
void check_odd_names(void)
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
void check_huge_offsets(void)
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
void check_mmap(void)
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
