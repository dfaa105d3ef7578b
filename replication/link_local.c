/* A replica on this host, by call (replication/link.h). */
#include "replication/link.h"

#include <string.h>

static int l_fps(void *ctx, const struct wbuf *fps, struct wbuf *verdict,
		 struct replica_tally *t, char *err, size_t errlen)
{
	return replica_fps(ctx, fps, verdict, t, err, errlen);
}

static int l_blocks(void *ctx, const struct wbuf *blocks, char *err,
		    size_t errlen)
{
	return replica_blocks(ctx, blocks, err, errlen);
}

static int l_commit(void *ctx, const struct wbuf *meta, char *err,
		    size_t errlen)
{
	return replica_commit(ctx, meta, err, errlen);
}

static uint64_t l_overhead(void *ctx)
{
	(void)ctx;
	return 0;
}

static void l_close(void *ctx)
{
	replica_close(ctx);
}

static const struct repl_link_ops local_ops = {
    l_fps, l_blocks, l_commit, l_overhead, l_close, NULL, NULL,
};

bool repl_link_is_tcp(const char *dest)
{
	return strchr(dest, ':') && !strchr(dest, '/');
}

int repl_link_local(const char *dir, struct repl_link *out, char *err,
		    size_t errlen)
{
	struct replica *rp;
	int e = replica_open(dir, &rp, err, errlen);
	if (!e)
		*out = (struct repl_link){&local_ops, rp};
	return e;
}

void repl_link_close(struct repl_link *l)
{
	if (l->ops)
		l->ops->close(l->ctx);
	*l = (struct repl_link){0};
}

void repl_link_cancel(struct repl_link *l)
{
	if (l->ops && l->ops->cancel)
		l->ops->cancel(l->ctx);
}

void repl_link_drop(struct repl_link *l)
{
	if (l->ops && l->ops->drop)
		l->ops->drop(l->ctx);
}
