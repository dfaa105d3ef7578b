/* The Prometheus endpoint (`arraysim mount --metrics [ADDR:]PORT`): GET
 * /metrics answers with common/metrics.c's exposition, built on each
 * scrape from the live counters (atomics, read without locks) and the
 * gauges of the metadata store, and the array model's series from one
 * snapshot of it (tiers/array_snapshot.h). libmicrohttpd serves from one
 * polling thread of its own, so scrapes never touch a FUSE worker or the I/O
 * path. Bound to 127.0.0.1 unless an address is given. */
#include "fs/metrics_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <stdlib.h>
#include <string.h>

#include "fs/metrics_render.h"

struct metrics_http {
	struct MHD_Daemon *mhd;
	struct fs *fs;
};

int metrics_parse_addr(const char *spec, struct sockaddr_in *out, char *err,
		       size_t errlen)
{
	char host[64] = "127.0.0.1";
	const char *colon = strrchr(spec, ':'), *port = spec;
	if (colon) {
		size_t n = (size_t)(colon - spec);
		if (n >= sizeof(host))
			n = sizeof(host) - 1;
		memcpy(host, spec, n);
		host[n] = '\0';
		port = colon + 1;
	}
	char *end;
	errno = 0;
	unsigned long p = strtoul(port, &end, 10);
	memset(out, 0, sizeof(*out));
	out->sin_family = AF_INET;
	if (!*port || *end || errno || p == 0 || p > 65535 ||
	    inet_pton(AF_INET, host, &out->sin_addr) != 1) {
		snprintf(err, errlen,
			 "--metrics: '%.64s' is not [IPv4-ADDRESS:]PORT", spec);
		return -EINVAL;
	}
	out->sin_port = htons((uint16_t)p);
	return 0;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status,
			     const char *type, char *body, size_t len)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	enum MHD_Result ok = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result serve(void *cls, struct MHD_Connection *c,
			     const char *url, const char *method,
			     const char *version, const char *upload,
			     size_t *upload_len, void **req)
{
	struct metrics_http *m = cls;
	if (strcmp(method, "GET"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			     strdup("GET only\n"), 9);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, "text/plain",
			     strdup("see /metrics\n"), 13);
	char *body = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&body, &len);
	if (!out)
		return MHD_NO;
	/* The array's picture is taken here, on the server's thread. */
	static struct array_snapshot as; /* one polling thread: not shared */
	metrics_render(m->fs, &as, out);
	fclose(out);
	return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4", body, len);
}

int metrics_http_start(struct fs *fs, const struct sockaddr_in *addr,
		       struct metrics_http **out, char *err, size_t errlen)
{
	struct metrics_http *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->fs = fs;
	m->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL,
				  NULL, serve, m, MHD_OPTION_SOCK_ADDR, addr,
				  MHD_OPTION_END);
	if (!m->mhd) {
		char a[32];
		inet_ntop(AF_INET, &addr->sin_addr, a, sizeof(a));
		snprintf(err, errlen,
			 "--metrics: cannot serve on %s:%u (in use, or not "
			 "an address of this host)",
			 a, ntohs(addr->sin_port));
		free(m);
		return -EADDRINUSE;
	}
	*out = m;
	return 0;
}

void metrics_http_stop(struct metrics_http *m)
{
	if (!m)
		return;
	MHD_stop_daemon(m->mhd);
	free(m);
}
