/* ctl: the control socket server, driven through ctl_request_store() and a
 * raw client, and the mountinfo lookup; no FUSE mount needed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "common/ctl.h"

struct t_ctx {
	char dir[PATH_MAX]; /* the fake store */
	struct ctl_server *srv;
	int calls; /* handler invocations */
	char last_line[CTL_MAX_LINE + 1];
};

/* "echo X" answers X; "fail X" fails with reason X; "fail" fails with no
 * reason; "big" answers 4 MiB. */
static int t_handler(void *ctx, const char *line, FILE *out, char *err,
		     size_t errlen)
{
	struct t_ctx *t = ctx;

	t->calls++;
	snprintf(t->last_line, sizeof(t->last_line), "%s", line);
	if (!strncmp(line, "echo ", 5)) {
		fprintf(out, "%s\n", line + 5);
		return 0;
	}
	if (!strncmp(line, "fail ", 5)) {
		snprintf(err, errlen, "%s", line + 5);
		return -EINVAL;
	}
	if (!strcmp(line, "fail"))
		return -ENOSPC;
	if (!strcmp(line, "big")) {
		for (int i = 0; i < 4 * 1024; i++)
			fprintf(out, "%01023d\n", i);
		return 0;
	}
	snprintf(err, errlen, "unknown command '%s'", line);
	return -EINVAL;
}

static void t_make_dir(struct t_ctx *t, bool long_path)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(t->dir, sizeof(t->dir), "%s/arraysim-ctl-XXXXXX",
		 tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(t->dir));
	if (long_path) {
		/* Well past sun_path's 108 bytes. */
		for (int i = 0; i < 4; i++) {
			strcat(t->dir, "/a-rather-long-directory-name-"
				       "to-overflow-sun-path");
			assert_int_equal(mkdir(t->dir, 0700), 0);
		}
		assert_true(strlen(t->dir) > 108);
	}
}

static void t_start(struct t_ctx *t)
{
	char err[256] = "";
	int rc = ctl_server_start(t->dir, getuid(), t_handler, t, &t->srv, err,
				  sizeof(err));

	if (rc)
		fail_msg("ctl_server_start(%s): %d %s", t->dir, rc, err);
}

static int t_setup(void **state)
{
	struct t_ctx *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	t_make_dir(t, false);
	t_start(t);
	*state = t;
	return 0;
}

static void t_rmtree(const char *dir)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

static int t_teardown(void **state)
{
	struct t_ctx *t = *state;

	ctl_server_stop(t->srv);
	t_rmtree(t->dir);
	free(t);
	return 0;
}

/* @dir/ctl.sock into @path (PATH_MAX bytes). */
static char *t_sock_path(const char *dir, char *path)
{
	int n = snprintf(path, PATH_MAX, "%s/%s", dir, CTL_SOCKET_NAME);

	assert_true(n > 0 && n < PATH_MAX);
	return path;
}

/* One request; the body goes to a malloc'ed *@body. */
static int t_request(struct t_ctx *t, const char *line, char **body, char *err,
		     size_t errlen)
{
	size_t len = 0;
	FILE *out;
	int rc;

	*body = NULL;
	out = open_memstream(body, &len);
	assert_non_null(out);
	err[0] = '\0';
	rc = ctl_request_store(t->dir, line, out, err, errlen);
	assert_int_equal(fclose(out), 0);
	return rc;
}

/* A raw client: connect to the socket of @dir (short enough paths only). */
static int t_connect(const char *dir)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_true(snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir,
			     CTL_SOCKET_NAME) < (int)sizeof(sa.sun_path));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* Read until EOF into @buf (NUL-terminated). */
static size_t t_read_all(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got + 1 < len && (n = read(fd, buf + got, len - got - 1)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	return got;
}

static void test_echo(void **state)
{
	struct t_ctx *t = *state;
	char err[256], *body;

	assert_int_equal(
	    t_request(t, "echo hello world", &body, err, sizeof(err)), 0);
	assert_string_equal(body, "hello world\n");
	assert_string_equal(t->last_line, "echo hello world");
	free(body);

	/* An empty body is fine too, and the server keeps serving. */
	assert_int_equal(t_request(t, "echo ", &body, err, sizeof(err)), 0);
	assert_string_equal(body, "\n");
	free(body);
	assert_int_equal(t->calls, 2);
}

static void test_error_replies(void **state)
{
	struct t_ctx *t = *state;
	char err[256], *body;

	assert_int_equal(
	    t_request(t, "fail disk on fire", &body, err, sizeof(err)), -EIO);
	assert_string_equal(err, "disk on fire");
	assert_string_equal(body, "");
	free(body);

	/* No reason given: the server sends strerror() of the code. */
	assert_int_equal(t_request(t, "fail", &body, err, sizeof(err)), -EIO);
	assert_string_equal(err, strerror(ENOSPC));
	free(body);

	assert_int_equal(t_request(t, "bogus", &body, err, sizeof(err)), -EIO);
	assert_string_equal(err, "unknown command 'bogus'");
	free(body);
}

static void test_raw_protocol(void **state)
{
	struct t_ctx *t = *state;
	char buf[256], *body;
	int fd;

	/* CRLF is tolerated; the reply is status line + body, then EOF. */
	fd = t_connect(t->dir);
	assert_int_equal(write(fd, "echo hi\r\n", 9), 9);
	t_read_all(fd, buf, sizeof(buf));
	assert_string_equal(buf, "ok\nhi\n");
	close(fd);

	fd = t_connect(t->dir);
	assert_int_equal(write(fd, "fail nope\n", 10), 10);
	t_read_all(fd, buf, sizeof(buf));
	assert_string_equal(buf, "error: nope\n");
	close(fd);

	/* A client that connects and hangs up costs nothing. */
	fd = t_connect(t->dir);
	close(fd);
	assert_int_equal(
	    t_request(t, "echo still here", &body, buf, sizeof(buf)), 0);
	free(body);
}

static void test_oversized_line(void **state)
{
	struct t_ctx *t = *state;
	char big[CTL_MAX_LINE + 1000], buf[256], *body;
	int fd, calls = t->calls;

	memset(big, 'a', sizeof(big));
	big[sizeof(big) - 1] = '\n';
	fd = t_connect(t->dir);
	assert_int_equal(write(fd, big, sizeof(big)), (ssize_t)sizeof(big));
	t_read_all(fd, buf, sizeof(buf));
	assert_non_null(strstr(buf, "error: "));
	assert_non_null(strstr(buf, "too long"));
	close(fd);
	assert_int_equal(t->calls, calls); /* the handler never saw it */

	/* Exactly CTL_MAX_LINE bytes with the newline is still fine. */
	memcpy(big, "echo ", 5);
	big[CTL_MAX_LINE - 1] = '\0';
	assert_int_equal(t_request(t, big, &body, buf, sizeof(buf)), 0);
	assert_int_equal(strlen(body), CTL_MAX_LINE - 1 - 5 + 1);
	free(body);

	/* The client refuses to send an over-long or multi-line command. */
	big[CTL_MAX_LINE - 1] = 'a';
	big[CTL_MAX_LINE] = '\0';
	assert_int_equal(t_request(t, big, &body, buf, sizeof(buf)), -EINVAL);
	free(body);
	assert_int_equal(
	    t_request(t, "echo a\necho b", &body, buf, sizeof(buf)), -EINVAL);
	free(body);
}

static void test_client_hangs_up_early(void **state)
{
	struct t_ctx *t = *state;
	char err[256], *body;
	int fd;

	/* A 4 MiB answer to a client already gone: the server must get
	 * EPIPE, not SIGPIPE (which would kill this test process). */
	fd = t_connect(t->dir);
	assert_int_equal(write(fd, "big\n", 4), 4);
	close(fd);
	assert_int_equal(t_request(t, "echo alive", &body, err, sizeof(err)),
			 0);
	assert_string_equal(body, "alive\n");
	free(body);

	/* And a big answer to a reader arrives whole. */
	assert_int_equal(t_request(t, "big", &body, err, sizeof(err)), 0);
	assert_int_equal(strlen(body), 4 * 1024 * 1024);
	free(body);
}

static void test_silent_client_times_out(void **state)
{
	struct t_ctx *t = *state;
	char err[256], *body;
	uint64_t t0;
	int fd;

	/* Connected, says nothing: served again after the 5 s receive
	 * timeout, not never. */
	fd = t_connect(t->dir);
	t0 = clock_mono_ns();
	assert_int_equal(t_request(t, "echo after", &body, err, sizeof(err)),
			 0);
	assert_string_equal(body, "after\n");
	assert_true(clock_mono_ns() - t0 < 8000000000ULL);
	free(body);
	close(fd);
}

static void test_socket_mode_and_cleanup(void **state)
{
	struct t_ctx *t = *state;
	char path[PATH_MAX];
	struct stat st;

	t_sock_path(t->dir, path);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);

	ctl_server_stop(t->srv);
	t->srv = NULL;
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_stop_idle_and_busy(void **state)
{
	struct t_ctx *t = *state;
	uint64_t t0;
	int fd;

	/* Idle: returns at once. */
	t0 = clock_mono_ns();
	ctl_server_stop(t->srv);
	assert_true(clock_mono_ns() - t0 < 1000000000ULL);

	/* While a silent client holds the thread: still at once. */
	t_start(t);
	fd = t_connect(t->dir);
	usleep(50000); /* let the server accept it */
	t0 = clock_mono_ns();
	ctl_server_stop(t->srv);
	assert_true(clock_mono_ns() - t0 < 1000000000ULL);
	close(fd);

	ctl_server_stop(NULL); /* no-op */
	t->srv = NULL;
}

static void test_no_server(void **state)
{
	struct t_ctx *t = *state;
	char err[512], *body;
	int rc;

	ctl_server_stop(t->srv);
	t->srv = NULL;
	rc = t_request(t, "echo x", &body, err, sizeof(err));
	free(body);
	assert_int_equal(rc, -ENOENT);
	assert_non_null(strstr(err, "no control socket at "));
	assert_non_null(strstr(err, t->dir));

	/* A stale socket file (its server died) refuses connections... */
	{
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		assert_true(snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s",
				     t->dir, CTL_SOCKET_NAME) <
			    (int)sizeof(sa.sun_path));
		assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)),
				 0);
		close(fd);
	}
	rc = t_request(t, "echo x", &body, err, sizeof(err));
	free(body);
	assert_int_equal(rc, -ECONNREFUSED);
	assert_non_null(strstr(err, strerror(ECONNREFUSED)));

	/* ...and a new server replaces it. */
	t_start(t);
	assert_int_equal(t_request(t, "echo x", &body, err, sizeof(err)), 0);
	free(body);
}

static void test_second_server_refused(void **state)
{
	struct t_ctx *t = *state;
	struct ctl_server *other = NULL;
	char err[512] = "", *body;

	assert_int_equal(ctl_server_start(t->dir, getuid(), t_handler, t,
					  &other, err, sizeof(err)),
			 -EADDRINUSE);
	assert_null(other);
	assert_true(err[0] != '\0');
	/* The first one still serves. */
	assert_int_equal(t_request(t, "echo x", &body, err, sizeof(err)), 0);
	free(body);
}

static void test_long_store_path(void **state)
{
	struct t_ctx *t = calloc(1, sizeof(*t));
	char err[512], path[PATH_MAX], top[PATH_MAX], *body;
	struct stat st;

	assert_non_null(t);
	t_make_dir(t, true);
	t_start(t);
	assert_int_equal(t_request(t, "echo deep", &body, err, sizeof(err)), 0);
	assert_string_equal(body, "deep\n");
	free(body);

	t_sock_path(t->dir, path);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	ctl_server_stop(t->srv);
	assert_int_equal(stat(path, &st), -1);

	/* Remove from the mkdtemp() level down. */
	snprintf(top, sizeof(top), "%s", t->dir);
	*strstr(top, "/a-rather-long") = '\0';
	t_rmtree(top);
	free(t);
}

static void test_permission_denied(void **state)
{
	struct t_ctx *t = *state;
	char err[256], *body, path[PATH_MAX];
	struct passwd *nobody;
	pid_t pid;
	int status;

	if (getuid() != 0) {
		/* Serve someone else: we are refused. */
		struct ctl_server *srv = t->srv;

		ctl_server_stop(srv);
		assert_int_equal(ctl_server_start(t->dir, getuid() + 1,
						  t_handler, t, &t->srv, err,
						  sizeof(err)),
				 0);
		assert_int_equal(
		    t_request(t, "echo x", &body, err, sizeof(err)), -EACCES);
		assert_string_equal(err, "permission denied");
		free(body);
		assert_int_equal(t->calls, 0);
		return;
	}
	/* Root: let a child that became nobody past the file mode, so that
	 * SO_PEERCRED is what stops it. */
	nobody = getpwnam("nobody");
	if (!nobody)
		skip();
	t_sock_path(t->dir, path);
	assert_int_equal(chmod(t->dir, 0755), 0);
	assert_int_equal(chmod(path, 0666), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *out = fopen("/dev/null", "w");
		int rc;

		if (setgid(nobody->pw_gid) || setuid(nobody->pw_uid))
			_exit(3);
		rc = ctl_request_store(t->dir, "echo x", out, err, sizeof(err));
		_exit(rc == -EACCES && !strcmp(err, "permission denied") ? 0
		      : rc == 0						 ? 1
									 : 2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(t->calls, 0);
	/* Root itself is served whatever the owner. */
	assert_int_equal(t_request(t, "echo root", &body, err, sizeof(err)), 0);
	free(body);
}

static void test_mountinfo(void **state)
{
	static const char mountinfo[] =
	    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	    "40 22 0:40 / /mnt/a rw,nosuid,nodev shared:5 - fuse.arraysim "
	    "arraysim:/srv/store-a rw,user_id=0,group_id=0\n"
	    "41 22 0:41 / /mnt/with\\040space rw - fuse.arraysim "
	    "arraysim:/srv/store\\040b rw\n"
	    "42 22 0:42 / /mnt/other rw - fuse.sshfs host:/x rw\n"
	    "43 22 0:43 / /mnt/notours rw - fuse.arraysim elsewhere:/x rw\n"
	    "44 22 0:44 / /mnt/twice rw - fuse.arraysim arraysim:/old rw\n"
	    "45 44 0:45 / /mnt/twice rw - fuse.arraysim arraysim:/new rw\n"
	    "46 22 0:46 / /mnt/- rw master:3 - fuse.arraysim arraysim:/dash "
	    "rw\n";
	static const struct {
		const char *mnt;
		int rc;
		const char *store;
	} cases[] = {
	    {"/mnt/a", 0, "/srv/store-a"},
	    {"/mnt/with space", 0, "/srv/store b"},
	    {"/mnt/other", -ENOENT, NULL},
	    {"/mnt/notours", -ENOENT, NULL},
	    {"/mnt/twice", 0, "/new"},
	    {"/mnt/-", 0, "/dash"},
	    {"/mnt", -ENOENT, NULL},
	    {"/", -ENOENT, NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char store[PATH_MAX] = "";
		FILE *f =
		    fmemopen((void *)mountinfo, sizeof(mountinfo) - 1, "r");
		int rc;

		assert_non_null(f);
		rc = ctl_mountinfo_find_store(f, cases[i].mnt, store,
					      sizeof(store));
		fclose(f);
		if (rc != cases[i].rc)
			fail_msg("%s: rc %d, want %d", cases[i].mnt, rc,
				 cases[i].rc);
		if (cases[i].store)
			assert_string_equal(store, cases[i].store);
	}

	/* Too small a buffer is an error, not a truncated path. */
	{
		char small[8];
		FILE *f =
		    fmemopen((void *)mountinfo, sizeof(mountinfo) - 1, "r");

		assert_int_equal(
		    ctl_mountinfo_find_store(f, "/mnt/a", small, sizeof(small)),
		    -ENAMETOOLONG);
		fclose(f);
	}
}

static void test_find_store_not_mounted(void **state)
{
	char store[PATH_MAX], err[256];

	assert_int_equal(ctl_find_store("/", store, sizeof(store)), -ENOENT);
	assert_int_equal(
	    ctl_find_store("/nonexistent-arraysim-mnt", store, sizeof(store)),
	    -ENOENT);
	assert_int_equal(ctl_request("/", "stats", stdout, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "no arraysim mounted at /"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_echo, t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_error_replies, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_raw_protocol, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_oversized_line, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_client_hangs_up_early, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_silent_client_times_out,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_socket_mode_and_cleanup,
					    t_setup, t_teardown),
	    cmocka_unit_test_setup_teardown(test_stop_idle_and_busy, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_no_server, t_setup,
					    t_teardown),
	    cmocka_unit_test_setup_teardown(test_second_server_refused, t_setup,
					    t_teardown),
	    cmocka_unit_test(test_long_store_path),
	    cmocka_unit_test_setup_teardown(test_permission_denied, t_setup,
					    t_teardown),
	    cmocka_unit_test(test_mountinfo),
	    cmocka_unit_test(test_find_store_not_mounted),
	};

	/* A hung stop or read fails the test instead of wedging meson. */
	alarm(50);
	return cmocka_run_group_tests_name("ctl", tests, NULL, NULL);
}
