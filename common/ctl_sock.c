/* The control socket's address, timeouts and sends, for both sides.
 *
 * Long store paths: sun_path holds 108 bytes, a store path may not fit. Both
 * sides then open the store directory O_PATH and bind/connect through
 * "/proc/self/fd/N/ctl.sock", which the kernel resolves like any path.
 */
#include "common/ctl_i.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "common/clock.h"

/* Address of the socket in the dir @dir (opened as @dir_fd): the path
 * itself if it fits in sun_path, else the /proc/self/fd short path. */
int ctl_sockaddr(const char *dir, int dir_fd, struct sockaddr_un *sa)
{
	int n;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/%s", dir,
		     CTL_SOCKET_NAME);
	if (n > 0 && (size_t)n < sizeof(sa->sun_path))
		return 0;
	n = snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s",
		     dir_fd, CTL_SOCKET_NAME);
	if (n < 0 || (size_t)n >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

int ctl_set_timeouts(int fd, int ms)
{
	struct timeval tv = {.tv_sec = ms / 1000,
			     .tv_usec = (ms % 1000) * 1000};

	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

/* Send all of @buf; 0 or -errno. Never raises SIGPIPE. */
int ctl_send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int64_t ctl_now_ms(void)
{
	return (int64_t)(clock_mono_ns() / 1000000u);
}
