/* dedupe-scan's in-memory fingerprint index (see scan_index.h). */
#include "dedupe/scan_index.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SHARDS 256
#define MIN_CAP 16u /* slots a shard starts with */

struct shard {
	pthread_mutex_t lock;
	struct scan_entry *slot;
	uint64_t cap; /* power of two */
	uint64_t used;
	unsigned shift; /* the sampling shift this shard's entries obey */
} __attribute__((aligned(64)));

struct scan_index {
	struct shard shard[SHARDS];
	_Atomic unsigned shift;
	uint64_t max_cap; /* slots a shard may have; 0: no bound */
	_Atomic uint64_t bytes, peak;
};

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* The bits that pick a slot and the bits that decide the sample are
 * different parts of the digest, so sampling does not cluster slots. */
static uint64_t slot_hash(const uint8_t *sha1)
{
	return load64(sha1 + 4);
}

static bool sampled(const uint8_t *sha1, unsigned shift)
{
	return shift == 0 || load64(sha1 + 12) >> (64 - shift) == 0;
}

uint64_t scan_index_min_bytes(void)
{
	return (uint64_t)SHARDS * MIN_CAP * 2 * SCAN_ENTRY_BYTES;
}

/* A zeroed table, its pages written before use. calloc would leave fresh
 * pages mapped to the shared zero page; the first store into each then
 * flushes the TLB of every core (an IPI a page: 3-5% of a scan of /usr).
 * explicit_bzero, as the compiler turns malloc + memset into calloc. */
static struct scan_entry *table_alloc(uint64_t cap)
{
	struct scan_entry *t = malloc(cap * sizeof(*t));
	if (t)
		explicit_bzero(t, cap * sizeof(*t));
	return t;
}

static void account(struct scan_index *ix, int64_t delta)
{
	uint64_t now =
	    atomic_fetch_add(&ix->bytes, (uint64_t)delta) + (uint64_t)delta;
	uint64_t peak = atomic_load(&ix->peak);
	while (now > peak &&
	       !atomic_compare_exchange_weak(&ix->peak, &peak, now))
		;
}

struct scan_index *scan_index_new(uint64_t max_bytes)
{
	if (max_bytes && max_bytes < scan_index_min_bytes())
		return NULL;
	struct scan_index *ix = aligned_alloc(64, sizeof(*ix));
	if (!ix)
		return NULL;
	memset(ix, 0, sizeof(*ix));
	if (max_bytes) {
		uint64_t cap = MIN_CAP;
		while (cap * 2 * SHARDS * SCAN_ENTRY_BYTES <= max_bytes)
			cap *= 2;
		ix->max_cap = cap;
	}
	for (int i = 0; i < SHARDS; i++) {
		struct shard *s = &ix->shard[i];
		pthread_mutex_init(&s->lock, NULL);
		s->cap = MIN_CAP;
		s->slot = table_alloc(MIN_CAP);
		if (!s->slot) {
			scan_index_free(ix);
			return NULL;
		}
	}
	account(ix, (int64_t)(SHARDS * MIN_CAP * SCAN_ENTRY_BYTES));
	return ix;
}

void scan_index_free(struct scan_index *ix)
{
	if (!ix)
		return;
	for (int i = 0; i < SHARDS; i++) {
		free(ix->shard[i].slot);
		pthread_mutex_destroy(&ix->shard[i].lock);
	}
	free(ix);
}

static struct scan_entry *probe(struct scan_entry *slot, uint64_t cap,
				const uint8_t *sha1)
{
	uint64_t i = slot_hash(sha1) & (cap - 1);
	while (slot[i].refs && memcmp(slot[i].sha1, sha1, FINGERPRINT_SHA1_LEN))
		i = (i + 1) & (cap - 1);
	return &slot[i];
}

/* Move the entries that @shift still keeps into a table of @cap slots. */
static int rebuild(struct scan_index *ix, struct shard *s, uint64_t cap,
		   unsigned shift)
{
	struct scan_entry *n = table_alloc(cap);
	if (!n)
		return -ENOMEM;
	account(ix, (int64_t)(cap * SCAN_ENTRY_BYTES));
	uint64_t used = 0;
	for (uint64_t i = 0; i < s->cap; i++) {
		const struct scan_entry *e = &s->slot[i];
		if (!e->refs || !sampled(e->sha1, shift))
			continue;
		*probe(n, cap, e->sha1) = *e;
		used++;
	}
	account(ix, -(int64_t)(s->cap * SCAN_ENTRY_BYTES));
	free(s->slot);
	s->slot = n;
	s->cap = cap;
	s->used = used;
	s->shift = shift;
	return 0;
}

/* Bring a shard to the index-wide shift (another shard may have raised
 * it); the table keeps its size. */
static int catch_up(struct scan_index *ix, struct shard *s)
{
	unsigned g = atomic_load(&ix->shift);
	return s->shift < g ? rebuild(ix, s, s->cap, g) : 0;
}

/* Room for one more entry: grow, or past the bound, sample harder. */
static int make_room(struct scan_index *ix, struct shard *s)
{
	while ((s->used + 1) * 4 > s->cap * 3) {
		int r;
		if (!ix->max_cap || s->cap * 2 <= ix->max_cap) {
			r = rebuild(ix, s, s->cap * 2, s->shift);
		} else {
			unsigned want = s->shift + 1,
				 g = atomic_load(&ix->shift);
			while (g < want && !atomic_compare_exchange_weak(
					       &ix->shift, &g, want))
				;
			r = catch_up(ix, s);
		}
		if (r)
			return r;
	}
	return 0;
}

int scan_index_add(struct scan_index *ix, const uint8_t *sha1)
{
	struct shard *s = &ix->shard[sha1[0]];
	int r;
	pthread_mutex_lock(&s->lock);
	r = catch_up(ix, s);
	if (r)
		goto out;
	r = SCAN_ADD_UNSAMPLED;
	if (!sampled(sha1, s->shift))
		goto out;
	struct scan_entry *e = probe(s->slot, s->cap, sha1);
	if (e->refs) {
		if (e->refs < UINT32_MAX)
			e->refs++;
		r = SCAN_ADD_DUP;
		goto out;
	}
	r = make_room(ix, s);
	if (r)
		goto out;
	r = SCAN_ADD_UNSAMPLED; /* make_room may have raised the shift */
	if (!sampled(sha1, s->shift))
		goto out;
	e = probe(s->slot, s->cap, sha1);
	memcpy(e->sha1, sha1, FINGERPRINT_SHA1_LEN);
	e->refs = 1;
	e->csize = 0;
	s->used++;
	r = SCAN_ADD_NEW;
out:
	pthread_mutex_unlock(&s->lock);
	return r;
}

void scan_index_set_csize(struct scan_index *ix, const uint8_t *sha1,
			  uint32_t csize)
{
	struct shard *s = &ix->shard[sha1[0]];
	pthread_mutex_lock(&s->lock);
	struct scan_entry *e = probe(s->slot, s->cap, sha1);
	if (e->refs)
		e->csize = csize;
	pthread_mutex_unlock(&s->lock);
}

static unsigned hist_row(uint32_t refs)
{
	return 31u - (unsigned)__builtin_clz(refs);
}

void scan_index_summarize(struct scan_index *ix, struct scan_index_summary *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < SHARDS; i++) {
		struct shard *s = &ix->shard[i];
		/* Shards nobody touched since the last raise obey it now. */
		catch_up(ix, s);
		for (uint64_t j = 0; j < s->cap; j++) {
			const struct scan_entry *e = &s->slot[j];
			if (!e->refs)
				continue;
			struct scan_hist_row *h = &out->hist[hist_row(e->refs)];
			h->blocks++;
			h->refs += e->refs;
			h->csize += e->csize;
			h->ref_csize += (uint64_t)e->csize * e->refs;
			out->kept++;
			out->csize += e->csize;
		}
	}
	out->shift = atomic_load(&ix->shift);
	out->peak_bytes = atomic_load(&ix->peak);
}
