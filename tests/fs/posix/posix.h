/* posix_semantics (tests/fs/posix/): what every topic file shares. The
 * reporting (main.c), the helpers (helpers.c), and one function per check,
 * listed in main.c's table in the order they run. */
#ifndef ARRAYSIM_TESTS_POSIX_H
#define ARRAYSIM_TESTS_POSIX_H

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

/* ---- reporting (main.c) ------------------------------------------------- */

extern const char *t_check;  /* name of the running check */
extern int t_check_failures; /* failed expectations in it */

/* Record a failed expectation of the running check, at @line. */
void t_note(int line, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "ENOENT" for ENOENT, "0" for 0. */
const char *t_errname(int e);
bool t_expect_err(int line, const char *what, long r, int e, int want);

/* True if @cond; otherwise records the failure and is false. */
#define EXPECT(cond, ...)                                                      \
	((cond) ? true : (t_note(__LINE__, __VA_ARGS__), false))
#define REQUIRE(cond, ...)                                                     \
	do {                                                                   \
		if (!EXPECT(cond, __VA_ARGS__))                                \
			return;                                                \
	} while (0)
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

/* ---- helpers (helpers.c) ------------------------------------------------- */

uint64_t t_mix64(uint64_t x);
void t_pattern(void *buf, size_t len, uint64_t off, uint32_t seed);
void *t_xmalloc(size_t n);
int64_t t_ts_ns(struct timespec ts);
int64_t t_now_ns(void);
void t_tick(void);
int t_put(const char *path, const void *buf, size_t len);
int t_put_str(const char *path, const char *s);
void t_drop_fd_cache(int fd);
void t_drop_cache(const char *path);
ssize_t t_pread_full(int fd, void *buf, size_t len, off_t off);
ssize_t t_pwrite_full(int fd, const void *buf, size_t len, off_t off);
bool t_range_is(int line, int fd, off_t off, size_t len, const uint8_t *want,
		const char *what);
bool t_file_is(int line, const char *path, const uint8_t *want, size_t len);
bool t_stat(int line, const char *path, struct stat *st);
bool t_exists(const char *path);
int t_renameat2(const char *from, const char *to, unsigned flags);
void t_mkfiles(const char *prefix, int from, int to);

#define EXPECT_RANGE(fd, off, len, want, what)                                 \
	t_range_is(__LINE__, (fd), (off), (len), (want), (what))
#define EXPECT_FILE(path, want, len) t_file_is(__LINE__, (path), (want), (len))
#define STAT(path, st) t_stat(__LINE__, (path), (st))

/* ---- checks, one file per topic ---------------------------------------------
 */

void check_create_read_write_stat(void);
void check_enoent(void);
void check_eexist(void);
void check_enotempty(void);
void check_eisdir(void);
void check_enotdir(void);
void check_enametoolong(void);
void check_eloop(void);
void check_exdev(void);
void check_einval_rename_into_subdir(void);
void check_rename_replaces_file(void);
void check_renameat2_noreplace(void);
void check_renameat2_exchange(void);
void check_hard_links(void);
void check_dir_nlink(void);
void check_symlinks(void);
void check_truncate_grow_zeros(void);
void check_truncate_shrink_regrow(void);
void check_truncate_unaligned(void);
void check_fallocate_extend(void);
void check_punch_hole(void);
void check_sparse_1g(void);
void check_chmod_chown(void);
void check_utimensat(void);
void check_mtime_ctime_on_write_truncate(void);
void check_ctime_chmod_link_rename(void);
void check_parent_dir_times(void);
void check_xattrs(void);
void check_unlinked_open_file(void);
void check_o_append(void);
void check_o_trunc(void);
void check_readdir_large(void);
void check_readdir_during_changes(void);
void check_seekdir_telldir(void);
void check_o_direct(void);
void check_unaligned_io(void);
void check_fsync_fdatasync(void);
void check_statfs(const char *root);
void check_identical_blocks(void);
void check_dedupe_rewrite_same(void);
void check_odd_names(void);
void check_huge_offsets(void);
void check_mmap(void);

#endif
