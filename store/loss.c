/* The blocks the array model lost, and their report; see store/loss.h.
 *
 * The model knows where blocks are (placement) and which drives were gone
 * when; the store knows which blocks hold data and who references them.
 * A loss event is resolved here once, at the fault: every stored block
 * is asked of the model, and those lost are kept with their XXH3, so a
 * read can refuse them without asking the model again.
 *
 * The set outlives the mount, as the loss would on the array: it is
 * logged to STORE/lost.blocks (store/loss_log.h) before it is reported, and
 * read back at the next mount, less the blocks that no longer hold the
 * bytes that were lost; the log is rewritten compact when that or its
 * own history leaves it longer than the set. A block freed by a
 * committed transaction leaves the set, logged as forgotten.
 */
#include "store/loss.h"

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
#include "store/bitrot.h"
#include "store/loss_log.h"
#include "store/store_i.h"

#define BATCH 4096

struct loss_set {
	pthread_mutex_t lock;
	struct loss_rec *v; /* sorted by pblk */
	size_t n, cap;
	atomic_size_t count; /* n, read without the lock */
	int log_fd;	     /* STORE/lost.blocks, appended under lock */
};

static int cmp_lost(const void *a, const void *b)
{
	const struct loss_rec *x = a, *y = b;
	return (x->pblk > y->pblk) - (x->pblk < y->pblk);
}

/* Keep the entries whose block still holds the bytes that were lost. */
static int keep_held(struct store *st, struct loss_set *s)
{
	MDB_txn *txn;
	int r = metastore_txn_begin(st->ms, false, &txn);
	if (r)
		return r;
	size_t kept = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct ms_block b;
		if (dedupe_block_get(st->ms, txn, s->v[i].pblk, &b) == 0 &&
		    b.refs && b.xxh3 == s->v[i].xxh3)
			s->v[kept++] = s->v[i];
	}
	metastore_txn_abort(txn);
	s->n = kept;
	return 0;
}

/* Read the log at @path (created when missing) into @s: the blocks it
 * calls lost that still hold those bytes. Compact it when it holds more
 * than that, and keep it open for appends. */
static int log_load(struct store *st, struct loss_set *s, const char *path,
		    char *err, size_t errlen)
{
	char *buf;
	size_t len;
	bool exact = false;
	int r = loss_log_read(path, &buf, &len);
	if (!r)
		r = loss_log_parse(buf, len, &s->v, &s->n, &exact);
	free(buf);
	s->cap = s->n;
	if (r == -EBADMSG)
		snprintf(err, errlen,
			 "%s: not a lost-blocks log (no ARSLOST1 magic); move "
			 "it away to forget the blocks it lists",
			 path);
	size_t logged = s->n;
	if (!r)
		r = keep_held(st, s);
	if (r)
		return r;
	if (!exact || s->n != logged)
		return loss_log_rewrite(path, s->v, s->n, &s->log_fd);
	s->log_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	return s->log_fd < 0 ? -errno : 0;
}

int loss_open(struct store *st, const char *path, char *err, size_t errlen)
{
	struct loss_set *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->log_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	st->lost = s;
	err[0] = '\0';
	int r = log_load(st, s, path, err, errlen);
	if (r && !err[0])
		snprintf(err, errlen, "%s: %s", path, strerror(-r));
	if (r)
		loss_close(st);
	else
		atomic_store(&s->count, s->n);
	return r;
}

void loss_close(struct store *st)
{
	if (!st->lost)
		return;
	if (st->lost->log_fd >= 0)
		close(st->lost->log_fd);
	pthread_mutex_destroy(&st->lost->lock);
	free(st->lost->v);
	free(st->lost);
	st->lost = NULL;
}

bool loss_any(struct store *st)
{
	return st->lost &&
	       atomic_load_explicit(&st->lost->count, memory_order_acquire);
}

void loss_forget(struct store *st, const uint64_t *pblk, size_t n)
{
	struct loss_set *s = st->lost;
	if (!s || !n || !atomic_load_explicit(&s->count, memory_order_acquire))
		return;
	struct loss_rec *gone = malloc(n * sizeof(*gone));
	if (!gone) {
		/* Kept: it only refuses the same bytes at the same number. */
		log_error("loss", "out of memory forgetting %zu freed blocks",
			  n);
		return;
	}
	pthread_mutex_lock(&s->lock);
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		struct loss_rec key = {pblk[i], 0};
		struct loss_rec *b =
		    bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_lost);
		if (b)
			gone[ng++] = *b;
	}
	/* One record each, one sync for all. Should they not make it, the
	 * next mount still drops the entries unless the numbers hold the
	 * same bytes again. */
	if (ng && loss_log_append(s->log_fd, gone, ng, true))
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
static int set_add(struct loss_set *s, const struct loss_rec *b, size_t n)
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
	int r = loss_log_append(s->log_fd, b, n, false);
	if (r) {
		pthread_mutex_unlock(&s->lock);
		return r;
	}
	size_t had = s->n;
	for (size_t i = 0; i < n; i++) {
		struct loss_rec *old =
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

bool loss_has(struct store *st, uint64_t pblk, uint64_t xxh3)
{
	struct loss_set *s = st->lost;
	if (!s || !atomic_load_explicit(&s->count, memory_order_acquire))
		return false;
	struct loss_rec key = {pblk, 0};
	pthread_mutex_lock(&s->lock);
	const struct loss_rec *b =
	    bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_lost);
	bool lost = b && b->xxh3 == xxh3;
	pthread_mutex_unlock(&s->lock);
	return lost;
}

/* Append to @out (growing it) those of the @n blocks @p that hold data,
 * with their XXH3. */
static int held(struct store *st, MDB_txn *txn, const uint64_t *p, size_t n,
		struct loss_rec **out, size_t *nout, size_t *cap)
{
	for (size_t i = 0; i < n; i++) {
		struct ms_block b;
		if (dedupe_block_get(st->ms, txn, p[i], &b) || !b.refs)
			continue; /* freed since */
		if (*nout == *cap) {
			size_t c = *cap ? 2 * *cap : 256;
			void *g = realloc(*out, c * sizeof(**out));
			if (!g)
				return -ENOMEM;
			*out = g;
			*cap = c;
		}
		(*out)[(*nout)++] = (struct loss_rec){p[i], b.xxh3};
	}
	return 0;
}

/* Append to @out (growing it) the stored blocks among [first, first+n)
 * that loss event @loss lost. */
static int scan_batch(struct store *st, MDB_txn *txn, unsigned loss,
		      uint64_t first, size_t n, struct loss_rec **out,
		      size_t *nout, size_t *cap)
{
	uint64_t p[BATCH];
	for (size_t i = 0; i < n; i++)
		p[i] = first + i;
	size_t k = array_lost_filter(st->array, loss, p, n);
	return held(st, txn, p, k, out, nout, cap);
}

/* Report @n lost blocks @b as of @txn; events with @cause unless NULL. */
static int report(struct store *st, MDB_txn *txn, const struct loss_rec *b,
		  size_t n, const char *cause, FILE *out)
{
	uint64_t *p = malloc((n ? n : 1) * sizeof(*p)), refs = 0;
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		p[i] = b[i].pblk;
	int r = bitrot_report(st, txn, p, n, cause, out, &refs);
	free(p);
	if (!r)
		fprintf(out, "lost %zu blocks referenced %llu times\n", n,
			(unsigned long long)refs);
	if (!r && cause)
		events_emit(st->events, "data_loss",
			    "\"blocks\":%zu,\"refs\":%llu,\"cause\":\"%s\"", n,
			    (unsigned long long)refs, cause);
	return r;
}

/* After @r (0 so far): add the @n lost blocks @lost (sorted) to the set
 * and report them with @cause; end @txn, free @lost. */
static int take(struct store *st, MDB_txn *txn, int r, struct loss_rec *lost,
		size_t n, const char *cause, FILE *out, char *err,
		size_t errlen)
{
	if (!r)
		r = set_add(st->lost, lost, n);
	if (!r)
		r = report(st, txn, lost, n, cause, out);
	if (txn)
		metastore_txn_abort(txn);
	free(lost);
	if (r)
		snprintf(err, errlen, "data loss report: %s", strerror(-r));
	return r;
}

int loss_add_event(struct store *st, unsigned loss, FILE *out, char *err,
		   size_t errlen)
{
	MDB_txn *txn = NULL;
	struct ms_counters c = {0};
	struct loss_rec *lost = NULL;
	size_t n = 0, cap = 0;
	int r = metastore_txn_begin(st->ms, false, &txn);
	if (!r)
		r = metastore_counters_get(st->ms, txn, &c);
	for (uint64_t p = 1; !r && p < c.next_pblk; p += BATCH) {
		size_t k = c.next_pblk - p < BATCH ? c.next_pblk - p : BATCH;
		r = scan_batch(st, txn, loss, p, k, &lost, &n, &cap);
	}
	return take(st, txn, r, lost, n, "drives", out, err, errlen);
}

int loss_cache_device(struct store *st, FILE *out, char *err, size_t errlen)
{
	uint64_t *dirty;
	size_t ndirty, n = 0, cap = 0;
	bool mirrored;
	int r = array_cache_fail(st->array, &dirty, &ndirty, &mirrored);
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
		events_emit(st->events, "cache_device",
			    "\"dirty\":%zu,\"mirrored\":true", ndirty);
		free(dirty);
		return 0;
	}
	MDB_txn *txn = NULL;
	struct loss_rec *lost = NULL;
	if (!r)
		r = metastore_txn_begin(st->ms, false, &txn);
	if (!r)
		r = held(st, txn, dirty, ndirty, &lost, &n, &cap);
	free(dirty);
	if (!r) {
		if (n)
			qsort(lost, n, sizeof(*lost), cmp_lost);
		events_emit(st->events, "cache_device",
			    "\"dirty\":%zu,\"mirrored\":false", ndirty);
	}
	return take(st, txn, r, lost, n, "cache-device", out, err, errlen);
}

int loss_list(struct store *st, FILE *out)
{
	struct loss_set *s = st->lost;
	if (!s || !atomic_load(&s->count))
		return 0;
	pthread_mutex_lock(&s->lock);
	size_t n = s->n;
	struct loss_rec *copy = malloc(n * sizeof(*copy));
	if (copy)
		memcpy(copy, s->v, n * sizeof(*copy));
	pthread_mutex_unlock(&s->lock);
	if (!copy)
		return -ENOMEM;
	MDB_txn *txn;
	int r = metastore_txn_begin(st->ms, false, &txn);
	if (!r) {
		r = report(st, txn, copy, n, NULL, out);
		metastore_txn_abort(txn);
	}
	free(copy);
	return r;
}
