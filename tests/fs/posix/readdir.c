/* posix_semantics, readdir: large directories, readdir during changes,
 * seekdir/telldir. */
#include "posix.h"

enum { NENT = 2000 };

/* Read the whole of @path: counts[i] gets how often "<prefix>NNNN" was
 * seen; other names besides . and .. are counted in *@others. */
static void t_count_entries(const char *path, const char *prefix, int *counts,
			    int n, int *others)
{
	DIR *d = opendir(path);
	struct dirent *e;
	size_t plen = strlen(prefix);

	*others = 0;
	if (!d) {
		t_note(__LINE__, "opendir(%s): %s", path, t_errname(errno));
		return;
	}
	while ((e = readdir(d))) {
		int i;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (strncmp(e->d_name, prefix, plen) == 0 &&
		    sscanf(e->d_name + plen, "%4d", &i) == 1 && i >= 0 && i < n)
			counts[i]++;
		else
			(*others)++;
	}
	closedir(d);
}

void check_readdir_large(void)
{
	int counts[NENT] = {0}, others, wrong = 0;
	struct dirent *e;
	int dots = 0, dotdots = 0, badtype = 0, badino = 0;

	REQUIRE_OK(mkdir("big", 0755));
	REQUIRE_OK(chdir("big"));
	t_mkfiles("e", 0, NENT);
	REQUIRE_OK(mkdir("subdir", 0755));
	t_count_entries(".", "e", counts, NENT, &others);
	for (int i = 0; i < NENT; i++)
		if (counts[i] != 1 && wrong++ < 5)
			t_note(__LINE__, "e%04d listed %d times", i, counts[i]);
	EXPECT(wrong == 0, "%d of %d entries not listed exactly once", wrong,
	       NENT);
	EXPECT(others == 1, "%d other names listed, expected 1 (subdir)",
	       others);

	DIR *d = opendir(".");

	REQUIRE(d, "opendir");
	while ((e = readdir(d))) {
		struct stat st;

		dots += !strcmp(e->d_name, ".");
		dotdots += !strcmp(e->d_name, "..");
		if (e->d_type != DT_UNKNOWN &&
		    e->d_type !=
			(strcmp(e->d_name, "subdir") && e->d_name[0] != '.'
			     ? DT_REG
			     : DT_DIR))
			badtype++;
		if (e->d_name[0] == 'e' && e->d_name[4] == '7' &&
		    (lstat(e->d_name, &st) != 0 || st.st_ino != e->d_ino))
			badino++;
	}
	closedir(d);
	EXPECT(dots == 1 && dotdots == 1, "'.' listed %d times, '..' %d times",
	       dots, dotdots);
	EXPECT(badtype == 0, "%d entries with a wrong d_type", badtype);
	EXPECT(badino == 0, "%d entries whose d_ino differs from stat", badino);
	EXPECT_OK(chdir(".."));
}

static bool t_touched_m(int i)
{
	return (i >= 100 && i < 200) || (i >= 1000 && i < 1400) ||
	       (i >= 250 && i < 300) || (i >= 1500 && i < 1550);
}

static void t_rename_m(int i)
{
	char from[32], to[32];

	snprintf(from, sizeof(from), "m%04d", i);
	snprintf(to, sizeof(to), "r%04d", i);
	EXPECT_OK(rename(from, to));
}

void check_readdir_during_changes(void)
{
	int seen_m[NENT] = {0}, seen_n[500] = {0}, seen_r[NENT] = {0};
	int counts[NENT];
	int others = 0, read = 0, wrong = 0;
	struct dirent *e;
	char name[32];

	REQUIRE_OK(mkdir("big", 0755));
	REQUIRE_OK(chdir("big"));
	t_mkfiles("m", 0, NENT);
	DIR *d = opendir(".");

	REQUIRE(d, "opendir");
	while ((e = readdir(d))) {
		int i;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_name[0] == 'm' &&
		    sscanf(e->d_name + 1, "%4d", &i) == 1)
			seen_m[i]++;
		else if (e->d_name[0] == 'n' &&
			 sscanf(e->d_name + 1, "%4d", &i) == 1)
			seen_n[i]++;
		else if (e->d_name[0] == 'r' &&
			 sscanf(e->d_name + 1, "%4d", &i) == 1)
			seen_r[i]++;
		else
			others++;
		if (++read == 300) {
			/* Mid-iteration: remove some read and some unread
			 * entries, add new ones. */
			for (i = 100; i < 200; i++) {
				snprintf(name, sizeof(name), "m%04d", i);
				EXPECT_OK(unlink(name));
			}
			for (i = 1000; i < 1400; i++) {
				snprintf(name, sizeof(name), "m%04d", i);
				EXPECT_OK(unlink(name));
			}
			t_mkfiles("n", 0, 500);
			/* Renames of read and unread entries: the new
			 * names, like added ones, may show up once. */
			for (i = 250; i < 300; i++)
				t_rename_m(i);
			for (i = 1500; i < 1550; i++)
				t_rename_m(i);
		}
	}
	closedir(d);
	/* Entries untouched during the iteration: exactly once. Removed or
	 * added ones: at most once. */
	for (int i = 0; i < NENT; i++) {
		bool touched = t_touched_m(i);

		if ((touched ? seen_m[i] > 1 : seen_m[i] != 1) && wrong++ < 5)
			t_note(__LINE__, "m%04d (%s) listed %d times", i,
			       touched ? "removed or renamed" : "untouched",
			       seen_m[i]);
		if (seen_r[i] > 1 && wrong++ < 5)
			t_note(__LINE__, "r%04d (renamed to) listed %d times",
			       i, seen_r[i]);
	}
	for (int i = 0; i < 500; i++)
		if (seen_n[i] > 1 && wrong++ < 5)
			t_note(__LINE__, "n%04d (added) listed %d times", i,
			       seen_n[i]);
	EXPECT(wrong == 0, "%d entries listed wrongly during changes", wrong);
	EXPECT(others == 0, "%d unexpected names", others);

	/* A fresh pass sees exactly the new state. */
	memset(counts, 0, sizeof(counts));
	t_count_entries(".", "m", counts, NENT, &others);
	wrong = 0;
	for (int i = 0; i < NENT; i++)
		wrong += counts[i] != (t_touched_m(i) ? 0 : 1);
	EXPECT(wrong == 0 && others == 600,
	       "after changes: %d m-entries wrong, %d others (expected 500 n + "
	       "100 r)",
	       wrong, others);
	EXPECT_OK(chdir(".."));
}

void check_seekdir_telldir(void)
{
	char first[NAME_MAX + 1] = "", x[NAME_MAX + 1] = "", name[NAME_MAX + 1];
	char *seen[NENT + 2];
	int nseen = 0, count = 0;
	struct dirent *e;
	long pos;

	REQUIRE_OK(mkdir("big", 0755));
	REQUIRE_OK(chdir("big"));
	t_mkfiles("s", 0, NENT);
	DIR *d = opendir(".");

	REQUIRE(d, "opendir");
	for (int i = 0; i < 700 && (e = readdir(d)); i++) {
		if (i == 0)
			snprintf(first, sizeof(first), "%s", e->d_name);
		seen[nseen++] = strdup(e->d_name);
	}
	pos = telldir(d);
	e = readdir(d);
	REQUIRE(e, "readdir after 700 entries returned NULL");
	snprintf(x, sizeof(x), "%s", e->d_name);
	for (int i = 0; i < 50 && readdir(d); i++)
		;
	seekdir(d, pos);
	e = readdir(d);
	EXPECT(e && strcmp(e->d_name, x) == 0,
	       "after seekdir: '%s', expected '%s'", e ? e->d_name : "(end)",
	       x);
	/* Still right after entries before the position were removed. */
	for (int i = 0; i < 100 && i < nseen; i++) {
		if (seen[i][0] != 's')
			continue;
		snprintf(name, sizeof(name), "%s", seen[i]);
		EXPECT_OK(unlink(name));
		count++;
	}
	seekdir(d, pos);
	e = readdir(d);
	EXPECT(e && strcmp(e->d_name, x) == 0,
	       "after unlinks and seekdir: '%s', expected '%s'",
	       e ? e->d_name : "(end)", x);
	/* rewinddir starts over and sees the current set. */
	rewinddir(d);
	int total = 0;

	while ((e = readdir(d)))
		total++;
	EXPECT(total == NENT + 2 - count,
	       "after rewinddir %d entries, expected %d", total,
	       NENT + 2 - count);
	closedir(d);
	for (int i = 0; i < nseen; i++)
		free(seen[i]);
	EXPECT_OK(chdir(".."));
}
