/* Frames and the handshake (replication/frame.h). */
#include "replication/frame.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const char ctx_source[] = "arraysim replication source v1";
static const char ctx_replica[] = "arraysim replication replica v1";

void repl_sock_tune(int fd)
{
	static const int opts[][3] = {
	    {IPPROTO_TCP, TCP_NODELAY, 1},   {SOL_SOCKET, SO_KEEPALIVE, 1},
	    {IPPROTO_TCP, TCP_KEEPIDLE, 10}, {IPPROTO_TCP, TCP_KEEPINTVL, 5},
	    {IPPROTO_TCP, TCP_KEEPCNT, 3},
	};
	for (size_t i = 0; i < sizeof(opts) / sizeof(*opts); i++)
		setsockopt(fd, opts[i][0], opts[i][1], &opts[i][2],
			   sizeof(int));
}

int repl_split_hostport(const char *hp, char *host, size_t hlen, char *port,
			size_t plen)
{
	const char *colon = strrchr(hp, ':');
	if (!colon)
		return -EINVAL;
	const char *h = hp, *hend = colon;
	if (*h == '[' && hend > h + 1 && hend[-1] == ']')
		h++, hend--;
	size_t n = (size_t)(hend - h);
	char *end;
	unsigned long p = strtoul(colon + 1, &end, 10);
	if (!n || n >= hlen || colon[1] < '0' || colon[1] > '9' || *end ||
	    p > 65535 || strlen(colon + 1) >= plen)
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	snprintf(port, plen, "%lu", p);
	return 0;
}

int repl_frame_parse(const uint8_t hdr[REPL_FRAME_HDR], uint8_t *type,
		     uint64_t *len, uint64_t max)
{
	uint64_t n = 0;
	for (int i = 0; i < 8; i++)
		n |= (uint64_t)hdr[1 + i] << (8 * i);
	*type = hdr[0];
	*len = n;
	return hdr[0] < RF_HELLO || hdr[0] > RF_LAST || n > max ? -EPROTO : 0;
}

int repl_conn_wait(const struct repl_conn *c, short events)
{
	struct pollfd p[2] = {{c->fd, events, 0},
			      {c->cancel ? *c->cancel : -1, POLLIN, 0}};
	struct timespec ts = {c->timeout_ms / 1000,
			      (long)(c->timeout_ms % 1000) * 1000000};
	int n;
	do /* without a mask, a signal is not a reason to stop */
		n = ppoll(p, 2, c->timeout_ms < 0 ? NULL : &ts, c->mask);
	while (n < 0 && errno == EINTR && !c->mask);
	if (n < 0)
		return -errno;
	if (p[1].revents)
		return -ECANCELED;
	return n ? 0 : -ETIMEDOUT;
}

/* All @len bytes out (@out) or in, each wait for the peer bounded. */
static int xfer(struct repl_conn *c, bool out, uint8_t *p, size_t len)
{
	while (len) {
		int e = repl_conn_wait(c, out ? POLLOUT : POLLIN);
		if (e)
			return e;
		ssize_t n =
		    out ? send(c->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT)
			: recv(c->fd, p, len, MSG_DONTWAIT);
		if (n == 0 && !out)
			return -ECONNRESET;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		n = n < 0 ? 0 : n;
		p += n;
		len -= (size_t)n;
		c->bytes += (uint64_t)n;
	}
	return 0;
}

int repl_frame_send(struct repl_conn *c, uint8_t type, const void *p,
		    size_t len)
{
	uint8_t hdr[REPL_FRAME_HDR] = {type};
	for (int i = 0; i < 8; i++)
		hdr[1 + i] = (uint8_t)((uint64_t)len >> (8 * i));
	int e = xfer(c, true, hdr, sizeof(hdr));
	return e ? e : xfer(c, true, (uint8_t *)p, len);
}

int repl_frame_recv(struct repl_conn *c, uint8_t *type, struct wbuf *payload,
		    uint64_t max)
{
	uint8_t hdr[REPL_FRAME_HDR];
	uint64_t len;
	wbuf_reset(payload);
	int e = xfer(c, false, hdr, sizeof(hdr));
	if (!e)
		e = repl_frame_parse(hdr, type, &len, max);
	if (e)
		return e;
	if (len > payload->cap) {
		uint8_t *p = realloc(payload->p, len);
		if (!p)
			return -ENOMEM;
		payload->p = p;
		payload->cap = len;
	}
	if ((e = xfer(c, false, payload->p, len)))
		return e;
	payload->len = len;
	return 0;
}

int repl_frame_send_error(struct repl_conn *c, int e, const char *line)
{
	uint8_t buf[4 + 400];
	size_t n = strnlen(line, sizeof(buf) - 4);
	for (int i = 0; i < 4; i++)
		buf[i] = (uint8_t)((uint32_t)e >> (8 * i));
	memcpy(buf + 4, line, n);
	return repl_frame_send(c, RF_ERROR, buf, 4 + n);
}

int repl_frame_error_of(const struct wbuf *payload, char *err, size_t errlen)
{
	struct rbuf in = {payload->p, payload->len, 0, false};
	uint32_t e = rbuf_u32(&in);
	char line[401];
	size_t n = in.bad ? 0 : payload->len - 4;
	n = n < sizeof(line) - 1 ? n : sizeof(line) - 1;
	for (size_t i = 0; i < n; i++) {
		char ch = (char)payload->p[4 + i];
		line[i] = ch >= 0x20 && ch < 0x7f ? ch : '?';
	}
	line[n] = '\0';
	snprintf(err, errlen, "%s", n ? line : "an error");
	return e > 0 && e < 4096 ? -(int)e : -EPROTO;
}

/* The file's bytes, refused unless it is a regular file only its owner
 * (and group) may read and write. */
static int read_secret(int fd, const char *path, struct repl_secret *s,
		       char *err, size_t errlen)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "secret file %s is not a regular file",
			 path);
		return -EINVAL;
	}
	if (st.st_mode & (S_IROTH | S_IWOTH)) {
		snprintf(err, errlen,
			 "secret file %s is readable or writable by others "
			 "(chmod o-rw it)",
			 path);
		return -EPERM;
	}
	uint8_t buf[REPL_SECRET_MAX + 1];
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n < 0) {
		snprintf(err, errlen, "secret file %s: %s", path,
			 strerror(errno));
		return -errno;
	}
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	if (n == 0 || n > (ssize_t)REPL_SECRET_MAX) {
		snprintf(err, errlen, "secret file %s is %s", path,
			 n ? "over 1024 bytes" : "empty");
		return -EINVAL;
	}
	memcpy(s->key, buf, (size_t)n);
	s->len = (size_t)n;
	OPENSSL_cleanse(buf, sizeof(buf));
	return 0;
}

int repl_secret_load(const char *path, struct repl_secret *s, char *err,
		     size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		int e = -errno;
		snprintf(err, errlen, "secret file %s: %s", path,
			 strerror(errno));
		return e;
	}
	int e = read_secret(fd, path, s, err, errlen);
	close(fd);
	return e;
}

void repl_hs_mac(const struct repl_secret *s, bool replica,
		 const uint8_t ns[REPL_NONCE_LEN],
		 const uint8_t nc[REPL_NONCE_LEN], uint8_t out[REPL_MAC_LEN])
{
	const char *ctx = replica ? ctx_replica : ctx_source;
	size_t clen = strlen(ctx);
	uint8_t msg[sizeof(ctx_replica) + 2 * REPL_NONCE_LEN];
	memcpy(msg, ctx, clen);
	memcpy(msg + clen, ns, REPL_NONCE_LEN);
	memcpy(msg + clen + REPL_NONCE_LEN, nc, REPL_NONCE_LEN);
	unsigned len = REPL_MAC_LEN;
	if (!HMAC(EVP_sha256(), s->key, (int)s->len, msg,
		  clen + 2 * REPL_NONCE_LEN, out, &len))
		memset(out, 0, REPL_MAC_LEN); /* matches no peer's */
}

/* The peer's next handshake frame, which must be @want of exactly @len
 * bytes; an ERROR frame gives its line. */
static int hs_recv(struct repl_conn *c, uint8_t want, size_t len,
		   struct wbuf *in, char *err, size_t errlen)
{
	uint8_t type;
	int e = repl_frame_recv(c, &type, in, REPL_HS_FRAME_MAX);
	if (!e && type == RF_ERROR)
		return repl_frame_error_of(in, err, errlen);
	if (!e && (type != want || in->len != len))
		e = -EPROTO;
	if (e == -EPROTO)
		snprintf(err, errlen,
			 "handshake: the peer does not speak arraysim "
			 "replication");
	else if (e)
		snprintf(err, errlen, "handshake: %s", strerror(-e));
	return e;
}

int repl_hs_replica(struct repl_conn *c, const struct repl_secret *s, char *err,
		    size_t errlen)
{
	uint8_t hello[REPL_MAGIC_LEN + REPL_NONCE_LEN], *ns = hello + 8;
	uint8_t mac[REPL_MAC_LEN];
	struct wbuf in = {0};
	memcpy(hello, REPL_MAGIC, REPL_MAGIC_LEN);
	if (RAND_bytes(ns, REPL_NONCE_LEN) != 1) {
		snprintf(err, errlen, "handshake: no random nonce");
		return -EIO;
	}
	int e = repl_frame_send(c, RF_HELLO, hello, sizeof(hello));
	if (e)
		snprintf(err, errlen, "handshake: %s", strerror(-e));
	if (!e)
		e = hs_recv(c, RF_AUTH, REPL_NONCE_LEN + REPL_MAC_LEN, &in, err,
			    errlen);
	if (!e) {
		repl_hs_mac(s, false, ns, in.p, mac);
		if (CRYPTO_memcmp(mac, in.p + REPL_NONCE_LEN, REPL_MAC_LEN)) {
			snprintf(err, errlen,
				 "handshake: the source does not hold the "
				 "shared secret: refused");
			repl_frame_send_error(c, EACCES, err);
			e = -EACCES;
		}
	}
	if (!e) {
		repl_hs_mac(s, true, ns, in.p, mac);
		if ((e = repl_frame_send(c, RF_AUTH_OK, mac, REPL_MAC_LEN)))
			snprintf(err, errlen, "handshake: %s", strerror(-e));
	}
	wbuf_free(&in);
	return e;
}

int repl_hs_source(struct repl_conn *c, const struct repl_secret *s, char *err,
		   size_t errlen)
{
	uint8_t ns[REPL_NONCE_LEN], auth[REPL_NONCE_LEN + REPL_MAC_LEN];
	uint8_t mac[REPL_MAC_LEN];
	struct wbuf in = {0};
	int e = hs_recv(c, RF_HELLO, REPL_MAGIC_LEN + REPL_NONCE_LEN, &in, err,
			errlen);
	if (!e && memcmp(in.p, REPL_MAGIC, REPL_MAGIC_LEN)) {
		snprintf(err, errlen,
			 "handshake: the peer is not an arraysim "
			 "replica");
		e = -EPROTO;
	}
	if (!e && RAND_bytes(auth, REPL_NONCE_LEN) != 1) {
		snprintf(err, errlen, "handshake: no random nonce");
		e = -EIO;
	}
	if (!e) {
		memcpy(ns, in.p + REPL_MAGIC_LEN, REPL_NONCE_LEN);
		repl_hs_mac(s, false, ns, auth, auth + REPL_NONCE_LEN);
		if ((e = repl_frame_send(c, RF_AUTH, auth, sizeof(auth))))
			snprintf(err, errlen, "handshake: %s", strerror(-e));
	}
	if (!e)
		e = hs_recv(c, RF_AUTH_OK, REPL_MAC_LEN, &in, err, errlen);
	if (!e) {
		repl_hs_mac(s, true, ns, auth, mac);
		if (CRYPTO_memcmp(mac, in.p, REPL_MAC_LEN)) {
			snprintf(err, errlen,
				 "handshake: the replica does not hold the "
				 "shared secret: nothing shipped to it");
			e = -EACCES;
		}
	}
	wbuf_free(&in);
	return e;
}
