/* dedupe-scan's engine: the queue, the reading workers, the results.
 *
 * A worker keeps up to QD chunk reads in flight through its own io_uring
 * (read-ahead within a file and across the files it takes next), and
 * fingerprints whichever completes first: blocks are independent, so order
 * does not matter, only that each is counted once. If io_uring cannot be
 * set up the worker reads with pread, one chunk at a time.
 */
#include "dedupe/scan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>
#include <zstd.h>

#include "common/clock.h"
#include "common/ring_setup.h"
#include "dedupe/fingerprint.h"
#include "dedupe/scan_i.h"

/* 8 reads of 128 KiB in flight a thread: 1 MiB of read-ahead, and a chunk
 * still in L2 when it is hashed after the kernel copied it in (1 MiB
 * chunks cost ~5-10% more CPU on cached data here). */
#define QD 8
#define CHUNK (128u << 10)
#define DEFAULT_UNIT (64ull << 20)

struct wunit {
	struct unit u;
	uint64_t pos; /* next byte to submit */
	int inflight;
	uint64_t next_data, data_end; /* SEEK_DATA window of a sparse file */
};

struct slot {
	struct wunit *u;
	uint64_t off;
	uint32_t len, got;
	uint8_t *buf;
};

struct worker {
	struct scan *s;
	pthread_t tid;
	struct io_uring ring;
	bool ring_ok;
	struct slot slot[QD];
	struct slot *free_slot[QD];
	int nfree, inflight;
	struct wunit *cur;
	uint64_t blocks[SCAN_MAX_SIZES], zero[SCAN_MAX_SIZES];
	uint8_t *cbuf; /* compression output */
	ZSTD_CCtx *zctx;
	int err;
};

static void file_failed(struct scan *s, struct sfile *f)
{
	if (atomic_exchange(&f->failed, true))
		return;
	if (f->name_is_path)
		scan_unreadable(s, NULL, f->name);
	else
		scan_unreadable(s, f->dir->name, f->name);
}

/* ---- fingerprinting a chunk ------------------------------------------ */

static uint32_t compressed_size(struct worker *w, const uint8_t *p, uint32_t bs)
{
	const struct dedupe_compression c = {
	    (enum dedupe_compress)w->s->cfg->compress, w->s->cfg->keep};
	return dedupe_compressed_size(&c, p, bs, w->cbuf, w->zctx);
}

/* One data block of @bs at @p into index @i: enum scan_add or -errno. */
static int index_block(struct worker *w, int i, const uint8_t *p, uint32_t bs)
{
	struct scan *s = w->s;
	uint8_t sha1[FINGERPRINT_SHA1_LEN];
	int r = fingerprint_sha1(p, bs, sha1);
	if (!r)
		r = scan_index_add(s->ix[i], sha1);
	if (r == SCAN_ADD_NEW && s->cfg->compress)
		scan_index_set_csize(s->ix[i], sha1, compressed_size(w, p, bs));
	return r;
}

/* Blocks of @bs in @buf[0, @len) (zero-padded to a whole block). */
static void fingerprint_size(struct worker *w, int i, const uint8_t *buf,
			     uint32_t len, struct sfile *f)
{
	uint32_t bs = w->s->cfg->block_size[i];
	uint64_t nb = (len + bs - 1) / bs, zeros = 0, dup = 0;
	for (uint64_t b = 0; b < nb; b++) {
		const uint8_t *p = buf + b * bs;
		if (fingerprint_is_zero_len(p, bs)) {
			zeros++;
			continue;
		}
		int r = index_block(w, i, p, bs);
		if (r < 0)
			w->err = r;
		dup += r == SCAN_ADD_DUP;
	}
	w->blocks[i] += nb;
	w->zero[i] += zeros;
	atomic_fetch_add_explicit(&f->dir->blocks[i], nb - zeros,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&f->ext->blocks[i], nb - zeros,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&f->dir->dup[i], dup, memory_order_relaxed);
	atomic_fetch_add_explicit(&f->ext->dup[i], dup, memory_order_relaxed);
}

static void fingerprint_chunk(struct worker *w, struct slot *sl)
{
	struct scan *s = w->s;
	uint32_t len = sl->len;
	uint32_t padded = (len + s->max_bs - 1) / s->max_bs * s->max_bs;
	memset(sl->buf + sl->got, 0, padded - sl->got);
	for (int i = 0; i < s->cfg->nsizes; i++)
		fingerprint_size(w, i, sl->buf, len, sl->u->u.f);
	atomic_fetch_add_explicit(&s->bytes_done, len, memory_order_relaxed);
}

/* A chunk that SEEK_DATA says is all hole: zero blocks, nothing to read. */
static void count_hole(struct worker *w, uint32_t len)
{
	struct scan *s = w->s;
	for (int i = 0; i < s->cfg->nsizes; i++) {
		uint32_t bs = s->cfg->block_size[i];
		w->blocks[i] += (len + bs - 1) / bs;
		w->zero[i] += (len + bs - 1) / bs;
	}
	atomic_fetch_add_explicit(&s->bytes_done, len, memory_order_relaxed);
}

static bool is_hole(struct wunit *u, uint64_t off, uint32_t len)
{
	if (!u->u.f->sparse)
		return false;
	if (off >= u->data_end) {
		int fd = u->u.f->fd;
		off_t d = lseek(fd, (off_t)off, SEEK_DATA);
		if (d < 0 && errno == ENXIO) {
			u->next_data = u->data_end = UINT64_MAX;
		} else if (d < 0) { /* no SEEK_DATA here: read everything */
			u->next_data = off;
			u->data_end = UINT64_MAX;
		} else {
			off_t h = lseek(fd, d, SEEK_HOLE);
			u->next_data = (uint64_t)d;
			u->data_end = h < 0 ? UINT64_MAX : (uint64_t)h;
		}
	}
	return u->next_data >= off + len;
}

/* ---- reading ---------------------------------------------------------- */

static void unit_release(struct worker *w, struct wunit *u)
{
	if (u == w->cur || u->inflight)
		return;
	scan_file_unref(u->u.f);
	free(u);
}

static struct wunit *take_unit(struct worker *w)
{
	struct unit u;
	if (!scan_queue_pop(&w->s->q, &u, w->inflight == 0))
		return NULL;
	struct wunit *wu = calloc(1, sizeof(*wu));
	if (!wu) {
		w->err = -ENOMEM;
		scan_file_unref(u.f);
		return NULL;
	}
	wu->u = u;
	wu->pos = u.start;
	return wu;
}

static void submit(struct worker *w, struct slot *sl)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
	io_uring_prep_read(sqe, sl->u->u.f->fd, sl->buf + sl->got,
			   sl->len - sl->got, sl->off + sl->got);
	io_uring_sqe_set_data(sqe, sl);
}

/* Fill @sl with the next chunk to read; false when there is none now. */
static bool next_chunk(struct worker *w, struct slot *sl)
{
	for (;;) {
		struct wunit *u = w->cur;
		if (!u && !(u = w->cur = take_unit(w)))
			return false;
		if (u->pos >= u->u.end) {
			w->cur = NULL;
			unit_release(w, u);
			continue;
		}
		uint64_t off = u->pos, left = u->u.end - off;
		uint32_t len =
		    left < w->s->chunk ? (uint32_t)left : w->s->chunk;
		u->pos += len;
		if (is_hole(u, off, len)) {
			count_hole(w, len);
			continue;
		}
		*sl = (struct slot){u, off, len, 0, sl->buf};
		u->inflight++;
		w->inflight++;
		return true;
	}
}

/* A read of @res bytes (or -errno) into @sl came back: true when the slot
 * is done with, false when the rest must be read. */
static bool completed(struct worker *w, struct slot *sl, int res)
{
	if (res == -EINTR || res == -EAGAIN)
		return false;
	struct sfile *f = sl->u->u.f;
	if (res < 0) {
		file_failed(w->s, f);
	} else if (res == 0) { /* shorter than the walk saw it */
		if (!atomic_exchange(&f->changed, true))
			atomic_fetch_add(&w->s->changed, 1);
		fingerprint_chunk(w, sl);
	} else if ((sl->got += (uint32_t)res) < sl->len) {
		return false;
	} else {
		fingerprint_chunk(w, sl);
	}
	struct wunit *u = sl->u;
	u->inflight--;
	w->inflight--;
	unit_release(w, u);
	return true;
}

static void run_sync(struct worker *w)
{
	struct slot *sl = &w->slot[0];
	while (next_chunk(w, sl)) {
		bool done;
		do {
			ssize_t n = pread(sl->u->u.f->fd, sl->buf + sl->got,
					  sl->len - sl->got,
					  (off_t)(sl->off + sl->got));
			done = completed(w, sl, n < 0 ? -errno : (int)n);
		} while (!done);
	}
}

static void run_uring(struct worker *w)
{
	for (;;) {
		while (w->nfree && next_chunk(w, w->free_slot[w->nfree - 1])) {
			submit(w, w->free_slot[w->nfree - 1]);
			w->nfree--;
		}
		if (!w->inflight)
			return;
		struct io_uring_cqe *cqe;
		int r = io_uring_submit_and_wait(&w->ring, 1);
		if (r < 0 && r != -EINTR && r != -EAGAIN) {
			w->err = r;
			return;
		}
		while (io_uring_peek_cqe(&w->ring, &cqe) == 0) {
			struct slot *sl = io_uring_cqe_get_data(cqe);
			int res = cqe->res;
			io_uring_cqe_seen(&w->ring, cqe);
			if (completed(w, sl, res))
				w->free_slot[w->nfree++] = sl;
			else
				submit(w, sl);
		}
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	w->ring_ok = !w->s->cfg->no_uring && ring_setup(QD, &w->ring, 0) == 0;
	if (w->ring_ok)
		run_uring(w);
	else
		run_sync(w);
	/* After a ring failure: drop what is queued, so the walker never
	 * waits on a full queue. */
	struct unit u;
	while (w->err && scan_queue_pop(&w->s->q, &u, true))
		scan_file_unref(u.f);
	if (w->ring_ok)
		ring_teardown(&w->ring);
	return NULL;
}

static int worker_init(struct worker *w, struct scan *s)
{
	w->s = s;
	for (int i = 0; i < QD; i++) {
		if (posix_memalign((void **)&w->slot[i].buf, 4096, s->chunk))
			return -ENOMEM;
		w->free_slot[w->nfree++] = &w->slot[i];
	}
	if (s->cfg->compress) {
		w->cbuf = malloc(dedupe_compress_bound(s->max_bs));
		if (!w->cbuf)
			return -ENOMEM;
	}
	if (s->cfg->compress == SCAN_COMPRESS_ZSTD &&
	    !(w->zctx = ZSTD_createCCtx()))
		return -ENOMEM;
	return 0;
}

static void worker_free(struct worker *w)
{
	for (int i = 0; i < QD; i++)
		free(w->slot[i].buf);
	free(w->cbuf);
	ZSTD_freeCCtx(w->zctx);
}

/* ---- progress --------------------------------------------------------- */

struct ticker {
	struct scan *s;
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
};

static void report(struct scan *s, bool finished)
{
	struct scan_progress p = {
	    .finished = finished,
	    .bytes_done = atomic_load(&s->bytes_done),
	    .bytes_found = atomic_load(&s->bytes_found),
	    .files_found = atomic_load(&s->files_found),
	    .walk_done = atomic_load(&s->walk_done),
	    .seconds = (double)(clock_mono_ns() - s->t0) / 1e9,
	};
	s->cfg->progress(&p, s->cfg->progress_ctx);
}

static void *ticker_main(void *arg)
{
	struct ticker *t = arg;
	pthread_mutex_lock(&t->lock);
	while (!t->stop) {
		struct timespec ts = clock_mono_after(NS_PER_SEC / 2);
		pthread_cond_timedwait(&t->cond, &t->lock, &ts);
		if (!t->stop)
			report(t->s, false);
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* ---- results ---------------------------------------------------------- */

static void size_result(struct scan *s, int i, struct worker *w, int nw,
			struct scan_size_result *out)
{
	struct scan_index_summary sum;
	scan_index_summarize(s->ix[i], &sum);
	out->block_size = s->cfg->block_size[i];
	for (int k = 0; k < nw; k++) {
		out->blocks += w[k].blocks[i];
		out->zero_blocks += w[k].zero[i];
	}
	out->data_blocks = out->blocks - out->zero_blocks;
	out->sample_shift = sum.shift;
	out->sampled_unique = sum.kept;
	out->unique_blocks = sum.kept << sum.shift;
	out->compressed_bytes = sum.csize << sum.shift;
	out->index_peak_bytes = sum.peak_bytes;
	if (sum.shift) {
		/* kept ~ Binomial(unique, p): relative sd sqrt((1-p)/kept). */
		double p = ldexp(1.0, -(int)sum.shift);
		out->unique_err95 =
		    sum.kept ? 1.96 * sqrt((1 - p) / (double)sum.kept) : 1.0;
	}
	for (int r = 0; r < SCAN_HIST_ROWS; r++) {
		out->hist[r] = sum.hist[r];
		out->hist[r].blocks <<= sum.shift;
		out->hist[r].refs <<= sum.shift;
		out->hist[r].csize <<= sum.shift;
		out->hist[r].ref_csize <<= sum.shift;
	}
}

static int groups_out(struct group_list *l, struct scan_group **out, size_t *n)
{
	*out = calloc(l->n ? l->n : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		struct group *g = l->g[i];
		struct scan_group *o = &(*out)[i];
		o->name = g->name;
		for (int k = 0; k < SCAN_MAX_SIZES; k++) {
			o->blocks[k] = atomic_load(&g->blocks[k]);
			o->dup[k] = atomic_load(&g->dup[k]);
		}
		free(g);
	}
	*n = l->n;
	free(l->g);
	l->g = NULL;
	l->n = 0;
	return 0;
}

/* ---- the scan --------------------------------------------------------- */

static int scan_init(struct scan *s, const struct scan_config *cfg,
		     struct scan_result *res)
{
	memset(res, 0, sizeof(*res));
	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->res = res;
	if (cfg->nsizes < 1 || cfg->nsizes > SCAN_MAX_SIZES)
		return -EINVAL;
	for (int i = 0; i < cfg->nsizes; i++) {
		uint32_t bs = cfg->block_size[i];
		if (bs < SCAN_MIN_BLOCK || bs > SCAN_MAX_BLOCK ||
		    (bs & (bs - 1)))
			return -EINVAL;
		if (bs > s->max_bs)
			s->max_bs = bs;
	}
	s->chunk = CHUNK > s->max_bs ? CHUNK : s->max_bs;
	uint64_t unit = cfg->unit_bytes ? cfg->unit_bytes : DEFAULT_UNIT;
	s->unit = (unit + s->chunk - 1) / s->chunk * s->chunk;
	res->unreadable_paths =
	    calloc(SCAN_UNREADABLE_LISTED, sizeof(*res->unreadable_paths));
	if (!res->unreadable_paths || scan_queue_init(&s->q))
		return -ENOMEM;
	pthread_mutex_init(&s->unreadable_lock, NULL);
	uint64_t share = cfg->max_memory / (uint64_t)cfg->nsizes;
	for (int i = 0; i < cfg->nsizes; i++)
		if (!(s->ix[i] = scan_index_new(share)))
			return cfg->max_memory ? -EINVAL : -ENOMEM;
	s->t0 = clock_mono_ns();
	return 0;
}

static void scan_destroy(struct scan *s)
{
	for (int i = 0; i < SCAN_MAX_SIZES; i++)
		scan_index_free(s->ix[i]);
	for (size_t i = 0; i < s->dirs.n; i++) {
		free(s->dirs.g[i]->name);
		free(s->dirs.g[i]);
	}
	for (size_t i = 0; i < s->exts.n; i++) {
		free(s->exts.g[i]->name);
		free(s->exts.g[i]);
	}
	free(s->dirs.g);
	free(s->exts.g);
	free(s->ext_hash);
	free(s->links.key);
	if (s->q.u)
		scan_queue_fini(&s->q);
	pthread_mutex_destroy(&s->unreadable_lock);
}

static int threads_wanted(const struct scan_config *cfg)
{
	long n =
	    cfg->threads > 0 ? cfg->threads : sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

/* Walk in this thread while @nw workers read; then wait for them. */
static int scan_threads(struct scan *s, struct worker *w, int nw)
{
	int r = 0, started = 0;
	for (; started < nw && !r; started++) {
		r = worker_init(&w[started], s);
		if (!r && pthread_create(&w[started].tid, NULL, worker_main,
					 &w[started]))
			r = -EAGAIN;
		if (r)
			break;
	}
	struct ticker t = {.s = s};
	pthread_mutex_init(&t.lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t.cond, &ca);
	pthread_condattr_destroy(&ca);
	bool ticking = !r && s->cfg->progress &&
		       !pthread_create(&t.tid, NULL, ticker_main, &t);
	if (!r && started)
		r = scan_walk(s);
	atomic_store(&s->walk_done, true);
	scan_queue_close(&s->q);
	for (int i = 0; i < started; i++) {
		pthread_join(w[i].tid, NULL);
		if (!r)
			r = w[i].err;
	}
	if (ticking) {
		pthread_mutex_lock(&t.lock);
		t.stop = true;
		pthread_cond_signal(&t.cond);
		pthread_mutex_unlock(&t.lock);
		pthread_join(t.tid, NULL);
	}
	pthread_mutex_destroy(&t.lock);
	pthread_cond_destroy(&t.cond);
	return r;
}

int scan_run(const struct scan_config *cfg, struct scan_result *res)
{
	struct scan s;
	int r = scan_init(&s, cfg, res);
	int nw = threads_wanted(cfg);
	struct worker *w = r ? NULL : calloc((size_t)nw, sizeof(*w));
	if (!r && !w)
		r = -ENOMEM;
	if (!r)
		r = scan_threads(&s, w, nw);
	if (!r && cfg->progress)
		report(&s, true);
	res->threads = nw;
	res->seconds = (double)(clock_mono_ns() - s.t0) / 1e9;
	res->changed = atomic_load(&s.changed);
	res->nsizes = cfg->nsizes;
	for (int i = 0; !r && i < cfg->nsizes; i++)
		size_result(&s, i, w, nw, &res->size[i]);
	if (!r)
		r = groups_out(&s.dirs, &res->dirs_g, &res->n_dirs_g);
	if (!r)
		r = groups_out(&s.exts, &res->exts, &res->n_exts);
	for (int i = 0; w && i < nw; i++)
		worker_free(&w[i]);
	free(w);
	scan_destroy(&s);
	if (r)
		scan_result_free(res);
	return r;
}

void scan_result_free(struct scan_result *res)
{
	for (size_t i = 0; i < res->n_unreadable_paths; i++)
		free(res->unreadable_paths[i]);
	free(res->unreadable_paths);
	for (size_t i = 0; i < res->n_dirs_g; i++)
		free(res->dirs_g[i].name);
	for (size_t i = 0; i < res->n_exts; i++)
		free(res->exts[i].name);
	free(res->dirs_g);
	free(res->exts);
	memset(res, 0, sizeof(*res));
}
