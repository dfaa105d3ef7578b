/* From a mountpoint to its store: the mount's source in
 * /proc/self/mountinfo is "arraysim:STORE" (fstype fuse.arraysim). What
 * every client of the control socket, and `arraysim umount`, starts with.
 */
#include "common/ctl.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Undo mountinfo's octal escapes (\040 space, \011 tab, \012 newline,
 * \134 backslash) in place. */
static void ctl_unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' &&
		    r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 +
				      (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

int ctl_mountinfo_find_store(FILE *mountinfo, const char *mountpoint,
			     char *store, size_t len)
{
	static const char prefix[] = "arraysim:";
	char *line = NULL;
	size_t cap = 0;
	int rc = -ENOENT;

	/* Keep the last match: a later mount on the same point hides the
	 * earlier ones. */
	while (getline(&line, &cap, mountinfo) > 0) {
		char *save = NULL, *mnt = NULL, *fstype = NULL, *source = NULL;
		char *tok = strtok_r(line, " \n", &save);
		int field = 1;

		for (; tok; tok = strtok_r(NULL, " \n", &save), field++) {
			if (field == 5)
				mnt = tok;
			if (!strcmp(tok, "-") && field > 6) {
				fstype = strtok_r(NULL, " \n", &save);
				source = strtok_r(NULL, " \n", &save);
				break;
			}
		}
		if (!mnt || !fstype || !source ||
		    strcmp(fstype, "fuse.arraysim"))
			continue;
		ctl_unescape(mnt);
		ctl_unescape(source);
		if (strcmp(mnt, mountpoint) ||
		    strncmp(source, prefix, sizeof(prefix) - 1))
			continue;
		source += sizeof(prefix) - 1;
		if (strlen(source) >= len) {
			rc = -ENAMETOOLONG;
			continue;
		}
		strcpy(store, source);
		rc = 0;
	}
	free(line);
	return rc;
}

/* realpath() of @path; a dead FUSE mount (ENOTCONN) still resolves through
 * its parent, so a client can name the store of a wedged array. */
static int ctl_realpath(const char *path, char *real)
{
	char parent[PATH_MAX], *slash;
	const char *base;

	if (realpath(path, real))
		return 0;
	if (errno != ENOTCONN && errno != EIO)
		return -errno;
	if (snprintf(parent, sizeof(parent), "%s", path) >= (int)sizeof(parent))
		return -ENAMETOOLONG;
	slash = strrchr(parent, '/');
	if (!slash) {
		base = path;
		strcpy(parent, ".");
	} else {
		base = path + (slash - parent) + 1;
		*slash = '\0';
		if (slash == parent)
			strcpy(parent, "/");
	}
	if (!realpath(parent, real))
		return -errno;
	if (snprintf(real + strlen(real), PATH_MAX - strlen(real), "%s%s",
		     strcmp(real, "/") ? "/" : "",
		     base) >= (int)(PATH_MAX - strlen(real)))
		return -ENAMETOOLONG;
	return 0;
}

int ctl_find_store(const char *mountpoint, char *store, size_t len)
{
	char real[PATH_MAX];
	FILE *f;
	int rc;

	rc = ctl_realpath(mountpoint, real);
	if (rc)
		return rc;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	rc = ctl_mountinfo_find_store(f, real, store, len);
	fclose(f);
	return rc;
}
