/* The control socket: how `arraysim stats`, `arraysim ctl` (faults, sync,
 * scenarios: faults/control.h), `arraysim top` and `arraysim umount` talk
 * to a mounted array. Server in ctl_server.c, client in ctl_client.c, the
 * mountpoint-to-store lookup in ctl_mountinfo.c, what both sides share in
 * ctl_sock.c (ctl_i.h).
 *
 * The daemon listens on STORE/ctl.sock, mode 0600, and serves only peers
 * whose uid (SO_PEERCRED) is the mounting user's or root. A client finds the
 * socket from the mountpoint: the mount's source in /proc/self/mountinfo is
 * "arraysim:STORE" (fstype fuse.arraysim).
 *
 * Protocol, one exchange a connection: the client sends one command line
 * (at most CTL_MAX_LINE bytes, '\n'-terminated); the server answers with a
 * status line, "ok\n" or "error: <reason>\n", then the body, then closes.
 */
#ifndef ARRAYSIM_COMMON_CTL_H
#define ARRAYSIM_COMMON_CTL_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#define CTL_MAX_LINE 4096
#define CTL_SOCKET_NAME "ctl.sock"

/* Answer @line into @out; return 0 (server sends "ok") or -errno with a
 * one-line reason in @err (server sends "error: <err>"). */
typedef int (*ctl_handler_fn)(void *ctx, const char *line, FILE *out, char *err,
			      size_t errlen);

struct ctl_server;

/* Listen on @store_dir/ctl.sock, serving from a thread of its own until
 * ctl_server_stop(). 0 or -errno with a reason in @err. */
int ctl_server_start(const char *store_dir, uid_t owner, ctl_handler_fn fn,
		     void *ctx, struct ctl_server **out, char *err,
		     size_t errlen);
/* Stop serving and remove the socket; NULL is a no-op. */
void ctl_server_stop(struct ctl_server *srv);

/* Find the store of the arraysim mounted at @mountpoint into @store
 * (PATH_MAX bytes). 0, -ENOENT (no arraysim mounted there) or -errno. */
int ctl_find_store(const char *mountpoint, char *store, size_t len);
/* Send @line to the array at @mountpoint and copy the body to @out.
 * Returns 0, or -errno with the reason (server's or local) in @err. */
int ctl_request(const char *mountpoint, const char *line, FILE *out, char *err,
		size_t errlen);
/* ctl_request() once the store is known (tests, tools that have it). */
int ctl_request_store(const char *store, const char *line, FILE *out, char *err,
		      size_t errlen);
/* The mountinfo lookup behind ctl_find_store(): @mountpoint must already
 * be a realpath. 0, -ENOENT or -ENAMETOOLONG. */
int ctl_mountinfo_find_store(FILE *mountinfo, const char *mountpoint,
			     char *store, size_t len);

#endif
