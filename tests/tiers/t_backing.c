/* Test devices behind struct backing_ops: see t_backing.h. */
#include "t_backing.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- t_mem: blocks in an array sorted by pblk ---------------------------- */

struct t_block {
	uint64_t pblk;
	unsigned char data[BLOCK_BYTES];
};

struct t_mem {
	struct t_block *b;
	size_t n, cap;
	unsigned calls[3];
};

struct t_mem *t_mem_new(void)
{
	return calloc(1, sizeof(struct t_mem));
}

void t_mem_free(struct t_mem *m)
{
	if (!m)
		return;
	free(m->b);
	free(m);
}

/* The index of @pblk, or where it would go (*found false). */
static size_t t_mem_find(const struct t_mem *m, uint64_t pblk, bool *found)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->b[mid].pblk < pblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < m->n && m->b[lo].pblk == pblk;
	return lo;
}

static int t_mem_check(const struct backing_io *ios, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (ios[i].pblk == 0)
			return -EINVAL;
	return 0;
}

static int t_mem_read(void *ctx, const struct backing_io *ios, unsigned n)
{
	struct t_mem *m = ctx;
	int r = t_mem_check(ios, n);

	m->calls[0]++;
	for (unsigned i = 0; !r && i < n; i++) {
		bool found;
		size_t at = t_mem_find(m, ios[i].pblk, &found);

		if (found)
			memcpy(ios[i].buf, m->b[at].data, BLOCK_BYTES);
		else
			memset(ios[i].buf, 0, BLOCK_BYTES);
	}
	return r;
}

static int t_mem_write(void *ctx, const struct backing_io *ios, unsigned n)
{
	struct t_mem *m = ctx;
	int r = t_mem_check(ios, n);

	m->calls[1]++;
	for (unsigned i = 0; !r && i < n; i++) {
		bool found;
		size_t at = t_mem_find(m, ios[i].pblk, &found);

		if (!found) {
			if (m->n == m->cap) {
				size_t cap = m->cap ? 2 * m->cap : 16;
				struct t_block *b =
				    realloc(m->b, cap * sizeof(*b));

				if (!b)
					return -ENOMEM;
				m->b = b;
				m->cap = cap;
			}
			memmove(&m->b[at + 1], &m->b[at],
				(m->n - at) * sizeof(*m->b));
			m->b[at].pblk = ios[i].pblk;
			m->n++;
		}
		memcpy(m->b[at].data, ios[i].buf, BLOCK_BYTES);
	}
	return r;
}

static int t_mem_sync(void *ctx)
{
	struct t_mem *m = ctx;

	m->calls[2]++;
	return 0; /* memory is as durable as this store gets */
}

static const struct backing_ops t_mem_ops = {
    .read = t_mem_read,
    .write = t_mem_write,
    .sync = t_mem_sync,
};

struct backing_dev t_mem_dev(struct t_mem *m)
{
	return (struct backing_dev){.ops = &t_mem_ops, .ctx = m};
}

unsigned t_mem_calls(const struct t_mem *m, unsigned kind)
{
	return m->calls[kind];
}

/* ---- t_faulty: fail the Nth call ----------------------------------------- */

/* Whether this call fails (counted). */
static bool t_faulty_fails(struct t_faulty *f)
{
	unsigned call = ++f->calls;

	if (!f->nth || call < f->nth || (call > f->nth && !f->persist))
		return false;
	f->failed++;
	return true;
}

static int t_faulty_read(void *ctx, const struct backing_io *ios, unsigned n)
{
	struct t_faulty *f = ctx;

	if (t_faulty_fails(f))
		return f->err;
	return f->lower.ops->read(f->lower.ctx, ios, n);
}

static int t_faulty_write(void *ctx, const struct backing_io *ios, unsigned n)
{
	struct t_faulty *f = ctx;

	if (t_faulty_fails(f))
		return f->err;
	return f->lower.ops->write(f->lower.ctx, ios, n);
}

static int t_faulty_sync(void *ctx)
{
	struct t_faulty *f = ctx;

	if (t_faulty_fails(f))
		return f->err;
	return f->lower.ops->sync(f->lower.ctx);
}

static const struct backing_ops t_faulty_ops = {
    .read = t_faulty_read,
    .write = t_faulty_write,
    .sync = t_faulty_sync,
};

struct backing_dev t_faulty_dev(struct t_faulty *f)
{
	f->calls = f->failed = 0;
	return (struct backing_dev){.ops = &t_faulty_ops, .ctx = f};
}
