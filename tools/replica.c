/* arraysim replica: serve a store to a replicating source over TCP
 * (replication/serve.h), until SIGTERM or SIGINT. */
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <openssl/crypto.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "replication/serve.h"
#include "tools/commands.h"
#include "tools/options.h"

#define HANDSHAKE_MS 10000

struct replica_opts {
	const char *listen, *secret_file;
};

#define O(f) offsetof(struct replica_opts, f)
static const struct opt_def replica_opt_defs[] = {
    {"listen", 0, OPT_STRING, O(listen), "HOST:PORT",
     "where sources connect (port 0: any free one; the bound address is "
     "printed)"},
    {"secret-file", 0, OPT_STRING, O(secret_file), "FILE",
     "the shared secret a source must prove (and this replica proves to "
     "it): not empty, not readable by others"},
    {0},
};
#undef O

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

/* SIGTERM and SIGINT blocked but while waiting (@wait): a store step is
 * never cut by one, and every wait ends at one. */
static void catch_stops(sigset_t *wait)
{
	struct sigaction sa = {.sa_handler = on_stop};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigset_t stops;
	sigemptyset(&stops);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGINT);
	sigprocmask(SIG_BLOCK, &stops, wait);
	sigdelset(wait, SIGTERM);
	sigdelset(wait, SIGINT);
}

/* One source at a time, each session's end one line on stderr. */
static void serve(const struct repl_server *s, int lfd)
{
	while (!stopping) {
		struct pollfd p = {lfd, POLLIN, 0};
		if (ppoll(&p, 1, NULL, s->mask) < 0)
			continue; /* a signal: look at stopping */
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		char peer[NI_MAXHOST + NI_MAXSERV + 2], err[512];
		repl_sock_name(fd, true, peer, sizeof(peer));
		fprintf(stderr, "arraysim: replica: session from %s\n", peer);
		int e = repl_serve_session(s, fd, err, sizeof(err));
		close(fd);
		fprintf(stderr,
			"arraysim: replica: session from %s ended: %s\n", peer,
			e == -EINTR ? "stopping"
			: e	    ? err
				    : "the source hung up");
	}
}

static int run(const struct replica_opts *o, const char *dir)
{
	char err[512], bound[300];
	struct repl_secret secret;
	struct replica *rp;
	int lfd;
	if (repl_secret_load(o->secret_file, &secret, err, sizeof(err))) {
		tool_error("replica: %s", err);
		return 2;
	}
	if (replica_open(dir, &rp, err, sizeof(err))) {
		tool_error("replica: %s", err);
		return 2;
	}
	if (repl_serve_listen(o->listen, &lfd, bound, sizeof(bound), err,
			      sizeof(err))) {
		replica_close(rp);
		tool_error("replica: %s", err);
		return 2;
	}
	sigset_t wait;
	catch_stops(&wait);
	printf("arraysim: replica: %s serving on %s\n", dir, bound);
	fflush(stdout);
	struct repl_server s = {rp, &secret, &wait, HANDSHAKE_MS};
	serve(&s, lfd);
	close(lfd);
	replica_close(rp);
	OPENSSL_cleanse(&secret, sizeof(secret));
	fprintf(stderr, "arraysim: replica: %s closed\n", dir);
	return 0;
}

int cmd_replica(int argc, char **argv)
{
	static const char synopsis[] =
	    "--listen HOST:PORT --secret-file FILE DIR";
	struct replica_opts o = {0};
	const char *pos[1];
	int npos;
	int r = opts_parse("replica", synopsis, replica_opt_defs, &o, argc,
			   argv, pos, 1, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	if (npos != 1 || !o.listen || !o.secret_file) {
		tool_error("replica: %s (usage: arraysim replica %s)",
			   npos != 1   ? "no DIR given"
			   : !o.listen ? "no --listen given"
				       : "no --secret-file given",
			   synopsis);
		return 2;
	}
	char dir[PATH_MAX];
	if (!realpath(pos[0], dir))
		snprintf(dir, sizeof(dir), "%s", pos[0]); /* made by open */
	return run(&o, dir);
}
