/* The generated tree of tests/dedupe/scan_gen.h. */
#include "scan_gen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/prng.h"

#define MAX_M 8 /* atoms in the largest block checked (32 KiB) */

struct atom {
	uint32_t id; /* 0: zeros */
	uint32_t len;
	bool hole; /* zeros left unwritten */
};

struct gfile {
	char name[64];
	struct atom *a;
	size_t n, cap;
};

struct gen {
	struct gfile f[64];
	int n;
	uint64_t rng;
};

static void fill_atom(uint32_t id, uint8_t *buf, uint32_t len)
{
	uint64_t s = id * PRNG_GOLDEN + 1;
	memset(buf, 0, len);
	for (uint32_t i = 0; id && i < len; i++)
		buf[i] = (uint8_t)(prng_next(&s) % 255 + 1);
}

static struct gfile *gf_new(struct gen *g, const char *name)
{
	struct gfile *f = &g->f[g->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	return f;
}

static void gf_add(struct gfile *f, uint32_t id, uint32_t len, bool hole)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 16;
		f->a = realloc(f->a, f->cap * sizeof(*f->a));
		if (!f->a)
			abort();
	}
	f->a[f->n++] = (struct atom){id, len, hole};
}

static void gf_ids(struct gfile *f, const uint32_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		gf_add(f, ids[i], GEN_ATOM, false);
}

static uint64_t gf_size(const struct gfile *f)
{
	return f->n ? (f->n - 1) * (uint64_t)GEN_ATOM + f->a[f->n - 1].len : 0;
}

static int gf_write(const char *root, const struct gfile *f)
{
	char path[4096];
	uint8_t buf[GEN_ATOM];
	snprintf(path, sizeof(path), "%s/%s", root, f->name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	int r = 0;
	for (size_t i = 0; !r && i < f->n; i++) {
		if (f->a[i].hole)
			continue;
		fill_atom(f->a[i].id, buf, f->a[i].len);
		if (pwrite(fd, buf, f->a[i].len, (off_t)(i * GEN_ATOM)) !=
		    (ssize_t)f->a[i].len)
			r = -EIO;
	}
	if (!r && ftruncate(fd, (off_t)gf_size(f)) < 0)
		r = -errno;
	close(fd);
	return r;
}

/* The recipe: every case the scan has to get right, by name. */
static void recipe(struct gen *g)
{
	static const uint32_t a[] = {1, 2, 3, 1, 2, 3, 0, 0, 4, 5};
	struct gfile *f = gf_new(g, "a.txt"); /* repeats, zeros, a tail */
	gf_ids(f, a, 10);
	gf_add(f, 6, 100, false);
	f = gf_new(g, "sub/b.txt"); /* a whole duplicate file */
	gf_ids(f, a, 10);
	gf_add(f, 6, 100, false);
	f = gf_new(g, "sparse.img"); /* holes, data between them */
	for (uint32_t i = 0; i < 300; i++)
		gf_add(f,
		       i == 0 || i == 299 ? 7
		       : i == 150	  ? 8
					  : 0,
		       GEN_ATOM, true);
	f->a[0].hole = f->a[150].hole = f->a[299].hole = false;
	gf_add(f, 9, 1, false);
	f = gf_new(g, "short.bin"); /* smaller than any block */
	gf_add(f, 10, 10, false);
	gf_new(g, "empty");	    /* no blocks at all */
	f = gf_new(g, "zeros.bin"); /* written zeros, a zero tail */
	for (int i = 0; i < 8; i++)
		gf_add(f, 0, GEN_ATOM, false);
	gf_add(f, 0, 500, false);
	f = gf_new(g, "big.bin"); /* several chunks and units */
	for (uint32_t i = 0; i < 700; i++)
		gf_add(f, i % 37 == 5 ? 0 : 11 + i % 20, GEN_ATOM, i % 74 == 5);
	gf_add(f, 12, 4000, false);
	for (int i = 0; i < 30; i++) { /* a random mix of all that */
		char name[32];
		snprintf(name, sizeof(name), "rand/f%02d.dat", i);
		f = gf_new(g, name);
		uint64_t n = prng_next(&g->rng) % 40;
		for (uint64_t k = 0; k < n; k++) {
			uint32_t id = (uint32_t)(prng_next(&g->rng) % 44);
			gf_add(f, id < 4 ? 0 : id, GEN_ATOM, id < 2);
		}
		if (prng_next(&g->rng) % 2)
			gf_add(
			    f, (uint32_t)(1 + prng_next(&g->rng) % 40),
			    (uint32_t)(1 + prng_next(&g->rng) % (GEN_ATOM - 1)),
			    false);
	}
}

/* ---- expectations, from tuples of atoms ------------------------------ */

struct key {
	uint32_t v[2 * MAX_M];
};

static int key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct key));
}

static bool block_key(const struct gfile *f, uint64_t j, uint32_t m,
		      struct key *k)
{
	bool zero = true;
	memset(k, 0, sizeof(*k));
	for (uint32_t t = 0; t < m; t++) {
		uint64_t i = j * m + t;
		uint32_t id = i < f->n ? f->a[i].id : 0;
		k->v[2 * t] = id;
		k->v[2 * t + 1] = id ? f->a[i].len : GEN_ATOM;
		zero &= id == 0;
	}
	return zero;
}

static int expect(const struct gen *g, int nfiles, uint32_t bs,
		  struct gen_expect *e)
{
	uint32_t m = bs / GEN_ATOM;
	size_t cap = 0, n = 0;
	for (int i = 0; i < nfiles; i++)
		cap += (gf_size(&g->f[i]) + bs - 1) / bs;
	struct key *keys = calloc(cap ? cap : 1, sizeof(*keys));
	if (!keys || m > MAX_M || m * GEN_ATOM != bs) {
		free(keys);
		return -EINVAL;
	}
	memset(e, 0, sizeof(*e));
	e->block_size = bs;
	for (int i = 0; i < nfiles; i++) {
		const struct gfile *f = &g->f[i];
		uint64_t nb = (gf_size(f) + bs - 1) / bs;
		e->files++;
		e->logical_bytes += gf_size(f);
		e->blocks += nb;
		for (uint64_t j = 0; j < nb; j++)
			if (block_key(f, j, m, &keys[n]))
				e->zero_blocks++;
			else
				n++;
	}
	e->data_blocks = n;
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (size_t i = 0, run; i < n; i += run) {
		for (run = 1; i + run < n && !key_cmp(&keys[i], &keys[i + run]);
		     run++)
			;
		e->unique_blocks++;
		unsigned row = 63u - (unsigned)__builtin_clzll(run);
		e->hist_blocks[row]++;
		e->hist_refs[row] += run;
	}
	free(keys);
	return 0;
}

/* ---- the tree --------------------------------------------------------- */

static int mkdirs(const char *root)
{
	static const char *const dirs[] = {"sub", "rand"};
	char path[4096];
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		if (mkdir(path, 0755) < 0)
			return -errno;
	}
	return chmod(root, 0755) < 0 ? -errno : 0;
}

/* What the scan must skip or list: a hard link, a symlink, a FIFO and an
 * unreadable file; none of it is in the expectations. */
static int extras(const char *root, const struct gen_opts *o, struct gen *g)
{
	char from[4096], to[4096];
	snprintf(from, sizeof(from), "%s/a.txt", root);
	snprintf(to, sizeof(to), "%s/sub/a-link.txt", root);
	if (link(from, to) < 0)
		return -errno;
	snprintf(to, sizeof(to), "%s/symlink", root);
	if (symlink("a.txt", to) < 0)
		return -errno;
	snprintf(to, sizeof(to), "%s/fifo", root);
	if (o->special && mkfifo(to, 0644) < 0)
		return -errno;
	if (!o->unreadable)
		return 0;
	struct gfile *f = gf_new(g, GEN_UNREADABLE);
	gf_add(f, 41, GEN_ATOM, false);
	gf_add(f, 42, 77, false);
	int r = gf_write(root, f);
	snprintf(to, sizeof(to), "%s/%s", root, GEN_UNREADABLE);
	return r ? r : chmod(to, 0) < 0 ? -errno : 0;
}

int gen_tree(const char *root, const struct gen_opts *o, const uint32_t *bs,
	     int nbs, struct gen_expect *exp)
{
	struct gen *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->rng = 0x853c49e6748fea9bull;
	recipe(g);
	int nfiles = g->n, r = mkdirs(root);
	for (int i = 0; !r && i < nfiles; i++)
		r = gf_write(root, &g->f[i]);
	if (!r)
		r = extras(root, o, g);
	for (int i = 0; !r && i < nbs; i++)
		r = expect(g, nfiles, bs[i], &exp[i]);
	for (int i = 0; i < g->n; i++)
		free(g->f[i].a);
	free(g);
	return r;
}
