/* Replication over TCP's frames and handshake (replication/frame.h) and
 * the server's order of frames (replication/serve.h), over socketpairs:
 * a frame round-trips; an unknown type, an oversized length or a stream
 * cut short is refused; an ERROR frame's line comes back printable; a
 * secret file that is missing, empty, too long or readable by others is
 * refused; the handshake passes with one secret, and fails on both sides
 * with two, and a replica that fakes its proof is caught by the source; a
 * silent peer times out; a BLOCKS or META frame out of its place ends
 * the session with an ERROR frame. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "repl_test.h"
#include "replication/frame.h"
#include "replication/serve.h"

static uint64_t mdb_env_info_last(MDB_env *env)
{
	MDB_envinfo info;
	mdb_env_info(env, &info);
	return info.me_last_txnid;
}

static void pair(struct repl_conn *a, struct repl_conn *b)
{
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	*a = (struct repl_conn){.fd = sv[0], .timeout_ms = 2000};
	*b = (struct repl_conn){.fd = sv[1], .timeout_ms = 2000};
}

static void unpair(struct repl_conn *a, struct repl_conn *b)
{
	close(a->fd);
	close(b->fd);
}

static void test_header(void **state)
{
	(void)state;
	uint8_t h[REPL_FRAME_HDR] = {RF_FPS, 0x10, 0x27};
	uint8_t type;
	uint64_t len;
	assert_int_equal(repl_frame_parse(h, &type, &len, 10000), 0);
	assert_int_equal(type, RF_FPS);
	assert_int_equal(len, 10000);
	assert_int_equal(repl_frame_parse(h, &type, &len, 9999), -EPROTO);
	h[0] = 0;
	assert_int_equal(repl_frame_parse(h, &type, &len, 10000), -EPROTO);
	h[0] = RF_LAST + 1;
	assert_int_equal(repl_frame_parse(h, &type, &len, 10000), -EPROTO);
	memset(h + 1, 0xff, 8); /* 2^64 - 1 */
	h[0] = RF_META;
	assert_int_equal(repl_frame_parse(h, &type, &len, REPL_FRAME_MAX),
			 -EPROTO);
}

static void test_round_trip_and_cut(void **state)
{
	(void)state;
	struct repl_conn a, b;
	struct wbuf in = {0};
	uint8_t type;
	pair(&a, &b);
	assert_int_equal(repl_frame_send(&a, RF_META, "hello", 5), 0);
	assert_int_equal(a.bytes, REPL_FRAME_HDR + 5);
	assert_int_equal(repl_frame_recv(&b, &type, &in, 5), 0);
	assert_int_equal(type, RF_META);
	assert_int_equal(in.len, 5);
	assert_memory_equal(in.p, "hello", 5);
	assert_int_equal(b.bytes, REPL_FRAME_HDR + 5);
	/* longer than the receiver allows */
	assert_int_equal(repl_frame_send(&a, RF_META, "hello", 5), 0);
	assert_int_equal(repl_frame_recv(&b, &type, &in, 4), -EPROTO);
	unpair(&a, &b);
	/* a header promising more than comes */
	pair(&a, &b);
	uint8_t h[REPL_FRAME_HDR + 2] = {RF_FPS, 100, 0, 0, 0, 0,
					 0,	 0,   0, 1, 2};
	assert_int_equal(write(a.fd, h, sizeof(h)), (ssize_t)sizeof(h));
	shutdown(a.fd, SHUT_WR);
	assert_int_equal(repl_frame_recv(&b, &type, &in, 1000), -ECONNRESET);
	unpair(&a, &b);
	wbuf_free(&in);
}

static void test_error_frame(void **state)
{
	(void)state;
	struct repl_conn a, b;
	struct wbuf in = {0};
	uint8_t type;
	char line[64];
	pair(&a, &b);
	assert_int_equal(repl_frame_send_error(&a, EACCES, "no\nway"), 0);
	assert_int_equal(repl_frame_recv(&b, &type, &in, 512), 0);
	assert_int_equal(type, RF_ERROR);
	assert_int_equal(repl_frame_error_of(&in, line, sizeof(line)), -EACCES);
	assert_string_equal(line, "no?way");
	in.len = 2; /* too short for its errno */
	assert_int_equal(repl_frame_error_of(&in, line, sizeof(line)), -EPROTO);
	unpair(&a, &b);
	wbuf_free(&in);
}

static void test_hostport(void **state)
{
	(void)state;
	char h[64], p[8];
	assert_int_equal(repl_split_hostport("127.0.0.1:0", h, 64, p, 8), 0);
	assert_string_equal(h, "127.0.0.1");
	assert_string_equal(p, "0");
	assert_int_equal(repl_split_hostport("[::1]:7000", h, 64, p, 8), 0);
	assert_string_equal(h, "::1");
	assert_int_equal(repl_split_hostport("host:", h, 64, p, 8), -EINVAL);
	assert_int_equal(repl_split_hostport(":80", h, 64, p, 8), -EINVAL);
	assert_int_equal(repl_split_hostport("h:65536", h, 64, p, 8), -EINVAL);
	assert_int_equal(repl_split_hostport("h:-1", h, 64, p, 8), -EINVAL);
	assert_int_equal(repl_split_hostport("noport", h, 64, p, 8), -EINVAL);
}

static int secret_of(const char *dir, const char *text, size_t len, mode_t mode,
		     struct repl_secret *s)
{
	char path[128], err[512];
	snprintf(path, sizeof(path), "%s/secret", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	chmod(path, mode);
	int e = repl_secret_load(path, s, err, sizeof(err));
	assert_true(!e || strchr(err, '\n') == NULL);
	return e;
}

static void test_secret_file(void **state)
{
	(void)state;
	char dir[64], err[512], big[REPL_SECRET_MAX + 1];
	struct repl_secret s;
	t_newdir(dir);
	assert_int_equal(secret_of(dir, "abc\n", 4, 0600, &s), 0);
	assert_int_equal(s.len, 3);
	assert_memory_equal(s.key, "abc", 3);
	assert_int_equal(secret_of(dir, "abc", 3, 0644, &s), -EPERM);
	assert_int_equal(secret_of(dir, "abc", 3, 0602, &s), -EPERM);
	assert_int_equal(secret_of(dir, "\n\n", 2, 0600, &s), -EINVAL);
	memset(big, 'x', sizeof(big));
	assert_int_equal(secret_of(dir, big, sizeof(big), 0600, &s), -EINVAL);
	assert_int_equal(repl_secret_load("/nonexistent/x", &s, err, 512),
			 -ENOENT);
	t_rmtree(dir);
}

struct side {
	struct repl_conn c;
	struct repl_secret s;
	int e;
	char err[512];
};

static void *replica_side(void *arg)
{
	struct side *r = arg;
	r->e = repl_hs_replica(&r->c, &r->s, r->err, sizeof(r->err));
	return NULL;
}

/* Both ends of a handshake, the replica's in a thread. */
static void handshake(struct side *src, struct side *rep)
{
	pthread_t t;
	pair(&src->c, &rep->c);
	assert_int_equal(pthread_create(&t, NULL, replica_side, rep), 0);
	src->e = repl_hs_source(&src->c, &src->s, src->err, sizeof(src->err));
	pthread_join(t, NULL);
	unpair(&src->c, &rep->c);
}

static void test_handshake(void **state)
{
	(void)state;
	struct side src = {.s = {"k1", 2}}, rep = {.s = {"k1", 2}};
	handshake(&src, &rep);
	assert_int_equal(src.e, 0);
	assert_int_equal(rep.e, 0);
	rep.s = (struct repl_secret){"k2", 2};
	handshake(&src, &rep);
	assert_int_equal(rep.e, -EACCES);
	assert_int_equal(src.e, -EACCES);
	assert_non_null(strstr(src.err, "does not hold the shared secret"));
	/* the two directions' MACs differ: one is never the other's */
	uint8_t n1[REPL_NONCE_LEN] = {1}, n2[REPL_NONCE_LEN] = {2};
	uint8_t m1[REPL_MAC_LEN], m2[REPL_MAC_LEN];
	repl_hs_mac(&src.s, false, n1, n2, m1);
	repl_hs_mac(&src.s, true, n1, n2, m2);
	assert_memory_not_equal(m1, m2, REPL_MAC_LEN);
}

static void *impostor(void *arg)
{
	struct side *r = arg;
	uint8_t hello[REPL_MAGIC_LEN + REPL_NONCE_LEN] = REPL_MAGIC;
	uint8_t mac[REPL_MAC_LEN] = {7};
	struct wbuf in = {0};
	uint8_t type;
	repl_frame_send(&r->c, RF_HELLO, hello, sizeof(hello));
	r->e = repl_frame_recv(&r->c, &type, &in, 512);
	repl_frame_send(&r->c, RF_AUTH_OK, mac, sizeof(mac));
	wbuf_free(&in);
	return NULL;
}

static void test_impostor_replica(void **state)
{
	(void)state;
	struct side src = {.s = {"k1", 2}}, rep = {0};
	pthread_t t;
	pair(&src.c, &rep.c);
	assert_int_equal(pthread_create(&t, NULL, impostor, &rep), 0);
	src.e = repl_hs_source(&src.c, &src.s, src.err, sizeof(src.err));
	pthread_join(t, NULL);
	unpair(&src.c, &rep.c);
	assert_int_equal(src.e, -EACCES);
	assert_non_null(strstr(src.err, "nothing shipped"));
}

static void test_silent_peer(void **state)
{
	(void)state;
	struct side src = {0}, rep = {.s = {"k", 1}};
	pair(&src.c, &rep.c);
	rep.c.timeout_ms = 50;
	replica_side(&rep); /* HELLO sent, no AUTH comes */
	assert_int_equal(rep.e, -ETIMEDOUT);
	unpair(&src.c, &rep.c);
}

/* A cancel (an unmount) ends a wait on a silent peer at once, not at its
 * timeout. */
static void test_cancelled_wait(void **state)
{
	(void)state;
	struct repl_conn a, b;
	struct wbuf in = {0};
	uint8_t got;
	int efd = eventfd(0, EFD_CLOEXEC);
	uint64_t one = 1;
	pair(&a, &b);
	b.timeout_ms = 60000;
	b.cancel = &efd;
	assert_int_equal(write(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
	time_t t0 = time(NULL);
	assert_int_equal(repl_frame_recv(&b, &got, &in, 512), -ECANCELED);
	assert_true(time(NULL) - t0 < 2);
	unpair(&a, &b);
	close(efd);
	wbuf_free(&in);
}

/* A frame the server must refuse where it is: an ERROR frame back, the
 * session over with -EPROTO, nothing applied. */
static void out_of_place(struct replica *rp, uint8_t type)
{
	struct repl_conn a, b;
	struct wbuf in = {0};
	uint8_t got;
	char err[512];
	struct repl_server s = {rp, NULL, NULL, 1000};
	pair(&a, &b);
	assert_int_equal(repl_frame_send(&a, type, "\0\0\0\0\0\0\0\0\0", 9), 0);
	assert_int_equal(repl_serve_frames(&s, &b, err, sizeof(err)), -EPROTO);
	assert_int_equal(repl_frame_recv(&a, &got, &in, 512), 0);
	assert_int_equal(got, RF_ERROR);
	unpair(&a, &b);
	wbuf_free(&in);
}

static void test_server_order(void **state)
{
	(void)state;
	char dir[64], err[512];
	struct replica *rp;
	t_newdir(dir);
	assert_int_equal(replica_open(dir, &rp, err, sizeof(err)), 0);
	uint64_t before = mdb_env_info_last(replica_env(rp));
	out_of_place(rp, RF_BLOCKS);
	out_of_place(rp, RF_META);
	out_of_place(rp, RF_AUTH);
	assert_true(mdb_env_info_last(replica_env(rp)) == before);
	/* a source that hangs up ends the session cleanly */
	struct repl_conn a, b;
	struct repl_server s = {rp, NULL, NULL, 1000};
	pair(&a, &b);
	shutdown(a.fd, SHUT_WR);
	assert_int_equal(repl_serve_frames(&s, &b, err, sizeof(err)), 0);
	unpair(&a, &b);
	replica_close(rp);
	t_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_header),
	    cmocka_unit_test(test_round_trip_and_cut),
	    cmocka_unit_test(test_error_frame),
	    cmocka_unit_test(test_hostport),
	    cmocka_unit_test(test_secret_file),
	    cmocka_unit_test(test_handshake),
	    cmocka_unit_test(test_impostor_replica),
	    cmocka_unit_test(test_silent_peer),
	    cmocka_unit_test(test_cancelled_wait),
	    cmocka_unit_test(test_server_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
