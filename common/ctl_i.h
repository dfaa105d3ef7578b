/* What the control socket's server (ctl_server.c) and client
 * (ctl_client.c) share: the socket's address, timeouts and sends
 * (ctl_sock.c). Private to common/ctl*.c. */
#ifndef ARRAYSIM_COMMON_CTL_I_H
#define ARRAYSIM_COMMON_CTL_I_H

#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

#include "common/ctl.h"

#define CTL_IO_TIMEOUT_MS 5000	  /* a silent client, either side */
#define CTL_REPLY_MAX (64u << 20) /* a client refuses bigger replies */

/* Address of the socket in the dir @dir (opened as @dir_fd): the path
 * itself if it fits in sun_path, else the /proc/self/fd short path.
 * 0 or -ENAMETOOLONG. */
int ctl_sockaddr(const char *dir, int dir_fd, struct sockaddr_un *sa);
/* Receive and send timeouts of @ms on @fd. 0 or -errno. */
int ctl_set_timeouts(int fd, int ms);
/* Send all of @buf; 0 or -errno. Never raises SIGPIPE. */
int ctl_send_all(int fd, const char *buf, size_t len);
/* The monotonic clock in ms, for poll() deadlines. */
int64_t ctl_now_ms(void);

#endif
