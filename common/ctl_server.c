/* The control socket's server: the daemon's side (ctl.h).
 *
 *   arraysim stats /mnt/a                        daemon (fs/)
 *     ctl_request("/mnt/a", "stats")               ctl_server thread
 *       ctl_find_store: /proc/self/mountinfo         poll(listen, wake)
 *         "/mnt/a ... - fuse.arraysim arraysim:/srv/a"  accept
 *       connect(/srv/a/ctl.sock)  ---- "stats\n" --->   read one line
 *                                                       SO_PEERCRED check
 *                                                       handler(memstream)
 *       read to EOF  <--- "ok\n" + body | "error: x\n"  send, close
 *
 * One exchange a connection, served one at a time from one thread: control
 * commands are rare and cheap, and a serial server needs no locking around
 * the handler.
 *
 * The socket is chmod'ed 0600 between bind() and listen(): until listen()
 * nobody can connect, so there is no window where it is open to others, and
 * the process-wide umask is left alone. SO_PEERCRED is checked anyway (root
 * ignores file modes, and a socket dir may be group-writable).
 *
 * A client may stall the thread for at most CTL_IO_TIMEOUT_MS while it sends
 * its line; ctl_server_stop() wakes the thread through a pipe at any time.
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

#include "common/log.h"

#define CTL_DRAIN_MAX (1u << 20) /* junk read after an oversized line */

struct ctl_server {
	int listen_fd;
	int wake_fd[2]; /* stop: write to [1], the thread polls [0] */
	int dir_fd;	/* O_PATH of the store dir; socket lives here */
	uid_t owner;	/* besides root, the only peer served */
	ctl_handler_fn fn;
	void *ctx;
	pthread_t thread;
};

/* Wait until @fd is readable. 1: readable, 0: stop requested or the
 * deadline passed, -errno on error. */
static int ctl_wait_readable(struct ctl_server *srv, int fd,
			     int64_t deadline_ms)
{
	for (;;) {
		struct pollfd pfd[2] = {
		    {.fd = fd, .events = POLLIN},
		    {.fd = srv->wake_fd[0], .events = POLLIN},
		};
		int64_t left =
		    deadline_ms < 0 ? -1 : deadline_ms - ctl_now_ms();
		int rc;

		if (deadline_ms >= 0 && left <= 0)
			return 0;
		rc = poll(pfd, 2, (int)left);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[1].revents)
			return 0;
		if (pfd[0].revents)
			return 1;
	}
}

/* Read one '\n'-terminated line of at most CTL_MAX_LINE bytes (newline
 * included) into @line. 0, -E2BIG (too long), -ETIMEDOUT, -ECONNRESET
 * (EOF before any byte), -EINTR (stopping) or -errno. A line cut by EOF is
 * taken as it is. */
static int ctl_read_line(struct ctl_server *srv, int fd, char *line)
{
	int64_t deadline = ctl_now_ms() + CTL_IO_TIMEOUT_MS;
	size_t len = 0;

	for (;;) {
		char *nl;
		ssize_t n;
		int rc = ctl_wait_readable(srv, fd, deadline);

		if (rc < 0)
			return rc;
		if (rc == 0)
			return ctl_now_ms() >= deadline ? -ETIMEDOUT : -EINTR;
		n = recv(fd, line + len, CTL_MAX_LINE - len, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (n == 0) {
			if (!len)
				return -ECONNRESET;
			line[len] = '\0';
			return 0;
		}
		nl = memchr(line + len, '\n', (size_t)n);
		len += (size_t)n;
		if (nl) {
			*nl = '\0';
			if (nl > line && nl[-1] == '\r')
				nl[-1] = '\0';
			return 0;
		}
		if (len == CTL_MAX_LINE)
			return -E2BIG;
	}
}

/* Discard what a client still sends (to its newline, EOF or a cap), so
 * closing does not reset the connection before it reads our reply. */
static void ctl_drain(struct ctl_server *srv, int fd)
{
	int64_t deadline = ctl_now_ms() + CTL_IO_TIMEOUT_MS;
	size_t total = 0;
	char buf[4096];

	while (total < CTL_DRAIN_MAX &&
	       ctl_wait_readable(srv, fd, deadline) == 1) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0 || memchr(buf, '\n', (size_t)n))
			return;
		total += (size_t)n;
	}
}

static void ctl_reply_error(int fd, const char *reason)
{
	char buf[CTL_MAX_LINE];
	int n = snprintf(buf, sizeof(buf), "error: %s\n", reason);

	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		n = sizeof(buf) - 1;
		buf[n - 1] = '\n';
	}
	ctl_send_all(fd, buf, (size_t)n);
}

/* Run the handler on @line and send its answer. */
static void ctl_answer(struct ctl_server *srv, int fd, const char *line)
{
	char err[512] = "";
	char *body = NULL;
	size_t body_len = 0;
	FILE *out;
	int rc;

	out = open_memstream(&body, &body_len);
	if (!out) {
		ctl_reply_error(fd, "out of memory");
		return;
	}
	rc = srv->fn(srv->ctx, line, out, err, sizeof(err));
	if (fclose(out) && !rc) {
		rc = -ENOMEM;
		err[0] = '\0';
	}
	if (rc) {
		/* Only the first line of a reason: the status is one line. */
		err[strcspn(err, "\n")] = '\0';
		ctl_reply_error(fd, err[0] ? err : strerror(rc < 0 ? -rc : rc));
	} else if (!ctl_send_all(fd, "ok\n", 3)) {
		ctl_send_all(fd, body, body_len);
	}
	free(body);
}

static void ctl_serve_one(struct ctl_server *srv, int fd)
{
	char line[CTL_MAX_LINE + 1];
	struct ucred cred;
	socklen_t cred_len = sizeof(cred);
	bool allowed;
	int rc;

	ctl_set_timeouts(fd, CTL_IO_TIMEOUT_MS);
	allowed = !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) &&
		  (cred.uid == 0 || cred.uid == srv->owner);

	rc = ctl_read_line(srv, fd, line);
	if (rc == -E2BIG) {
		ctl_drain(srv, fd);
		if (!allowed)
			ctl_reply_error(fd, "permission denied");
		else
			ctl_reply_error(fd, "command line too long (max "
					    "4096 bytes)");
		return;
	}
	if (rc)
		return; /* nothing to answer, or nobody to answer to */
	if (!allowed) {
		log_warn("ctl", "refused a command from uid %ld",
			 (long)cred.uid);
		ctl_reply_error(fd, "permission denied");
		return;
	}
	ctl_answer(srv, fd, line);
}

static void *ctl_server_thread(void *arg)
{
	struct ctl_server *srv = arg;

	for (;;) {
		int fd, rc = ctl_wait_readable(srv, srv->listen_fd, -1);

		if (rc == 0)
			break; /* stop requested */
		if (rc < 0) {
			log_error("ctl", "poll: %s", strerror(-rc));
			break;
		}
		fd = accept4(srv->listen_fd, NULL, NULL,
			     SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			if (errno == EINTR || errno == EAGAIN ||
			    errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				/* Do not spin: the backlog stays readable. */
				poll(NULL, 0, 100);
				continue;
			}
			log_error("ctl", "accept: %s", strerror(errno));
			break;
		}
		/* Blocking again: the timeouts bound sends; reads are polled.
		 */
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		ctl_serve_one(srv, fd);
		close(fd);
	}
	return NULL;
}

/* Is something already serving at @sa? */
static bool ctl_socket_live(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool live;

	if (fd < 0)
		return false;
	live = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
	close(fd);
	return live;
}

/* The socket's address in @store_dir (opened as srv->dir_fd), refusing
 * one another daemon serves and removing a stale one. 0 or -errno. */
static int ctl_claim_socket(struct ctl_server *srv, const char *store_dir,
			    struct sockaddr_un *sa, char *err, size_t errlen)
{
	int rc = ctl_sockaddr(store_dir, srv->dir_fd, sa);

	if (rc) {
		snprintf(err, errlen, "%s/%s: %s", store_dir, CTL_SOCKET_NAME,
			 strerror(-rc));
		return rc;
	}
	if (ctl_socket_live(sa)) {
		snprintf(err, errlen, "%s/%s: another arraysim is serving it",
			 store_dir, CTL_SOCKET_NAME);
		return -EADDRINUSE;
	}
	if (unlinkat(srv->dir_fd, CTL_SOCKET_NAME, 0) && errno != ENOENT) {
		rc = -errno;
		snprintf(err, errlen, "removing stale %s/%s: %s", store_dir,
			 CTL_SOCKET_NAME, strerror(-rc));
		return rc;
	}
	return 0;
}

/* Bind @sa, mode 0600, and listen, into srv->listen_fd. 0 or -errno,
 * leaving no socket behind. */
static int ctl_listen(struct ctl_server *srv, const char *store_dir,
		      const struct sockaddr_un *sa, char *err, size_t errlen)
{
	int rc;

	srv->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (srv->listen_fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "socket: %s", strerror(-rc));
		return rc;
	}
	if (bind(srv->listen_fd, (const struct sockaddr *)sa, sizeof(*sa))) {
		rc = -errno;
		snprintf(err, errlen, "bind %s/%s: %s", store_dir,
			 CTL_SOCKET_NAME, strerror(-rc));
		goto out_close_listen;
	}
	/* Before listen(): nobody can connect yet (see the note on top). */
	if (fchmodat(srv->dir_fd, CTL_SOCKET_NAME, 0600, 0)) {
		rc = -errno;
		snprintf(err, errlen, "chmod %s/%s: %s", store_dir,
			 CTL_SOCKET_NAME, strerror(-rc));
		goto out_unlink_socket;
	}
	if (listen(srv->listen_fd, 16)) {
		rc = -errno;
		snprintf(err, errlen, "listen %s/%s: %s", store_dir,
			 CTL_SOCKET_NAME, strerror(-rc));
		goto out_unlink_socket;
	}
	return 0;

out_unlink_socket:
	unlinkat(srv->dir_fd, CTL_SOCKET_NAME, 0);
out_close_listen:
	close(srv->listen_fd);
	srv->listen_fd = -1;
	return rc;
}

int ctl_server_start(const char *store_dir, uid_t owner, ctl_handler_fn fn,
		     void *ctx, struct ctl_server **out, char *err,
		     size_t errlen)
{
	struct ctl_server *srv;
	struct sockaddr_un sa;
	int rc;

	srv = calloc(1, sizeof(*srv));
	if (!srv) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	srv->owner = owner;
	srv->fn = fn;
	srv->ctx = ctx;
	srv->listen_fd = -1;

	srv->dir_fd = open(store_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (srv->dir_fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", store_dir, strerror(-rc));
		goto out_free_srv;
	}
	rc = ctl_claim_socket(srv, store_dir, &sa, err, errlen);
	if (!rc)
		rc = ctl_listen(srv, store_dir, &sa, err, errlen);
	if (rc)
		goto out_close_dir;
	if (pipe2(srv->wake_fd, O_CLOEXEC | O_NONBLOCK)) {
		rc = -errno;
		snprintf(err, errlen, "pipe: %s", strerror(-rc));
		goto out_unlink_socket;
	}
	rc = -pthread_create(&srv->thread, NULL, ctl_server_thread, srv);
	if (rc) {
		snprintf(err, errlen, "starting the control thread: %s",
			 strerror(-rc));
		goto out_close_pipe;
	}
	*out = srv;
	return 0;

out_close_pipe:
	close(srv->wake_fd[0]);
	close(srv->wake_fd[1]);
out_unlink_socket:
	unlinkat(srv->dir_fd, CTL_SOCKET_NAME, 0);
	close(srv->listen_fd);
out_close_dir:
	close(srv->dir_fd);
out_free_srv:
	free(srv);
	return rc;
}

void ctl_server_stop(struct ctl_server *srv)
{
	ssize_t n;

	if (!srv)
		return;
	do
		n = write(srv->wake_fd[1], "x", 1);
	while (n < 0 && errno == EINTR);
	pthread_join(srv->thread, NULL);
	unlinkat(srv->dir_fd, CTL_SOCKET_NAME, 0);
	close(srv->listen_fd);
	close(srv->wake_fd[0]);
	close(srv->wake_fd[1]);
	close(srv->dir_fd);
	free(srv);
}
