/* The hashing pool (dedupe/fingerprint_pool.h).
 *
 * A run is a job on the caller's stack, queued until all its chunks are
 * claimed. Every touch of a job (claim, finish) is under the pool's one
 * lock, and the caller returns only when no chunk is unclaimed and none is
 * being hashed: by then the job has left the queue and no thread holds it.
 * The lock is taken once per chunk of 8 blocks (about 25 us of hashing),
 * so it is never the bottleneck.
 */
#include "dedupe/fingerprint_pool.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/block.h"

#define CHUNK_BLOCKS 8
#define SHARED_MAX_THREADS 7

struct fp_job {
	const uint8_t *buf;
	struct fingerprint *out;
	size_t n, next; /* next: the first block not yet claimed */
	unsigned busy;	/* chunks being hashed */
	int err;
	struct fp_job *link;
};

struct fp_pool {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct fp_job *head, *tail; /* jobs with unclaimed blocks */
	bool stop;
	struct fp_pool_cfg cfg;
	struct fp_pool_stats stats;
	unsigned started;
	pthread_t th[];
};

static int hash_range(const struct fp_job *j, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		int r = fingerprint_block(j->buf + i * BLOCK_BYTES, &j->out[i]);
		if (r)
			return r;
	}
	return 0;
}

static void unqueue(struct fp_pool *p, struct fp_job *j)
{
	struct fp_job **pp = &p->head, *prev = NULL;
	while (*pp && *pp != j) {
		prev = *pp;
		pp = &(*pp)->link;
	}
	if (!*pp)
		return;
	*pp = j->link;
	if (p->tail == j)
		p->tail = prev;
}

/* Under the lock: claim the next chunk of @j into [*from, *to). */
static bool claim(struct fp_pool *p, struct fp_job *j, size_t *from, size_t *to)
{
	if (j->next >= j->n)
		return false;
	*from = j->next;
	*to = j->n - *from > CHUNK_BLOCKS ? *from + CHUNK_BLOCKS : j->n;
	j->next = *to;
	j->busy++;
	if (j->next == j->n)
		unqueue(p, j);
	return true;
}

/* Under the lock: a chunk of @count blocks is done with result @r. */
static void finish(struct fp_pool *p, struct fp_job *j, int r, bool worker,
		   size_t count)
{
	j->busy--;
	if (worker)
		p->stats.worker_blocks += count;
	if (r && !j->err) {
		j->err = r;
		j->next = j->n; /* nobody hashes the rest */
		unqueue(p, j);
	}
	if (j->next == j->n && !j->busy)
		pthread_cond_broadcast(&p->done);
}

static void *fp_pool_worker(void *arg)
{
	struct fp_pool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (!p->head && !p->stop)
			pthread_cond_wait(&p->work, &p->mu);
		struct fp_job *j = p->head;
		size_t from = 0, to = 0;
		if (!j)
			break;		 /* stopping, and nothing queued */
		claim(p, j, &from, &to); /* a queued job has a chunk left */
		pthread_mutex_unlock(&p->mu);
		int r = hash_range(j, from, to);
		pthread_mutex_lock(&p->mu);
		finish(p, j, r, true, to - from);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int fp_pool_blocks(struct fp_pool *p, const void *buf, size_t n,
		   struct fingerprint *out)
{
	struct fp_job j = {.buf = buf, .out = out, .n = n};
	if (!p || !p->started || n < p->cfg.min_blocks)
		return hash_range(&j, 0, n);
	size_t chunks = (n + CHUNK_BLOCKS - 1) / CHUNK_BLOCKS, from, to;
	size_t helpers = p->cfg.caller_hashes ? chunks - 1 : chunks;
	pthread_mutex_lock(&p->mu);
	if (p->tail)
		p->tail->link = &j;
	else
		p->head = &j;
	p->tail = &j;
	p->stats.jobs++;
	for (size_t i = 0; i < helpers && i < p->started; i++)
		pthread_cond_signal(&p->work);
	while (p->cfg.caller_hashes && claim(p, &j, &from, &to)) {
		pthread_mutex_unlock(&p->mu);
		int r = hash_range(&j, from, to);
		pthread_mutex_lock(&p->mu);
		finish(p, &j, r, false, to - from);
	}
	while (j.next < j.n || j.busy)
		pthread_cond_wait(&p->done, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return j.err;
}

static void stop_threads(struct fp_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (unsigned i = 0; i < p->started; i++)
		pthread_join(p->th[i], NULL);
}

/* The threads take no signals: the daemon's are for its own threads. */
static int start_threads(struct fp_pool *p)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = 0;
	while (p->started < p->cfg.threads && !r) {
		r = pthread_create(&p->th[p->started], NULL, fp_pool_worker, p);
		p->started += !r;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

struct fp_pool *fp_pool_new(const struct fp_pool_cfg *cfg)
{
	struct fp_pool *p =
	    calloc(1, sizeof(*p) + cfg->threads * sizeof(pthread_t));
	if (!p)
		return NULL;
	p->cfg = *cfg;
	if (!p->cfg.min_blocks)
		p->cfg.min_blocks = FP_POOL_MIN_BLOCKS;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	int r = start_threads(p);
	if (r) {
		fp_pool_free(p);
		errno = r;
		return NULL;
	}
	return p;
}

void fp_pool_free(struct fp_pool *p)
{
	if (!p)
		return;
	stop_threads(p);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

static struct fp_pool *shared;
static pthread_once_t shared_once = PTHREAD_ONCE_INIT;

static void shared_start(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 2)
		return;
	struct fp_pool_cfg cfg = {
	    .threads = cpus - 1 < SHARED_MAX_THREADS ? (unsigned)cpus - 1
						     : SHARED_MAX_THREADS,
	    .caller_hashes = true,
	};
	shared = fp_pool_new(&cfg);
}

struct fp_pool *fp_pool_shared(void)
{
	pthread_once(&shared_once, shared_start);
	return shared;
}

void fp_pool_get_stats(struct fp_pool *p, struct fp_pool_stats *s)
{
	pthread_mutex_lock(&p->mu);
	*s = p->stats;
	pthread_mutex_unlock(&p->mu);
}
