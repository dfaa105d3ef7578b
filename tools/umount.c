/* arraysim umount: unmount an array and wait until its daemon has synced
 * and closed the store, so the next mount of it never finds it busy. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/ctl.h"
#include "tools/commands.h"
#include "tools/options.h"

static int run_fusermount(const char *mnt)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execlp("fusermount3", "fusermount3", "-u", "--", mnt,
		       (char *)NULL);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

/* The daemon holds the store lock until it has synced and closed the
 * store; waiting for the lock is waiting for the unmount to finish, so a
 * mount right after `umount` never finds the store busy. */
static int wait_store_closed(const char *store)
{
	char path[PATH_MAX + 8];
	snprintf(path, sizeof(path), "%s/lock", store);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	const struct timespec tick = {0, 10 * 1000 * 1000};
	int r = -ETIMEDOUT;
	for (int i = 0; i < 60 * 100; i++) { /* a minute at most */
		if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
			r = 0;
			break;
		}
		nanosleep(&tick, NULL);
	}
	close(fd);
	return r;
}

int cmd_umount(int argc, char **argv)
{
	const struct opt_def none[] = {{0}};
	const char *pos[1];
	int npos;
	int r = opts_parse("umount", "MOUNTPOINT", none, NULL, argc, argv, pos,
			   1, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	if (npos != 1) {
		tool_error("umount: no MOUNTPOINT given");
		return 2;
	}
	char store[PATH_MAX];
	r = ctl_find_store(pos[0], store, sizeof(store));
	if (r) {
		tool_error("umount: no arraysim is mounted on %s", pos[0]);
		return 2;
	}
	char mnt[PATH_MAX];
	if (!realpath(pos[0], mnt))
		snprintf(mnt, sizeof(mnt), "%s", pos[0]);
	if (umount2(mnt, 0) < 0 && run_fusermount(mnt) < 0) {
		tool_error("umount: cannot unmount %s: %s", mnt,
			   strerror(errno));
		return 2;
	}
	if (wait_store_closed(store)) {
		tool_error("umount: %s unmounted, but its daemon still holds "
			   "store %s after a minute",
			   mnt, store);
		return 1;
	}
	return 0;
}
