/* FUSE over io_uring: the rings, their threads, and the way back for
 * replies (see fs/uring.h; the protocol is the kernel's
 * Documentation/filesystems/fuse-io-uring.rst).
 *
 * Each entry is a 288-byte header buffer and a payload buffer. The kernel
 * puts a request's fuse_in_header in the header's in_out, the op's fixed
 * header (fuse_write_in, ...) in op_in and the rest (names, write data)
 * in the payload. libfuse 3.14 wants one contiguous request, so the two
 * headers are copied in front of the payload, into a page kept free for
 * them: the payload, up to 1 MiB of write data, is never copied.
 *
 * Replies: libfuse writes every reply through channel.c's writev, which
 * asks uring_reply. A reply's unique finds its entry (fs/uring_map.c); the
 * reply is copied into the entry's buffers and the entry queued for its
 * ring's thread, which commits it (COMMIT_AND_FETCH) with the next batch.
 * Only ring threads submit: io_uring runs a command's task work in, and
 * cancels it with, the thread that submitted it, and the array model's
 * completer or a scenario thread must not own ring entries. A reply from
 * another thread wakes the ring's thread through an eventfd read kept
 * pending in the ring.
 */
#include "fs/uring.h"

#include <errno.h>
#include <fuse_lowlevel.h>
#include <linux/fuse.h>
#include <liburing.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/log.h"
#include "common/ring_setup.h"
#include "fs/fuse_uring_abi.h"
#include "fs/open_reply.h"
#include "fs/ops.h"
#include "fs/uring_map.h"
#include "fs/uring_pool.h"
#include "fs/uring_size.h"

/* Entries per ring: requests one CPU's processes may have in the daemon
 * at once before the kernel queues them for that ring, where the model
 * cannot see them wait. A timed array holds each request (and its entry)
 * until its emulated completion, so a ring takes every background request
 * the connection allows (fs/ops.h), as /dev/fuse does. With 64, a
 * degraded RAID read waited 3.0 ms against the model's 1.37
 * (degraded_latency). ARRAYSIM_URING_DEPTH sets another (tests). */
/* Payload bytes an entry keeps resident between requests; the rest of a
 * large request's buffer is returned to the kernel lazily (MADV_FREE),
 * so that a burst of 1 MiB requests does not pin 1 MiB an entry for the
 * life of the mount. Small and medium requests never refault. */
#define URING_KEEP (128u << 10)
/* Room before the payload for the request's two headers. */
#define URING_PREFIX 4096
#define TAG_WAKE 1u
/* Pool workers when ARRAYSIM_URING_WORKERS is unset: two per ring, so
 * that a burst on one ring finds idle workers while the other's run. */
#define URING_WORKERS_PER_RING 2

struct queue;

struct ent {
	struct abi_uring_req_header hdr;
	struct queue *q;
	char *map;	 /* URING_PREFIX + payload bytes */
	char *payload;	 /* map + URING_PREFIX */
	size_t resident; /* payload bytes touched since the last trim */
	struct iovec iov[2];
	struct uring_map_node by_unique; /* its request's unique */
	uint64_t commit_id;
	struct ent *ready_next;
	bool busy;    /* its ring's thread is in libfuse with it */
	bool replied; /* the reply is in its buffers */
};

struct queue {
	struct io_uring ring;
	bool ring_ok;
	unsigned qid;
	int efd;
	uint64_t efd_val;
	atomic_bool wake_sent;
	atomic_bool stop;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock; /* busy, replied, ready */
	struct ent *ready;
	struct ent *ents;
	struct ent **got;     /* drain's batch, one slot an entry */
	char *maps;	      /* every entry's buffers, one mapping */
	unsigned live;	      /* entries the kernel still holds */
	atomic_uint in_use;   /* entries the daemon holds (ring thread) */
	atomic_uint peak;     /* the most in_use has been */
	atomic_ullong full;   /* times every entry was in the daemon */
	atomic_ullong served; /* requests that came on this ring */
	int reg_err;	      /* registration's outcome, for uring_start */
};

static struct {
	struct fuse_session *se;
	int fd;
	size_t payload;
	size_t page;   /* sysconf(_SC_PAGESIZE), read once */
	size_t stride; /* bytes of one entry's mapping, whole pages */
	unsigned depth;
	unsigned nq;
	struct queue *qs;
	atomic_bool serving;
	struct uring_map map;
	pthread_mutex_t reg_lock;
	pthread_cond_t reg_cond;
	unsigned reg_done;
} U = {.map = URING_MAP_INIT,
       .reg_lock = PTHREAD_MUTEX_INITIALIZER,
       .reg_cond = PTHREAD_COND_INITIALIZER};

/* ---- submissions (ring thread only, or before the threads run) --------- */

static struct io_uring_sqe *get_sqe(struct queue *q)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);
	if (!sqe) {
		io_uring_submit(&q->ring);
		sqe = io_uring_get_sqe(&q->ring);
	}
	return sqe;
}

static void prep_cmd(struct queue *q, struct ent *e, unsigned op)
{
	struct io_uring_sqe *sqe = get_sqe(q);
	if (!sqe)
		return; /* cannot happen: the ring has room for every entry */
	memset(sqe, 0, 2 * sizeof(*sqe)); /* SQE128 */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = U.fd;
	sqe->cmd_op = op;
	sqe->user_data = (uint64_t)(uintptr_t)e;
	struct abi_uring_cmd_req *req = (void *)sqe->cmd;
	req->qid = (uint16_t)q->qid;
	req->commit_id = e->commit_id;
	if (op == ABI_URING_CMD_REGISTER) {
		sqe->addr = (uint64_t)(uintptr_t)e->iov;
		sqe->len = 2;
	}
}

static void arm_wake(struct queue *q)
{
	struct io_uring_sqe *sqe = get_sqe(q);
	if (!sqe)
		return;
	io_uring_prep_read(sqe, q->efd, &q->efd_val, sizeof(q->efd_val), 0);
	sqe->user_data = TAG_WAKE;
}

static void wake(struct queue *q)
{
	if (atomic_exchange(&q->wake_sent, true))
		return;
	uint64_t one = 1;
	ssize_t n = write(q->efd, &one, sizeof(one));
	(void)n; /* an eventfd write fails only on overflow: already woken */
}

/* Commit the replies queued since the last pass. */
static void commit_ready(struct queue *q)
{
	pthread_mutex_lock(&q->lock);
	struct ent *e = q->ready;
	q->ready = NULL;
	pthread_mutex_unlock(&q->lock);
	for (; e; e = e->ready_next) {
		prep_cmd(q, e, ABI_URING_CMD_COMMIT_AND_FETCH);
		atomic_fetch_sub_explicit(&q->in_use, 1, memory_order_relaxed);
	}
}

/* ---- requests and replies ---------------------------------------------- */

static void push_ready(struct queue *q, struct ent *e)
{
	e->ready_next = q->ready;
	q->ready = e;
}

static size_t page_up(size_t n)
{
	return (n + U.page - 1) / U.page * U.page;
}

/* Return @e's payload pages past max(URING_KEEP, @need) bytes to the
 * kernel. Only while the daemon holds @e: once committed, the kernel may
 * be copying the next request in, and MADV_FREE would drop it. */
static void trim(struct ent *e, size_t need)
{
	size_t from = page_up(need > URING_KEEP ? need : URING_KEEP);
	if (e->resident <= from)
		return;
	size_t end = page_up(e->resident);
	/* Advice only: on failure the pages stay, which costs memory. */
	(void)madvise(e->payload + from, end - from, MADV_FREE);
	e->resident = from;
}

/* Answer a request that cannot be handed to libfuse. */
static bool refuse(struct queue *q, struct ent *e, int err)
{
	struct fuse_out_header out = {
	    .len = sizeof(out), .error = err, .unique = e->by_unique.unique};
	memcpy(e->hdr.in_out, &out, sizeof(out));
	e->hdr.ring_ent_in_out.payload_sz = 0;
	pthread_mutex_lock(&q->lock);
	push_ready(q, e);
	pthread_mutex_unlock(&q->lock);
	return true;
}

/* While this thread hands a ring's request to libfuse (uring_serving). */
static _Thread_local bool on_ring;
/* The entry of the request this thread is serving, while it does. */
static _Thread_local struct ent *serving_ent;

bool uring_serving(void)
{
	return on_ring;
}

void *uring_reply_space(size_t size)
{
	struct ent *e = serving_ent;
	if (!e || size > U.payload)
		return NULL;
	/* What the handler writes there counts for the next trim. */
	e->resident = size > e->resident ? size : e->resident;
	return e->payload;
}

/* A request arrived in @e: rebuild it contiguously and hand it over.
 * True when its reply is queued for the ring thread to commit. */
static bool serve(struct queue *q, struct ent *e)
{
	struct fuse_in_header in;
	memcpy(&in, e->hdr.in_out, sizeof(in));
	uint32_t psz = e->hdr.ring_ent_in_out.payload_sz;
	e->by_unique.unique = in.unique;
	e->commit_id = e->hdr.ring_ent_in_out.commit_id;
	if (psz <= U.payload && psz > e->resident)
		e->resident = psz;
	/* in.len counts the op's header, which the kernel does not size. */
	if (psz > U.payload || in.len < sizeof(in) + psz ||
	    in.len - sizeof(in) - psz > ABI_URING_OP_IN_OUT_SZ) {
		log_error("fuse",
			  "io_uring request %llu: bad sizes "
			  "(len %u, payload %u)",
			  (unsigned long long)in.unique, in.len, psz);
		return refuse(q, e, -EIO);
	}
	size_t op = in.len - sizeof(in) - psz;
	char *start = e->payload - op - sizeof(in);
	memcpy(start, &in, sizeof(in));
	memcpy(start + sizeof(in), e->hdr.op_in, op);
	pthread_mutex_lock(&q->lock);
	e->busy = true;
	e->replied = false;
	pthread_mutex_unlock(&q->lock);
	uring_map_put(&U.map, &e->by_unique);
	atomic_fetch_add_explicit(&q->served, 1, memory_order_relaxed);
	struct fuse_buf buf = {.mem = start, .size = in.len};
	open_reply_note(start, in.len);
	on_ring = true;
	serving_ent = e;
	fuse_session_process_buf(U.se, &buf);
	serving_ent = NULL;
	on_ring = false;
	pthread_mutex_lock(&q->lock);
	e->busy = false;
	bool queued = e->replied;
	if (queued)
		push_ready(q, e);
	pthread_mutex_unlock(&q->lock);
	return queued;
}

/* A pool worker's job: the ring thread may be waiting, so wake it. */
static void serve_job(void *arg)
{
	struct ent *e = arg;
	if (serve(e->q, e))
		wake(e->q);
}

/* The requests of one batch of CQEs: when there are several, idle workers
 * take all but one, and the ring thread serves the rest, so that a burst
 * runs in parallel while a lone request (QD1) has no hand-off. */
static void dispatch(struct queue *q, struct ent **got, unsigned n)
{
	unsigned kept = 1;
	for (unsigned i = 1; i < n; i++)
		if (!uring_pool_offer(serve_job, got[i]))
			got[kept++] = got[i];
	for (unsigned i = 0; i < kept && n; i++)
		serve(q, got[i]);
}

/* Copy a reply's bytes into @e: its fuse_out_header to in_out, the rest
 * to the payload. Returns the reply's length or -errno. */
static ssize_t fill_reply(struct ent *e, const struct iovec *iov, int count)
{
	struct fuse_out_header out;
	const size_t hl = sizeof(out);
	size_t total = 0, put = 0;
	for (int i = 0; i < count; i++)
		total += iov[i].iov_len;
	bool fits = total - hl <= U.payload;
	for (int i = 0; i < count && (fits || put < hl); i++) {
		const char *p = iov[i].iov_base;
		size_t n = iov[i].iov_len, h = put < hl ? hl - put : 0;
		h = h < n ? h : n;
		memcpy((char *)&out + put, p, h);
		char *to = e->payload + (put + h - hl);
		/* A read's bytes may already be there (uring_reply_space). */
		if (fits && n > h && to != p + h)
			memcpy(to, p + h, n - h);
		put += n;
	}
	if (!fits) {
		log_error("fuse",
			  "io_uring reply of %zu bytes: larger than "
			  "the %zu-byte payload",
			  total, U.payload);
		out.error = -EIO;
	}
	out.len = fits ? (uint32_t)total : (uint32_t)hl;
	memcpy(e->hdr.in_out, &out, hl);
	size_t psz = fits ? total - hl : 0;
	e->hdr.ring_ent_in_out.payload_sz = (uint32_t)psz;
	e->resident = psz > e->resident ? psz : e->resident;
	trim(e, psz);
	return fits ? (ssize_t)total : -EIO;
}

bool uring_reply(const struct iovec *iov, int count, ssize_t *ret)
{
	if (!U.serving || count < 1 ||
	    iov[0].iov_len < sizeof(struct fuse_out_header))
		return false;
	const struct fuse_out_header *out = iov[0].iov_base;
	if (!out->unique)
		return false; /* a notification */
	struct uring_map_node *n = uring_map_take(&U.map, out->unique);
	if (!n)
		return false;
	struct ent *e =
	    (struct ent *)((char *)n - offsetof(struct ent, by_unique));
	*ret = fill_reply(e, iov, count);
	struct queue *q = e->q;
	bool need_wake = false;
	pthread_mutex_lock(&q->lock);
	if (e->busy) {
		e->replied = true; /* its thread commits it on return */
	} else {
		push_ready(q, e);
		need_wake = true;
	}
	pthread_mutex_unlock(&q->lock);
	if (need_wake)
		wake(q);
	uring_map_release(&U.map);
	return true;
}

/* ---- the ring threads -------------------------------------------------- */

/* The entry whose request arrived in @cqe, or NULL. */
static struct ent *complete(struct queue *q, struct io_uring_cqe *cqe)
{
	if (!cqe->user_data)
		return NULL; /* tell_kernel_classic's */
	if (cqe->user_data == TAG_WAKE) {
		atomic_store(&q->wake_sent, false);
		if (!atomic_load(&q->stop))
			arm_wake(q);
		return NULL;
	}
	struct ent *e = (struct ent *)(uintptr_t)cqe->user_data;
	if (cqe->res < 0) {
		/* -ENOTCONN: the connection is going (unmount, abort). */
		if (cqe->res != -ENOTCONN && cqe->res != -ECONNABORTED)
			log_error("fuse", "io_uring queue %u: %s", q->qid,
				  strerror(-cqe->res));
		q->live--;
		return NULL;
	}
	return e;
}

/* @k more entries came to the daemon. Every entry held means the kernel
 * queues this CPU's next requests where the model cannot see them wait:
 * counted, for ctl status. */
static void note_in_use(struct queue *q, unsigned k)
{
	if (!k)
		return; /* a batch of wake-ups only */
	unsigned n =
	    atomic_fetch_add_explicit(&q->in_use, k, memory_order_relaxed) + k;
	if (n > atomic_load_explicit(&q->peak, memory_order_relaxed))
		atomic_store_explicit(&q->peak, n, memory_order_relaxed);
	if (n >= U.depth)
		atomic_fetch_add_explicit(&q->full, 1, memory_order_relaxed);
}

static void drain(struct queue *q)
{
	struct io_uring_cqe *cqe;
	struct ent **got = q->got; /* each entry has one fetch pending */
	unsigned head, n = 0, k = 0;
	io_uring_for_each_cqe(&q->ring, head, cqe)
	{
		struct ent *e = complete(q, cqe);
		if (e && k < U.depth)
			got[k++] = e;
		n++;
	}
	io_uring_cq_advance(&q->ring, n);
	note_in_use(q, k);
	dispatch(q, got, k);
}

/* Register every entry from this thread, so that the commands are this
 * thread's; REGISTER fails at once (a CQE) or not at all. */
static int register_all(struct queue *q)
{
	for (unsigned i = 0; i < U.depth; i++)
		prep_cmd(q, &q->ents[i], ABI_URING_CMD_REGISTER);
	arm_wake(q);
	int r = io_uring_submit(&q->ring);
	if (r < 0)
		return r;
	struct io_uring_cqe *cqe;
	unsigned head;
	io_uring_for_each_cqe(&q->ring, head, cqe)
	{
		if (cqe->user_data != TAG_WAKE && cqe->res < 0)
			return cqe->res;
	}
	q->live = U.depth;
	return 0;
}

static void report_registered(struct queue *q, int r)
{
	pthread_mutex_lock(&U.reg_lock);
	q->reg_err = r;
	U.reg_done++;
	pthread_cond_broadcast(&U.reg_cond);
	pthread_mutex_unlock(&U.reg_lock);
}

/* On CPU @cpu, where the kernel queues the requests of this ring (those
 * its CPU's tasks issue): a QD1 request is then served where its issuer
 * just went to sleep, with no cross-CPU wake-up. Measured on this 2-vCPU
 * VM (bench/RESULTS.md, 2026-12-04): 4k QD1 2.7x the unpinned rings,
 * 1.4x classic /dev/fuse. A CPU outside this process's allowed set
 * (taskset, cpuset) refuses: its thread stays unpinned. */
static void pin(unsigned cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *queue_main(void *arg)
{
	struct queue *q = arg;
	pin(q->qid);
	int r = register_all(q);
	report_registered(q, r);
	while (!r && q->live && !atomic_load(&q->stop)) {
		commit_ready(q);
		r = io_uring_submit_and_wait(&q->ring, 1);
		/* Transient: retry. Anything else ends the ring's thread. */
		if (r >= 0 || r == -EINTR || r == -EAGAIN || r == -EBUSY)
			r = 0;
		else
			log_error("fuse", "io_uring queue %u: %s", q->qid,
				  strerror(-r));
		drain(q);
	}
	return NULL;
}

/* ---- setup and teardown ------------------------------------------------ */

static int queue_open(struct queue *q, unsigned qid)
{
	q->qid = qid;
	q->efd = eventfd(0, EFD_CLOEXEC);
	pthread_mutex_init(&q->lock, NULL);
	if (q->efd < 0)
		return -errno;
	int r = ring_setup(2 * U.depth, &q->ring, IORING_SETUP_SQE128);
	q->ring_ok = !r;
	return r;
}

int uring_open(void)
{
	int n = uring_possible_cpus();
	if (n < 0)
		return n;
	U.depth = uring_depth_wanted(FS_MAX_BACKGROUND);
	U.qs = calloc((size_t)n, sizeof(*U.qs));
	if (!U.qs)
		return -ENOMEM;
	U.nq = (unsigned)n;
	for (unsigned i = 0; i < U.nq; i++)
		U.qs[i].efd = -1;
	for (unsigned i = 0; i < U.nq; i++) {
		int r = queue_open(&U.qs[i], i);
		if (r) {
			uring_close();
			return r;
		}
	}
	return 0;
}

/* One mapping a ring, not one an entry: 2048 entries on each of many
 * CPUs would pass vm.max_map_count (65530 by default). Reserved, not
 * committed: a page is resident once a request touches it. */
static int queue_alloc(struct queue *q)
{
	q->ents = calloc(U.depth, sizeof(*q->ents));
	q->got = calloc(U.depth, sizeof(*q->got));
	if (!q->ents || !q->got)
		return -ENOMEM;
	void *m = mmap(NULL, (size_t)U.depth * U.stride, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	q->maps = m;
	for (unsigned i = 0; i < U.depth; i++) {
		struct ent *e = &q->ents[i];
		e->q = q;
		e->map = q->maps + (size_t)i * U.stride;
		e->payload = e->map + URING_PREFIX;
		e->iov[0] = (struct iovec){&e->hdr, sizeof(e->hdr)};
		e->iov[1] = (struct iovec){e->payload, U.payload};
	}
	return 0;
}

/* The kernel waits for every ring to be registered once the INIT reply
 * asked for io_uring; a REGISTER that fails tells it to stay classic. */
static void tell_kernel_classic(void)
{
	struct queue *q = &U.qs[0];
	struct io_uring_sqe *sqe = get_sqe(q);
	if (!sqe)
		return;
	memset(sqe, 0, 2 * sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = U.fd;
	sqe->cmd_op = ABI_URING_CMD_REGISTER;
	sqe->len = 1; /* not the two buffers: refused with EINVAL */
	sqe->user_data = 0;
	/* Refused while being submitted: done when this returns. */
	io_uring_submit(&q->ring);
}

static int wait_registered(unsigned started)
{
	pthread_mutex_lock(&U.reg_lock);
	while (U.reg_done < started)
		pthread_cond_wait(&U.reg_cond, &U.reg_lock);
	pthread_mutex_unlock(&U.reg_lock);
	for (unsigned i = 0; i < started; i++)
		if (U.qs[i].reg_err)
			return U.qs[i].reg_err;
	return 0;
}

static void stop_threads(void)
{
	for (unsigned i = 0; i < U.nq; i++) {
		struct queue *q = &U.qs[i];
		if (!q->started)
			continue;
		atomic_store(&q->stop, true);
		uint64_t one = 1;
		ssize_t n = write(q->efd, &one, sizeof(one));
		(void)n;
		pthread_join(q->thread, NULL);
		q->started = false;
	}
}

/* ARRAYSIM_URING_WORKERS: pool workers (0: every burst is served on its
 * ring thread, as before the pool). A request alone in its batch is never
 * handed off: handing off lone requests too did not help the timed
 * figures on rings (degraded_latency, bench/RESULTS.md) and costs QD1 a
 * hand-off. */
static void pool_start(void)
{
	const char *w = getenv("ARRAYSIM_URING_WORKERS");
	unsigned n = U.nq * URING_WORKERS_PER_RING;
	if (w && *w)
		n = (unsigned)strtoul(w, NULL, 10);
	if (uring_pool_start(n))
		log_error("fuse",
			  "io_uring pool: no memory; rings serve alone");
}

int uring_start(struct fuse_session *se, int fd, size_t payload, char *err,
		size_t errlen)
{
	U.se = se;
	U.fd = fd;
	U.payload = payload;
	U.page = (size_t)sysconf(_SC_PAGESIZE);
	U.stride = page_up(URING_PREFIX + payload);
	int r = uring_map_alloc(&U.map, U.nq * U.depth);
	for (unsigned i = 0; !r && i < U.nq; i++)
		r = queue_alloc(&U.qs[i]);
	if (r) {
		snprintf(err, errlen, "ring buffers: %s", strerror(-r));
		tell_kernel_classic();
		uring_close();
		return r;
	}
	/* A ring's requests are served on one thread, which mallocs and
	 * frees whatever large buffer a handler needs (reads no longer:
	 * they land in the entry, uring_reply_space). Past glibc's mmap
	 * threshold each is a fresh mmap: 256 page faults, a TLB shootdown at
	 * munmap. Measured when reads still had their own 1 MiB buffer, after a
	 * 4k random-write phase, seq read 1M QD8: 37 MB/s as is, 416 MB/s with
	 * these; not measured again since. */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	pool_start();
	U.serving = true;
	unsigned started = 0;
	for (; started < U.nq; started++) {
		struct queue *q = &U.qs[started];
		r = -pthread_create(&q->thread, NULL, queue_main, q);
		if (r)
			break;
		q->started = true;
	}
	int reg = wait_registered(started);
	if (!r && !reg)
		return 0;
	snprintf(err, errlen, "%s: %s",
		 r ? "ring thread" : "FUSE_IO_URING_CMD_REGISTER",
		 strerror(-(r ? r : reg)));
	stop_threads();
	tell_kernel_classic();
	uring_stop();
	uring_close(); /* before any request: no reply can use a buffer */
	return r ? r : reg;
}

/* The ring and its eventfd; the entries' buffers stay mapped. */
static void queue_close(struct queue *q)
{
	if (q->ring_ok)
		ring_teardown(&q->ring);
	q->ring_ok = false;
	if (q->efd >= 0)
		close(q->efd);
	q->efd = -1;
}

static void queue_free(struct queue *q)
{
	queue_close(q);
	pthread_mutex_destroy(&q->lock);
	if (q->maps)
		munmap(q->maps, (size_t)U.depth * U.stride);
	q->maps = NULL;
	free(q->ents);
	free(q->got);
	q->ents = NULL;
	q->got = NULL;
}

void uring_close(void)
{
	for (unsigned i = 0; U.qs && i < U.nq; i++)
		queue_free(&U.qs[i]);
	free(U.qs);
	uring_map_free(&U.map);
	U.qs = NULL;
	U.nq = 0;
	U.serving = false;
}

void uring_stop(void)
{
	if (!U.qs)
		return;
	stop_threads();
	uring_pool_stop(); /* after the ring threads: none offers a job now */
	uring_map_close(&U.map);
	/* A read the array model still holds may have its blocks in an
	 * entry (uring_reply_space) and reply when the store closes, after
	 * this: uring_close unmaps the buffers then. */
	for (unsigned i = 0; i < U.nq; i++)
		queue_close(&U.qs[i]);
	U.serving = false;
}

unsigned uring_queues(void)
{
	return U.serving ? U.nq : 0;
}

unsigned uring_depth(void)
{
	return U.serving ? U.depth : 0;
}

struct uring_use uring_use(void)
{
	struct uring_use u = {0};
	for (unsigned i = 0; atomic_load(&U.serving) && i < U.nq; i++) {
		unsigned p = atomic_load(&U.qs[i].peak);
		u.peak = p > u.peak ? p : u.peak;
		u.full += atomic_load(&U.qs[i].full);
	}
	return u;
}

unsigned long long uring_pool_requests(void)
{
	return uring_pool_served();
}

unsigned long long uring_served(void)
{
	unsigned long long n = 0;
	for (unsigned i = 0; atomic_load(&U.serving) && i < U.nq; i++)
		n += atomic_load(&U.qs[i].served);
	return n;
}
