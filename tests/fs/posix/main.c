/* posix_semantics: POSIX behaviour of a mounted arraysim, seen from outside.
 *
 *   posix_semantics MOUNTPOINT [SUBSTRING]
 *
 * One program from tests/fs/posix/: this driver and the reporting, the
 * shared helpers (helpers.c) and one file per topic (errors, rename, links,
 * sizes, attrs, xattr, open, readdir, io).
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
#include "posix.h"

const char *t_check;  /* name of the running check */
int t_check_failures; /* failed expectations in it */
static char t_first_failure[512];
static int t_passed, t_failed;

void t_note(int line, const char *fmt, ...)
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

const char *t_errname(int e)
{
	const char *n = e ? strerrorname_np(e) : "0";

	return n ? n : "E?";
}

bool t_expect_err(int line, const char *what, long r, int e, int want)
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
