/* The blocks the array model lost, and their report; see fs/loss.h.
 *
 * The model knows where blocks are (placement) and which drives were gone
 * when; the store knows which blocks hold data and who references them.
 * A loss event is resolved here once, at the fault: every stored block
 * is asked of the model, and those lost are kept with their XXH3, so a
 * read can refuse them without asking the model again.
 *
 * The set outlives the mount, as the loss would on the array: it is
 * logged to STORE/lost.blocks before it is reported, and read back at
 * the next mount. The log: the magic "ARSLOST1", then 16-byte records
 * (pblk, XXH3; host byte order, as the rest of the store), appended and
 * fdatasync'ed; a record whose pblk has LOG_FORGET set says the block was
 * freed, so its number no longer names the lost bytes. At mount the log
 * is replayed, entries whose block no longer holds the same bytes are
 * dropped, and the log is rewritten compact when that changed anything.
 * A torn last record (a crash mid-append) is ignored.
 */
#include "fs/loss.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "dedupe/index.h"
#include "faults/events.h"
#include "fs/bitrot.h"

#define BATCH 4096
#define LOG_MAGIC "ARSLOST1"
#define LOG_MAGIC_LEN 8
#define LOG_FORGET (1ull << 63)

struct lost_block {
	uint64_t pblk, xxh3;
};

struct loss_set {
	pthread_mutex_t lock;
	struct lost_block *v; /* sorted by pblk */
	size_t n, cap;
	atomic_size_t count; /* n, read without the lock */
	int log_fd;	     /* STORE/lost.blocks, appended under lock */
};

static int cmp_lost(const void *a, const void *b)
{
	const struct lost_block *x = a, *y = b;
	return (x->pblk > y->pblk) - (x->pblk < y->pblk);
}

/* ---- the log ------------------------------------------------------------ */

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Append @n records to the log and make them durable; @forget marks
 * them freed. */
static int log_append(int fd, const struct lost_block *b, size_t n, bool forget)
{
	struct lost_block chunk[256];
	for (size_t i = 0; i < n;) {
		size_t k = 0;
		for (; k < 256 && i < n; k++, i++) {
			chunk[k] = b[i];
			chunk[k].pblk |= forget ? LOG_FORGET : 0;
		}
		int r = write_all(fd, chunk, k * sizeof(*chunk));
		if (r)
			return r;
	}
	return n && fdatasync(fd) ? -errno : 0;
}

/* One log record and where it came in the log. */
struct logged {
	uint64_t pblk; /* LOG_FORGET cleared */
	size_t seq;
	struct lost_block rec;
};

static int cmp_logged(const void *a, const void *b)
{
	const struct logged *x = a, *y = b;
	if (x->pblk != y->pblk)
		return (x->pblk > y->pblk) - (x->pblk < y->pblk);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Replay the log's @n records into @s->v, sorted: of a block's records
 * the last one says whether it is lost. O(n log n): a log of a million
 * losses replays in a moment. */
static int log_replay(struct loss_set *s, const struct lost_block *rec,
		      size_t n)
{
	struct logged *l = malloc(n * sizeof(*l));
	s->v = malloc(n * sizeof(*s->v));
	if (!l || !s->v) {
		free(l);
		return -ENOMEM;
	}
	s->cap = n;
	for (size_t i = 0; i < n; i++)
		l[i] = (struct logged){rec[i].pblk & ~LOG_FORGET, i, rec[i]};
	qsort(l, n, sizeof(*l), cmp_logged);
	for (size_t i = 0; i < n; i++) {
		bool last = i + 1 == n || l[i + 1].pblk != l[i].pblk;
		if (last && !(l[i].rec.pblk & LOG_FORGET))
			s->v[s->n++] = l[i].rec;
	}
	free(l);
	return 0;
}

/* Keep the entries whose block still holds the bytes that were lost. */
static int keep_held(struct fs *fs, struct loss_set *s)
{
	MDB_txn *txn;
	int r = metastore_txn_begin(fs->ms, false, &txn);
	if (r)
		return r;
	size_t kept = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct ms_block b;
		if (dedupe_block_get(fs->ms, txn, s->v[i].pblk, &b) == 0 &&
		    b.refs && b.xxh3 == s->v[i].xxh3)
			s->v[kept++] = s->v[i];
	}
	metastore_txn_abort(txn);
	s->n = kept;
	return 0;
}

/* Replace the log at @path with the set's entries; its new fd. */
static int log_rewrite(const char *path, const struct loss_set *s, int *fd)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	int nfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (nfd < 0)
		return -errno;
	int r = write_all(nfd, LOG_MAGIC, LOG_MAGIC_LEN);
	if (!r)
		r = log_append(nfd, s->v, s->n, false);
	if (!r && fdatasync(nfd))
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r) {
		close(nfd);
		unlink(tmp);
		return r;
	}
	close(nfd);
	/* The rename is durable once the directory is. */
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	int dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	*fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}

/* The whole file at @path into *buf (malloc'd), *len bytes; a missing
 * file is empty. */
static int log_read(const char *path, char **buf, size_t *len)
{
	*buf = NULL;
	*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	off_t size = lseek(fd, 0, SEEK_END);
	int r = size < 0 ? -errno : 0;
	if (!r && size > 0 && !(*buf = malloc((size_t)size)))
		r = -ENOMEM;
	if (!r && size > 0 && pread(fd, *buf, (size_t)size, 0) != size)
		r = -EIO;
	close(fd);
	*len = r ? 0 : (size_t)size;
	return r;
}

/* The set the log's bytes say: its records replayed (a torn last one
 * ignored), then only the blocks still holding the lost bytes. *exact:
 * the log holds just those, nothing to compact. */
static int log_parse(struct fs *fs, struct loss_set *s, const char *buf,
		     size_t len, bool *exact)
{
	if (len &&
	    (len < LOG_MAGIC_LEN || memcmp(buf, LOG_MAGIC, LOG_MAGIC_LEN)))
		return -EBADMSG;
	size_t nrec = len > LOG_MAGIC_LEN
			  ? (len - LOG_MAGIC_LEN) / sizeof(struct lost_block)
			  : 0;
	struct lost_block *rec = nrec ? malloc(nrec * sizeof(*rec)) : NULL;
	if (nrec && !rec)
		return -ENOMEM;
	int r = 0;
	if (nrec) {
		memcpy(rec, buf + LOG_MAGIC_LEN, nrec * sizeof(*rec));
		r = log_replay(s, rec, nrec);
	}
	free(rec);
	size_t replayed = s->n;
	if (!r)
		r = keep_held(fs, s); /* sorted by the replay, kept so */
	*exact = len == LOG_MAGIC_LEN + nrec * sizeof(struct lost_block) &&
		 nrec == replayed && replayed == s->n;
	return r;
}

/* Read the log at @path (created when missing) into @s, compacting it
 * when it holds more than the set, and keep it open for appends. */
static int log_load(struct fs *fs, struct loss_set *s, const char *path,
		    char *err, size_t errlen)
{
	char *buf;
	size_t len;
	bool exact = false;
	int r = log_read(path, &buf, &len);
	if (!r)
		r = log_parse(fs, s, buf, len, &exact);
	free(buf);
	if (r == -EBADMSG)
		snprintf(err, errlen,
			 "%s: not a lost-blocks log (no ARSLOST1 magic); move "
			 "it away to forget the blocks it lists",
			 path);
	if (r)
		return r;
	if (!exact)
		return log_rewrite(path, s, &s->log_fd);
	s->log_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	return s->log_fd < 0 ? -errno : 0;
}

int loss_open(struct fs *fs, const char *path, char *err, size_t errlen)
{
	struct loss_set *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->log_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	fs->lost = s;
	err[0] = '\0';
	int r = log_load(fs, s, path, err, errlen);
	if (r && !err[0])
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
	if (r)
		loss_close(fs);
	else
		atomic_store(&s->count, s->n);
	return r;
}

void loss_close(struct fs *fs)
{
	if (!fs->lost)
		return;
	if (fs->lost->log_fd >= 0)
		close(fs->lost->log_fd);
	pthread_mutex_destroy(&fs->lost->lock);
	free(fs->lost->v);
	free(fs->lost);
	fs->lost = NULL;
}

bool loss_any(struct fs *fs)
{
	return fs->lost &&
	       atomic_load_explicit(&fs->lost->count, memory_order_acquire);
}

void loss_forget(struct fs *fs, const uint64_t *pblk, size_t n)
{
	struct loss_set *s = fs->lost;
	if (!s || !n || !atomic_load_explicit(&s->count, memory_order_acquire))
		return;
	struct lost_block *gone = malloc(n * sizeof(*gone));
	if (!gone) {
		/* Kept: it only refuses the same bytes at the same number. */
		log_error("loss", "out of memory forgetting %zu freed blocks",
			  n);
		return;
	}
	pthread_mutex_lock(&s->lock);
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		struct lost_block key = {pblk[i], 0};
		struct lost_block *b =
		    bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_lost);
		if (b)
			gone[ng++] = *b;
	}
	/* One record each, one sync for all. Should they not make it, the
	 * next mount still drops the entries unless the numbers hold the
	 * same bytes again. */
	if (ng && log_append(s->log_fd, gone, ng, true))
		log_error("loss", "lost.blocks: could not log %zu freed blocks",
			  ng);
	qsort(gone, ng, sizeof(*gone), cmp_lost);
	size_t kept = 0;
	for (size_t i = 0, g = 0; i < s->n; i++) {
		while (g < ng && gone[g].pblk < s->v[i].pblk)
			g++;
		if (g < ng && gone[g].pblk == s->v[i].pblk)
			continue;
		s->v[kept++] = s->v[i];
	}
	s->n = kept;
	atomic_store(&s->count, s->n);
	pthread_mutex_unlock(&s->lock);
	free(gone);
}

/* Add @n blocks (sorted) to the set; those already in it stay once. */
static int set_add(struct loss_set *s, const struct lost_block *b, size_t n)
{
	if (!n)
		return 0; /* b may be NULL; nothing to sort */
	pthread_mutex_lock(&s->lock);
	if (s->n + n > s->cap) {
		size_t cap = s->n + n + 64;
		void *g = realloc(s->v, cap * sizeof(*s->v));
		if (!g) {
			pthread_mutex_unlock(&s->lock);
			return -ENOMEM;
		}
		s->v = g;
		s->cap = cap;
	}
	/* Durable before it is reported: a crash must not give it back. */
	int r = log_append(s->log_fd, b, n, false);
	if (r) {
		pthread_mutex_unlock(&s->lock);
		return r;
	}
	size_t had = s->n;
	for (size_t i = 0; i < n; i++) {
		struct lost_block *old =
		    bsearch(&b[i], s->v, had, sizeof(*s->v), cmp_lost);
		if (old)
			*old = b[i];
		else
			s->v[s->n++] = b[i];
	}
	qsort(s->v, s->n, sizeof(*s->v), cmp_lost);
	atomic_store(&s->count, s->n);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

bool loss_has(struct fs *fs, uint64_t pblk, uint64_t xxh3)
{
	struct loss_set *s = fs->lost;
	if (!s || !atomic_load_explicit(&s->count, memory_order_acquire))
		return false;
	struct lost_block key = {pblk, 0};
	pthread_mutex_lock(&s->lock);
	const struct lost_block *b =
	    bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_lost);
	bool lost = b && b->xxh3 == xxh3;
	pthread_mutex_unlock(&s->lock);
	return lost;
}

/* Append to @out (growing it) those of the @n blocks @p that hold data,
 * with their XXH3. */
static int held(struct fs *fs, MDB_txn *txn, const uint64_t *p, size_t n,
		struct lost_block **out, size_t *nout, size_t *cap)
{
	for (size_t i = 0; i < n; i++) {
		struct ms_block b;
		if (dedupe_block_get(fs->ms, txn, p[i], &b) || !b.refs)
			continue; /* freed since */
		if (*nout == *cap) {
			size_t c = *cap ? 2 * *cap : 256;
			void *g = realloc(*out, c * sizeof(**out));
			if (!g)
				return -ENOMEM;
			*out = g;
			*cap = c;
		}
		(*out)[(*nout)++] = (struct lost_block){p[i], b.xxh3};
	}
	return 0;
}

/* Append to @out (growing it) the stored blocks among [first, first+n)
 * that loss event @loss lost. */
static int scan_batch(struct fs *fs, MDB_txn *txn, unsigned loss,
		      uint64_t first, size_t n, struct lost_block **out,
		      size_t *nout, size_t *cap)
{
	uint64_t p[BATCH];
	for (size_t i = 0; i < n; i++)
		p[i] = first + i;
	size_t k = array_lost_filter(fs->array, loss, p, n);
	return held(fs, txn, p, k, out, nout, cap);
}

/* Report @n lost blocks @b as of @txn; events with @cause unless NULL. */
static int report(struct fs *fs, MDB_txn *txn, const struct lost_block *b,
		  size_t n, const char *cause, FILE *out)
{
	uint64_t *p = malloc((n ? n : 1) * sizeof(*p)), refs = 0;
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		p[i] = b[i].pblk;
	int r = bitrot_report(fs, txn, p, n, cause, out, &refs);
	free(p);
	if (!r)
		fprintf(out, "lost %zu blocks referenced %llu times\n", n,
			(unsigned long long)refs);
	if (!r && cause)
		events_emit(fs->events, "data_loss",
			    "\"blocks\":%zu,\"refs\":%llu,\"cause\":\"%s\"", n,
			    (unsigned long long)refs, cause);
	return r;
}

/* After @r (0 so far): add the @n lost blocks @lost (sorted) to the set
 * and report them with @cause; end @txn, free @lost. */
static int take(struct fs *fs, MDB_txn *txn, int r, struct lost_block *lost,
		size_t n, const char *cause, FILE *out, char *err,
		size_t errlen)
{
	if (!r)
		r = set_add(fs->lost, lost, n);
	if (!r)
		r = report(fs, txn, lost, n, cause, out);
	if (txn)
		metastore_txn_abort(txn);
	free(lost);
	if (r)
		snprintf(err, errlen, "data loss report: %s", strerror(-r));
	return r;
}

int loss_record(struct fs *fs, unsigned loss, FILE *out, char *err,
		size_t errlen)
{
	MDB_txn *txn = NULL;
	struct ms_counters c = {0};
	struct lost_block *lost = NULL;
	size_t n = 0, cap = 0;
	int r = metastore_txn_begin(fs->ms, false, &txn);
	if (!r)
		r = metastore_counters_get(fs->ms, txn, &c);
	for (uint64_t p = 1; !r && p < c.next_pblk; p += BATCH) {
		size_t k = c.next_pblk - p < BATCH ? c.next_pblk - p : BATCH;
		r = scan_batch(fs, txn, loss, p, k, &lost, &n, &cap);
	}
	return take(fs, txn, r, lost, n, "drives", out, err, errlen);
}

int loss_cache_device(struct fs *fs, FILE *out, char *err, size_t errlen)
{
	uint64_t *dirty;
	size_t ndirty, n = 0, cap = 0;
	bool mirrored;
	int r = array_cache_fail(fs->array, &dirty, &ndirty, &mirrored);
	if (r == -ENOTSUP) {
		snprintf(err, errlen,
			 "cache-device: this mount has no flash cache (a "
			 "hybrid --profile with a cache tier)");
		return r;
	}
	if (!r && mirrored) {
		fprintf(out,
			"cache device failed: %zu dirty blocks kept (the "
			"cache is mirrored); the cache restarts empty\n",
			ndirty);
		events_emit(fs->events, "cache_device",
			    "\"dirty\":%zu,\"mirrored\":true", ndirty);
		free(dirty);
		return 0;
	}
	MDB_txn *txn = NULL;
	struct lost_block *lost = NULL;
	if (!r)
		r = metastore_txn_begin(fs->ms, false, &txn);
	if (!r)
		r = held(fs, txn, dirty, ndirty, &lost, &n, &cap);
	free(dirty);
	if (!r) {
		if (n)
			qsort(lost, n, sizeof(*lost), cmp_lost);
		events_emit(fs->events, "cache_device",
			    "\"dirty\":%zu,\"mirrored\":false", ndirty);
	}
	return take(fs, txn, r, lost, n, "cache-device", out, err, errlen);
}

int loss_list(struct fs *fs, FILE *out)
{
	struct loss_set *s = fs->lost;
	if (!s || !atomic_load(&s->count))
		return 0;
	pthread_mutex_lock(&s->lock);
	size_t n = s->n;
	struct lost_block *copy = malloc(n * sizeof(*copy));
	if (copy)
		memcpy(copy, s->v, n * sizeof(*copy));
	pthread_mutex_unlock(&s->lock);
	if (!copy)
		return -ENOMEM;
	MDB_txn *txn;
	int r = metastore_txn_begin(fs->ms, false, &txn);
	if (!r) {
		r = report(fs, txn, copy, n, NULL, out);
		metastore_txn_abort(txn);
	}
	free(copy);
	return r;
}
