/* dedupe-scan's walker: lists the paths and queues their files.
 *
 * One thread walks while the workers read, so on a cached tree the walk
 * costs the scan little. Files are opened here, by name relative to their
 * directory's descriptor, so no path is built per file; paths are made
 * only for directories (they name the "where" groups) and for errors.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/prng.h"
#include "dedupe/scan_i.h"

#define EXT_HASH 4096
#define EXT_MAX 12 /* longer suffixes are not extensions */

struct dir_todo {
	struct group *g;
	dev_t dev;   /* the file system this walk stays on */
	bool follow; /* a PATH given by the user, maybe through a link */
};

struct dir_stack {
	struct dir_todo *d;
	size_t n, cap;
};

static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 64;
	void *q = realloc(*p, c * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static struct group *group_new(struct group_list *l, const char *name,
			       size_t len)
{
	if (grow((void **)&l->g, &l->cap, l->n, sizeof(*l->g)))
		return NULL;
	struct group *g = calloc(1, sizeof(*g));
	if (!g || !(g->name = strndup(name, len))) {
		free(g);
		return NULL;
	}
	l->g[l->n++] = g;
	return g;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* "tar.gz" -> "gz": the suffix after the last dot of a name that does not
 * start with it, lower-cased; "(none)" otherwise. */
static void ext_of(const char *name, char out[EXT_MAX + 1])
{
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const char *dot = strrchr(base, '.');
	size_t len = dot && dot != base ? strlen(dot + 1) : 0;
	if (!len || len > EXT_MAX) {
		strcpy(out, "(none)");
		return;
	}
	for (size_t i = 0; i <= len; i++) {
		char c = dot[1 + i];
		out[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
	}
}

static struct group *ext_group(struct scan *s, const char *name)
{
	char ext[EXT_MAX + 1];
	ext_of(name, ext);
	struct group **head = &s->ext_hash[fnv1a(ext) % EXT_HASH];
	for (struct group *g = *head; g; g = g->next)
		if (!strcmp(g->name, ext))
			return g;
	struct group *g = group_new(&s->exts, ext, strlen(ext));
	if (g) {
		g->next = *head;
		*head = g;
	}
	return g;
}

/* Hard links are counted once: the first name found reads the data. */
static int seen_inode(struct inode_set *set, dev_t dev, ino_t ino)
{
	if ((set->used + 1) * 2 > set->cap) {
		struct inode_set n = {0};
		n.cap = set->cap ? set->cap * 2 : 1024;
		n.key = calloc(n.cap * 2, sizeof(uint64_t));
		if (!n.key)
			return -ENOMEM;
		for (size_t i = 0; i < set->cap; i++)
			if (set->key[2 * i] || set->key[2 * i + 1])
				seen_inode(&n, (dev_t)set->key[2 * i],
					   (ino_t)set->key[2 * i + 1]);
		free(set->key);
		*set = n;
	}
	size_t i = (size_t)((ino * PRNG_GOLDEN) ^ dev) & (set->cap - 1);
	for (;; i = (i + 1) & (set->cap - 1)) {
		uint64_t *k = &set->key[2 * i];
		if (k[0] == (uint64_t)dev && k[1] == (uint64_t)ino)
			return 1;
		if (!k[0] && !k[1])
			break;
	}
	set->key[2 * i] = (uint64_t)dev;
	set->key[2 * i + 1] = (uint64_t)ino;
	set->used++;
	return 0;
}

static int queue_file(struct scan *s, int fd, const struct stat *st,
		      struct group *dir, const char *name, bool is_path)
{
	struct sfile *f = calloc(1, sizeof(*f));
	if (!f || !(f->name = strdup(name)) || !(f->ext = ext_group(s, name))) {
		if (f)
			free(f->name);
		free(f);
		close(fd);
		return -ENOMEM;
	}
	f->fd = fd;
	f->size = (uint64_t)st->st_size;
	f->sparse = (uint64_t)st->st_blocks * 512 < f->size;
	f->dir = dir;
	f->name_is_path = is_path;
	uint64_t n = (f->size + s->unit - 1) / s->unit;
	atomic_store(&f->units, (int)n);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t end = (i + 1) * s->unit;
		struct unit u = {f, i * s->unit, end < f->size ? end : f->size};
		scan_queue_push(&s->q, &u);
	}
	return 0;
}

/* Open @name (in @dfd) read-only without following a link, without
 * blocking on a FIFO swapped in since the listing, and without touching
 * atime where we may. */
static int open_file(int dfd, const char *name)
{
	int base = O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
	int fd = openat(dfd, name, base | O_NOATIME), noatime = O_NOATIME;
	if (fd < 0 && errno == EPERM) {
		fd = openat(dfd, name, base);
		noatime = 0;
	}
	/* io_uring honours O_NONBLOCK on regular files with -EAGAIN. */
	if (fd >= 0)
		fcntl(fd, F_SETFL, noatime);
	return fd;
}

static int add_file(struct scan *s, struct group *dir, int dfd,
		    const char *name, dev_t dev)
{
	struct scan_result *r = s->res;
	int fd = open_file(dfd, name);
	if (fd < 0) {
		scan_unreadable(s, dfd == AT_FDCWD ? NULL : dir->name, name);
		return 0;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		r->special++;
		return 0;
	}
	int seen = 0;
	if (st.st_dev != dev && !s->cfg->cross_mounts)
		seen = 2;
	else if (st.st_nlink > 1 || s->cfg->npaths > 1) /* PATHs may overlap */
		seen = seen_inode(&s->links, st.st_dev, st.st_ino);
	if (seen) {
		close(fd);
		if (seen < 0)
			return seen;
		r->other_fs += seen == 2;
		r->hard_links += seen == 1;
		return 0;
	}
	r->files++;
	r->logical_bytes += (uint64_t)st.st_size;
	atomic_fetch_add(&s->files_found, 1);
	atomic_fetch_add(&s->bytes_found, (uint64_t)st.st_size);
	if (!st.st_size) {
		close(fd);
		return 0;
	}
	return queue_file(s, fd, &st, dir, name, dfd == AT_FDCWD);
}

static int push_dir(struct scan *s, struct dir_stack *st, const char *parent,
		    const char *name, dev_t dev)
{
	char *path;
	int n =
	    name ? asprintf(&path, "%s%s%s", parent,
			    parent[strlen(parent) - 1] == '/' ? "" : "/", name)
		 : asprintf(&path, "%s", parent);
	if (n < 0)
		return -ENOMEM;
	if (grow((void **)&st->d, &st->cap, st->n, sizeof(*st->d))) {
		free(path);
		return -ENOMEM;
	}
	struct group *g = group_new(&s->dirs, path, (size_t)n);
	free(path);
	if (!g)
		return -ENOMEM;
	/* No @name: @parent is a PATH as the user gave it. */
	st->d[st->n++] = (struct dir_todo){g, dev, !name};
	return 0;
}

static int walk_entry(struct scan *s, struct dir_stack *stk,
		      const struct dir_todo *d, int dfd,
		      const struct dirent *de)
{
	struct scan_result *r = s->res;
	unsigned char t = de->d_type;
	struct stat st;
	if (t == DT_UNKNOWN || t == DT_DIR) {
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			scan_unreadable(s, d->g->name, de->d_name);
			return 0;
		}
		t = IFTODT(st.st_mode);
	}
	switch (t) {
	case DT_DIR:
		if (st.st_dev != d->dev && !s->cfg->cross_mounts) {
			r->other_fs++;
			return 0;
		}
		return push_dir(s, stk, d->g->name, de->d_name, d->dev);
	case DT_REG:
		return add_file(s, d->g, dfd, de->d_name, d->dev);
	case DT_LNK:
		r->symlinks++;
		return 0;
	default:
		r->special++;
		return 0;
	}
}

static int walk_dir(struct scan *s, struct dir_stack *stk, struct dir_todo d)
{
	int dfd = open(d.g->name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
				      (d.follow ? 0 : O_NOFOLLOW));
	DIR *dir = dfd < 0 ? NULL : fdopendir(dfd);
	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		scan_unreadable(s, d.g->name, NULL);
		return 0;
	}
	s->res->dirs++;
	int r = 0;
	struct dirent *de;
	while (!r && (de = readdir(dir))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = walk_entry(s, stk, &d, dfd, de);
	}
	closedir(dir);
	return r;
}

/* A path named on the command line: followed if a link, as find -H. */
static int walk_root(struct scan *s, struct dir_stack *stk, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		scan_unreadable(s, NULL, path);
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		return push_dir(s, stk, path, NULL, st.st_dev);
	if (!S_ISREG(st.st_mode)) {
		s->res->special++;
		return 0;
	}
	const char *slash = strrchr(path, '/');
	struct group *g =
	    slash ? group_new(&s->dirs, path,
			      slash == path ? 1 : (size_t)(slash - path))
		  : group_new(&s->dirs, ".", 1);
	return g ? add_file(s, g, AT_FDCWD, path, st.st_dev) : -ENOMEM;
}

int scan_walk(struct scan *s)
{
	struct dir_stack stk = {0};
	int r = 0;
	s->ext_hash = calloc(EXT_HASH, sizeof(*s->ext_hash));
	if (!s->ext_hash)
		return -ENOMEM;
	for (int i = 0; !r && i < s->cfg->npaths; i++) {
		r = walk_root(s, &stk, s->cfg->paths[i]);
		while (!r && stk.n)
			r = walk_dir(s, &stk, stk.d[--stk.n]);
	}
	free(stk.d);
	return r;
}
