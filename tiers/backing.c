/* The backing store: chunk files under STORE/data, reached through io_uring.
 *
 *   pblk n  ->  STORE/data/chunk-%06u (n / BACKING_CHUNK_BLOCKS)
 *               at byte (n % BACKING_CHUNK_BLOCKS) * BLOCK_BYTES
 *
 * One call (read or write of n blocks) goes like this:
 *
 *   ios[] --sort by pblk--> runs of adjacent pblks in one chunk
 *         --one readv/writev SQE per run--> thread-local ring (64 entries)
 *         --reap every CQE; short transfer: resubmit the rest;
 *           read past EOF of a sparse chunk: zero-fill the rest--> 0 or -errno
 *
 * 64 entries: a FUSE request is at most 1 MiB (256 blocks), and what the
 * dedupe layer stores of it is mostly ascending pblks, so a call rarely has
 * more runs than that; bigger calls go out 64 SQEs at a time, refilling as
 * CQEs come back. A run is capped at 1024 iovecs (UIO_MAXIOV).
 *
 * The iovecs point straight at the callers' buffers: nothing is copied.
 * Small calls keep their iovecs and runs on the stack; only calls of more
 * than T_STACK_BLOCKS blocks allocate.
 *
 * Chunk files. A chunk's slot holds fd + 1 (0 = not open yet) and a dirty
 * flag. Slots live in fixed segments reached through a fixed directory, so a
 * slot never moves once published: the fast path is two acquire loads, and
 * only opening a chunk (or allocating a segment) takes the mutex.
 *
 *   directory[CHUNK_SEGMENTS] -> segment[SEGMENT_CHUNKS] -> { fd + 1, dirty }
 *
 * Dirty flags are set after a write completes, and sync clears a flag before
 * it fdatasyncs that chunk: a write completing during a sync either is
 * covered by it or leaves the flag set for the next one.
 *
 * Rings. One io_uring per calling thread, created on first use and freed by
 * a pthread key destructor when the thread exits. A ring is not tied to a
 * struct backing (fds travel in each SQE), so backings opened one after the
 * other in one process share it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/ring_setup.h"
#include "tiers/backing.h"

#define RING_ENTRIES 64u
#define T_STACK_BLOCKS 64u /* calls up to this size do not allocate */
#define RUN_MAX_IOVS 1024u /* UIO_MAXIOV: the kernel's readv limit */
#define SEGMENT_CHUNKS 1024u
#define CHUNK_SEGMENTS 1024u /* 1 Mi chunks of 1 GiB: 1 PiB of store */
#define MAX_CHUNKS ((uint64_t)SEGMENT_CHUNKS * CHUNK_SEGMENTS)

struct chunk_slot {
	atomic_int fdp1;   /* fd + 1 of the chunk file; 0 = not opened yet */
	atomic_bool dirty; /* written since the last sync */
};

struct backing {
	int dir_fd;		   /* STORE/data */
	char *data_path;	   /* STORE/data, for messages */
	pthread_mutex_t open_lock; /* guards opening chunks, new segments */
	atomic_uint chunks_hi;	   /* 1 + highest chunk index opened */
	_Atomic(struct chunk_slot *) dir[CHUNK_SEGMENTS]; /* segments */
};

/* ---- thread-local rings ------------------------------------------------ */

static pthread_key_t ring_key;
static pthread_once_t ring_key_once = PTHREAD_ONCE_INIT;
static __thread struct io_uring *tl_ring;

static void ring_destroy(void *p)
{
	struct io_uring *ring = p;

	ring_teardown(ring);
	free(ring);
}

static void ring_key_create(void)
{
	(void)pthread_key_create(&ring_key, ring_destroy);
}

/* The calling thread's ring, created on first use. NULL with *err set. */
static struct io_uring *ring_get(int *err)
{
	struct io_uring *ring = tl_ring;
	int r;

	if (ring)
		return ring;
	pthread_once(&ring_key_once, ring_key_create);
	ring = malloc(sizeof(*ring));
	if (!ring) {
		*err = -ENOMEM;
		return NULL;
	}
	/* Only this thread submits; the flags save the kernel some work
	 * where supported (6.0+), and older kernels get a plain ring. */
	r = ring_setup(RING_ENTRIES, ring,
		       IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN);
	if (r == -EINVAL)
		r = ring_setup(RING_ENTRIES, ring, 0);
	if (r < 0) {
		free(ring);
		*err = r;
		return NULL;
	}
	r = pthread_setspecific(ring_key, ring);
	if (r) {
		ring_destroy(ring);
		*err = -r;
		return NULL;
	}
	tl_ring = ring;
	return ring;
}

/* Forget the calling thread's ring after a fatal error; the next call
 * makes a fresh one. */
static void ring_drop(void)
{
	struct io_uring *ring = tl_ring;

	if (!ring)
		return;
	tl_ring = NULL;
	(void)pthread_setspecific(ring_key, NULL);
	ring_destroy(ring);
}

/* Errors of io_uring_enter worth simply calling it again for. */
static bool ring_err_transient(int err)
{
	return err == -EINTR || err == -EAGAIN || err == -EBUSY;
}

/* ---- chunk files ------------------------------------------------------- */

static struct chunk_slot *slot_peek(struct backing *b, uint64_t chunk)
{
	struct chunk_slot *seg = atomic_load_explicit(
	    &b->dir[chunk / SEGMENT_CHUNKS], memory_order_acquire);

	return seg ? &seg[chunk % SEGMENT_CHUNKS] : NULL;
}

/* fd of chunk @chunk (< MAX_CHUNKS), opening or creating it. -errno. */
static int chunk_fd(struct backing *b, uint64_t chunk)
{
	struct chunk_slot *s = slot_peek(b, chunk);
	struct chunk_slot *seg;
	char name[32];
	int fdp1, fd;

	if (s) {
		fdp1 = atomic_load_explicit(&s->fdp1, memory_order_acquire);
		if (fdp1)
			return fdp1 - 1;
	}

	pthread_mutex_lock(&b->open_lock);
	seg = atomic_load_explicit(&b->dir[chunk / SEGMENT_CHUNKS],
				   memory_order_relaxed);
	if (!seg) {
		seg = calloc(SEGMENT_CHUNKS, sizeof(*seg));
		if (!seg) {
			fd = -ENOMEM;
			goto out_unlock;
		}
		atomic_store_explicit(&b->dir[chunk / SEGMENT_CHUNKS], seg,
				      memory_order_release);
	}
	s = &seg[chunk % SEGMENT_CHUNKS];
	fdp1 = atomic_load_explicit(&s->fdp1, memory_order_relaxed);
	if (fdp1) {
		fd = fdp1 - 1; /* another thread opened it meanwhile */
		goto out_unlock;
	}
	snprintf(name, sizeof(name), "chunk-%06u", (unsigned)chunk);
	fd = openat(b->dir_fd, name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		fd = -errno;
		goto out_unlock;
	}
	atomic_store_explicit(&s->fdp1, fd + 1, memory_order_release);
	if (chunk + 1 >
	    atomic_load_explicit(&b->chunks_hi, memory_order_relaxed))
		atomic_store_explicit(&b->chunks_hi, (unsigned)chunk + 1,
				      memory_order_release);
out_unlock:
	pthread_mutex_unlock(&b->open_lock);
	return fd;
}

/* ---- one call: runs of adjacent blocks --------------------------------- */

/* One readv/writev: blocks adjacent on disk and in one chunk. Advanced in
 * place when the kernel moves fewer bytes than asked. */
struct run {
	int fd;
	uint64_t chunk;
	uint64_t off;	   /* byte offset in the chunk file */
	struct iovec *iov; /* first iovec not yet transferred */
	unsigned iovcnt;
	uint64_t left;	  /* bytes not yet transferred */
	struct run *next; /* on the resubmit list */
};

struct xfer {
	struct io_uring *ring;
	bool write;
	struct run *runs;
	unsigned nruns;
	unsigned next_run; /* first run never submitted */
	struct run *retry; /* runs to resubmit (short transfers) */
	unsigned inflight; /* SQEs prepared whose CQE is not reaped */
	int err;	   /* first failure, 0 if none */
};

static int cmp_pblk(const void *a, const void *b)
{
	uint64_t x = (*(const struct backing_io *const *)a)->pblk;
	uint64_t y = (*(const struct backing_io *const *)b)->pblk;

	return (x > y) - (x < y);
}

/* Sort @ios by pblk into @order and build the runs and iovecs. Returns the
 * number of runs. */
static unsigned runs_build(const struct backing_io *ios, unsigned n,
			   const struct backing_io **order, struct iovec *iov,
			   struct run *runs)
{
	bool sorted = true;
	unsigned i, nruns = 0;
	struct run *r = NULL;

	for (i = 0; i < n; i++) {
		order[i] = &ios[i];
		if (i && ios[i].pblk < ios[i - 1].pblk)
			sorted = false;
	}
	/* The data path mostly hands in ascending pblks: skip the sort. */
	if (!sorted)
		qsort(order, n, sizeof(*order), cmp_pblk);

	for (i = 0; i < n; i++) {
		uint64_t p = order[i]->pblk;
		uint64_t chunk = p / BACKING_CHUNK_BLOCKS;

		iov[i].iov_base = order[i]->buf;
		iov[i].iov_len = BLOCK_BYTES;
		if (r && p == order[i - 1]->pblk + 1 && chunk == r->chunk &&
		    r->iovcnt < RUN_MAX_IOVS) {
			r->iovcnt++;
			r->left += BLOCK_BYTES;
			continue;
		}
		r = &runs[nruns++];
		*r = (struct run){
		    .fd = -1,
		    .chunk = chunk,
		    .off = (p % BACKING_CHUNK_BLOCKS) * (uint64_t)BLOCK_BYTES,
		    .iov = &iov[i],
		    .iovcnt = 1,
		    .left = BLOCK_BYTES,
		};
	}
	return nruns;
}

static void xfer_fail(struct xfer *x, int err)
{
	/* Keep the first error: an -ENOSPC must not turn into a later -EIO. */
	if (!x->err)
		x->err = err;
}

static void run_prep(struct xfer *x, struct run *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(x->ring);

	/* inflight <= RING_ENTRIES and every prepared SQE is submitted
	 * before we wait, so the SQ always has room here. */
	if (x->write)
		io_uring_prep_writev(sqe, r->fd, r->iov, r->iovcnt, r->off);
	else
		io_uring_prep_readv(sqe, r->fd, r->iov, r->iovcnt, r->off);
	io_uring_sqe_set_data(sqe, r);
	x->inflight++;
}

/* Advance @r past @done bytes; true when bytes remain. */
static bool run_advance(struct run *r, uint64_t done)
{
	r->left -= done;
	r->off += done;
	while (done && done >= r->iov->iov_len) {
		done -= r->iov->iov_len;
		r->iov++;
		r->iovcnt--;
	}
	if (done) {
		r->iov->iov_base = (char *)r->iov->iov_base + done;
		r->iov->iov_len -= done;
	}
	return r->left != 0;
}

/* Reads past EOF of a sparse chunk file: the rest of the run is zeros. */
static void run_zero_rest(struct run *r)
{
	for (unsigned i = 0; i < r->iovcnt; i++)
		memset(r->iov[i].iov_base, 0, r->iov[i].iov_len);
	r->left = 0;
}

static void xfer_complete(struct xfer *x, struct run *r, int res)
{
	x->inflight--;
	if (res == -EINTR || res == -EAGAIN) {
		res = 0; /* nothing moved: try again */
	} else if (res < 0) {
		xfer_fail(x, res);
		return;
	} else if (res == 0 && !x->write) {
		run_zero_rest(r);
		return;
	} else if (res == 0) {
		xfer_fail(x, -EIO); /* a write that moves nothing won't */
		return;
	}
	if (run_advance(r, (uint64_t)res) && !x->err) {
		r->next = x->retry;
		x->retry = r;
	}
}

/* The ring refused io_uring_enter for good. Reap what the kernel did take
 * (it holds the callers' buffers), then drop the ring: the SQEs it never
 * took would otherwise go out with the next call, pointing at stale
 * buffers. */
static void xfer_abandon(struct xfer *x)
{
	unsigned untaken = io_uring_sq_ready(x->ring);
	struct io_uring_cqe *cqe;

	while (x->inflight > untaken) {
		int r = io_uring_wait_cqe(x->ring, &cqe);

		if (r == -EINTR)
			continue;
		if (r < 0)
			break; /* nothing more can be learnt from this ring */
		xfer_complete(x, io_uring_cqe_get_data(cqe), cqe->res);
		io_uring_cqe_seen(x->ring, cqe);
	}
	ring_drop();
}

/* Submit every run, reap every CQE. Stops queueing new work after a
 * failure, but never returns while the kernel still holds a buffer. */
static void xfer_run(struct xfer *x)
{
	struct io_uring_cqe *cqe;
	int r;

	for (;;) {
		while (!x->err && x->inflight < RING_ENTRIES) {
			struct run *rn;

			if (x->retry) {
				rn = x->retry;
				x->retry = rn->next;
			} else if (x->next_run < x->nruns) {
				rn = &x->runs[x->next_run++];
			} else {
				break;
			}
			run_prep(x, rn);
		}
		if (!x->inflight)
			return;

		r = io_uring_submit_and_wait(x->ring, 1);
		if (r < 0 && !ring_err_transient(r)) {
			xfer_fail(x, r);
			xfer_abandon(x);
			return;
		}
		while (io_uring_peek_cqe(x->ring, &cqe) == 0) {
			xfer_complete(x, io_uring_cqe_get_data(cqe), cqe->res);
			io_uring_cqe_seen(x->ring, cqe);
		}
	}
}

/* Writes go out with pwritev from the calling thread, not the ring: io_uring
 * cannot write to an ext4 page cache without blocking, so it hands every
 * buffered write to one of its worker threads, and the wake-up and the
 * switch cost more than the copy (measured here: 81 us against 27 us a 4 KiB
 * write through the whole data path). The caller is a FUSE worker thread
 * already, so nothing is lost by blocking it. Reads that hit the page cache
 * complete inline in io_uring, and those that miss it go to the device in
 * parallel, so reads stay on the ring. */
static void xfer_run_pwritev(struct xfer *x)
{
	for (unsigned i = 0; i < x->nruns && !x->err; i++) {
		struct run *r = &x->runs[i];
		while (r->left) {
			ssize_t n = pwritev(r->fd, r->iov, (int)r->iovcnt,
					    (off_t)r->off);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				xfer_fail(x, n < 0 ? -errno : -EIO);
				break;
			}
			run_advance(r, (uint64_t)n);
		}
	}
}

/* Validate, open chunks, transfer. The heart of read and write: 0, -EINVAL
 * (pblk 0), -EFBIG (pblk past the last chunk), -errno of opening a chunk,
 * or the first -errno of the transfers. */
static int backing_rw(struct backing *b, const struct backing_io *ios,
		      unsigned n, bool write)
{
	const struct backing_io *order_stack[T_STACK_BLOCKS];
	struct iovec iov_stack[T_STACK_BLOCKS];
	struct run runs_stack[T_STACK_BLOCKS];
	const struct backing_io **order = order_stack;
	struct iovec *iov = iov_stack;
	struct run *runs = runs_stack;
	void *heap = NULL;
	struct xfer x = {.write = write};
	unsigned i;
	int err = 0;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (ios[i].pblk == 0 ||
		    ios[i].pblk / BACKING_CHUNK_BLOCKS >= MAX_CHUNKS)
			return ios[i].pblk ? -EFBIG : -EINVAL;

	if (!write) {
		x.ring = ring_get(&err);
		if (!x.ring)
			return err;
	}

	if (n > T_STACK_BLOCKS) {
		heap = malloc((size_t)n *
			      (sizeof(*order) + sizeof(*iov) + sizeof(*runs)));
		if (!heap)
			return -ENOMEM;
		runs = heap;
		iov = (struct iovec *)(runs + n);
		order = (const struct backing_io **)(iov + n);
	}

	x.runs = runs;
	x.nruns = runs_build(ios, n, order, iov, runs);
	for (i = 0; i < x.nruns; i++) {
		/* Runs are sorted: look each chunk up once. */
		if (i && runs[i].chunk == runs[i - 1].chunk) {
			runs[i].fd = runs[i - 1].fd;
			continue;
		}
		runs[i].fd = chunk_fd(b, runs[i].chunk);
		if (runs[i].fd < 0) {
			err = runs[i].fd;
			goto out_free;
		}
	}

	if (write)
		xfer_run_pwritev(&x);
	else
		xfer_run(&x);
	err = x.err;

	/* Every chunk a write reached may hold new data, even when some
	 * other run of the call failed. */
	for (i = 0; write && i < x.nruns; i++) {
		struct chunk_slot *s;

		if (i && runs[i].chunk == runs[i - 1].chunk)
			continue;
		s = slot_peek(b, runs[i].chunk);
		if (!atomic_load_explicit(&s->dirty, memory_order_relaxed))
			atomic_store_explicit(&s->dirty, true,
					      memory_order_release);
	}
out_free:
	free(heap);
	return err;
}

static int backing_read(void *ctx, const struct backing_io *ios, unsigned n)
{
	return backing_rw(ctx, ios, n, false);
}

static int backing_write(void *ctx, const struct backing_io *ios, unsigned n)
{
	return backing_rw(ctx, ios, n, true);
}

/* fdatasync every dirty chunk, up to a ring's worth at a time. */
static int backing_sync(void *ctx)
{
	struct backing *b = ctx;
	unsigned hi = atomic_load_explicit(&b->chunks_hi, memory_order_acquire);
	unsigned inflight = 0, chunk = 0;
	struct io_uring_cqe *cqe;
	struct io_uring *ring;
	int err = 0, r;

	ring = ring_get(&err);
	if (!ring)
		return err;

	for (;;) {
		while (!err && chunk < hi && inflight < RING_ENTRIES) {
			struct chunk_slot *s = slot_peek(b, chunk++);
			struct io_uring_sqe *sqe;

			if (!s || !atomic_exchange(&s->dirty, false))
				continue;
			sqe = io_uring_get_sqe(ring);
			io_uring_prep_fsync(sqe, atomic_load(&s->fdp1) - 1,
					    IORING_FSYNC_DATASYNC);
			io_uring_sqe_set_data(sqe, s);
			inflight++;
		}
		if (!inflight)
			return err;
		r = io_uring_submit_and_wait(ring, 1);
		if (r < 0 && !ring_err_transient(r)) {
			/* No buffers at stake: just start afresh next time. */
			ring_drop();
			return r;
		}
		while (io_uring_peek_cqe(ring, &cqe) == 0) {
			struct chunk_slot *s = io_uring_cqe_get_data(cqe);

			if (cqe->res < 0) {
				/* Leave it dirty: the data is not known
				 * to be durable. */
				atomic_store(&s->dirty, true);
				if (!err)
					err = cqe->res;
			}
			io_uring_cqe_seen(ring, cqe);
			inflight--;
		}
	}
}

static const struct backing_ops backing_uring_ops = {
    .read = backing_read,
    .write = backing_write,
    .sync = backing_sync,
};

/* ---- lifecycle --------------------------------------------------------- */

static int mkdir_once(const char *path)
{
	if (mkdir(path, 0700) == 0 || errno == EEXIST)
		return 0;
	return -errno;
}

int backing_open(const char *store_dir, struct backing **out, char *err,
		 size_t errlen)
{
	struct backing *b;
	const char *failed;
	int r;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(err, errlen, "backing store %s: %s", store_dir,
			 strerror(ENOMEM));
		return -ENOMEM;
	}
	b->dir_fd = -1;
	if (asprintf(&b->data_path, "%s/data", store_dir) < 0) {
		b->data_path = NULL;
		r = -ENOMEM;
		failed = store_dir;
		goto out_free;
	}
	pthread_mutex_init(&b->open_lock, NULL);

	failed = store_dir;
	r = mkdir_once(store_dir);
	if (r)
		goto out_free;
	failed = b->data_path;
	r = mkdir_once(b->data_path);
	if (r)
		goto out_free;
	b->dir_fd = open(b->data_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->dir_fd < 0) {
		r = -errno;
		goto out_free;
	}
	/* Fail now, not at the first write, if chunks can't be created. */
	if (faccessat(b->dir_fd, ".", W_OK | X_OK, AT_EACCESS) < 0) {
		r = -errno;
		goto out_free;
	}
	*out = b;
	return 0;

out_free:
	snprintf(err, errlen, "backing store %s: %s", failed, strerror(-r));
	backing_close(b);
	return r;
}

void backing_close(struct backing *b)
{
	if (!b)
		return;
	for (unsigned s = 0; s < CHUNK_SEGMENTS; s++) {
		struct chunk_slot *seg = atomic_load(&b->dir[s]);

		if (!seg)
			continue;
		for (unsigned i = 0; i < SEGMENT_CHUNKS; i++) {
			int fdp1 = atomic_load(&seg[i].fdp1);

			if (fdp1)
				close(fdp1 - 1);
		}
		free(seg);
	}
	if (b->dir_fd >= 0)
		close(b->dir_fd);
	if (b->data_path)
		pthread_mutex_destroy(&b->open_lock);
	free(b->data_path);
	free(b);
}

struct backing_dev backing_dev(struct backing *b)
{
	return (struct backing_dev){.ops = &backing_uring_ops, .ctx = b};
}

uint64_t backing_bytes_on_disk(struct backing *b)
{
	/* Walk the directory rather than the open fds: chunks written by an
	 * earlier run but not yet touched by this one count too. */
	uint64_t bytes = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	fd = openat(b->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "chunk-", 6) != 0)
			continue;
		if (fstatat(b->dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
			0 &&
		    S_ISREG(st.st_mode))
			bytes += (uint64_t)st.st_blocks * 512;
	}
	closedir(d);
	return bytes;
}
