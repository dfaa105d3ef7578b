/* The control socket's client: one command line out, the status line and
 * the body back (protocol in ctl.h), for the tools' commands that talk to
 * a mounted array.
 */
#include "common/ctl_i.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* Read everything until EOF into a malloc'ed, NUL-terminated buffer. */
static int ctl_read_all(int fd, char **out, size_t *out_len)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (cap - len < 2) {
			char *bigger;

			if (cap >= CTL_REPLY_MAX) {
				free(buf);
				return -EFBIG;
			}
			bigger = realloc(buf, cap * 2);
			if (!bigger) {
				free(buf);
				return -ENOMEM;
			}
			buf = bigger;
			cap *= 2;
		}
		n = recv(fd, buf + len, cap - len - 1, 0);
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			free(buf);
			return e == EAGAIN ? -ETIMEDOUT : -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
}

int ctl_request_store(const char *store, const char *line, FILE *out, char *err,
		      size_t errlen)
{
	struct sockaddr_un sa;
	size_t reply_len = 0, status_len;
	char *reply = NULL, *nl;
	int dir_fd, fd, rc;

	if (strlen(line) >= CTL_MAX_LINE || strchr(line, '\n')) {
		snprintf(err, errlen,
			 "command must be one line of less than "
			 "%d bytes",
			 CTL_MAX_LINE);
		return -EINVAL;
	}
	dir_fd = open(store, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "store %s: %s", store, strerror(-rc));
		return rc;
	}
	rc = ctl_sockaddr(store, dir_fd, &sa);
	if (rc) {
		snprintf(err, errlen, "%s/%s: %s", store, CTL_SOCKET_NAME,
			 strerror(-rc));
		goto out_close_dir;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "socket: %s", strerror(-rc));
		goto out_close_dir;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		rc = -errno;
		snprintf(err, errlen, "no control socket at %s/%s: %s", store,
			 CTL_SOCKET_NAME, strerror(-rc));
		goto out_close_sock;
	}
	ctl_set_timeouts(fd, 2 * CTL_IO_TIMEOUT_MS);
	rc = ctl_send_all(fd, line, strlen(line));
	if (!rc)
		rc = ctl_send_all(fd, "\n", 1);
	if (rc) {
		snprintf(err, errlen, "sending to %s/%s: %s", store,
			 CTL_SOCKET_NAME, strerror(-rc));
		goto out_close_sock;
	}
	shutdown(fd, SHUT_WR);
	rc = ctl_read_all(fd, &reply, &reply_len);
	if (rc) {
		snprintf(err, errlen, "reading from %s/%s: %s", store,
			 CTL_SOCKET_NAME, strerror(-rc));
		goto out_close_sock;
	}

	nl = memchr(reply, '\n', reply_len);
	status_len = nl ? (size_t)(nl - reply) : reply_len;
	if (status_len == 2 && !memcmp(reply, "ok", 2)) {
		if (nl && out)
			fwrite(nl + 1, 1, reply_len - status_len - 1, out);
		rc = 0;
	} else if (status_len >= 7 && !memcmp(reply, "error: ", 7)) {
		reply[status_len] = '\0';
		snprintf(err, errlen, "%s", reply + 7);
		rc = !strcmp(reply + 7, "permission denied") ? -EACCES : -EIO;
	} else {
		snprintf(err, errlen, "%s/%s: %s", store, CTL_SOCKET_NAME,
			 reply_len ? "malformed reply"
				   : "closed without a reply");
		rc = -EPROTO;
	}
	free(reply);
out_close_sock:
	close(fd);
out_close_dir:
	close(dir_fd);
	return rc;
}

int ctl_request(const char *mountpoint, const char *line, FILE *out, char *err,
		size_t errlen)
{
	char store[PATH_MAX];
	int rc = ctl_find_store(mountpoint, store, sizeof(store));

	if (rc == -ENOENT) {
		snprintf(err, errlen, "no arraysim mounted at %s", mountpoint);
		return rc;
	}
	if (rc) {
		snprintf(err, errlen, "%s: %s", mountpoint, strerror(-rc));
		return rc;
	}
	return ctl_request_store(store, line, out, err, errlen);
}
