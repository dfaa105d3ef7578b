/* fsck of the compressed sizes (dedupe/csize.h): every size belongs to a
 * stored block and is 1..4096, and the total is their sum. After
 * fsck_check_blocks (it marks the stored blocks FSCK_USED). */
#include <stdio.h>
#include <string.h>

#include "common/block.h"
#include "dedupe/csize.h"
#include "tools/fsck_i.h"

struct sums {
	struct dedupe_csize_total sum, total;
	bool has_total;
};

static unsigned long long ull(uint64_t v)
{
	return (unsigned long long)v;
}

static void check_sizes(struct fsck *f, uint64_t first, const uint16_t *sizes,
			struct sums *s)
{
	for (unsigned i = 0; i < MS_BLOCK_EXTENT; i++) {
		uint64_t pblk = first + i;
		if (!sizes[i])
			continue;
		if (sizes[i] > BLOCK_BYTES)
			fsck_problem(f,
				     "block %llu: compressed size %u past a "
				     "block",
				     ull(pblk), sizes[i]);
		if (pblk >= f->npblk || !(f->state[pblk] & FSCK_USED))
			fsck_problem(f,
				     "block %llu: has a compressed size, but "
				     "is not stored",
				     ull(pblk));
		s->sum.bytes += sizes[i];
		s->sum.blocks++;
	}
}

/* One record from "csize:" on; 1 past the last size record. */
static int one_record(struct fsck *f, const MDB_val *k, const MDB_val *v,
		      struct sums *s)
{
	uint64_t first;
	uint16_t sizes[MS_BLOCK_EXTENT];
	struct dedupe_csize_total t;
	char what[128];
	switch (dedupe_csize_parse(k, v, &first, sizes, &t)) {
	case DEDUPE_CSIZE_OTHER:
		return 1;
	case DEDUPE_CSIZE_BROKEN:
		ms_record_name(MS_META, k, what, sizeof(what));
		fsck_problem(f, "meta: %s: not a compressed-size record", what);
		return 0;
	case DEDUPE_CSIZE_TOTAL:
		s->total = t;
		s->has_total = true;
		return 0;
	case DEDUPE_CSIZE_SIZES:
		check_sizes(f, first, sizes, s);
		return 0;
	}
	return 0;
}

static void check_total(struct fsck *f, const struct sums *s)
{
	if (!s->has_total && s->sum.blocks)
		fsck_problem(f, "meta: %llu compressed sizes, but no total",
			     ull(s->sum.blocks));
	else if (s->has_total && (s->total.bytes != s->sum.bytes ||
				  s->total.blocks != s->sum.blocks))
		fsck_problem(
		    f,
		    "meta: compressed total %llu bytes in %llu blocks, "
		    "but the sizes add up to %llu in %llu",
		    ull(s->total.bytes), ull(s->total.blocks),
		    ull(s->sum.bytes), ull(s->sum.blocks));
}

int fsck_check_csizes(struct fsck *f)
{
	MDB_cursor *cur;
	struct sums s = {0};
	int rc = mdb_cursor_open(f->txn, metastore_dbi(f->ms, MS_META), &cur);
	if (rc)
		return metastore_errno(rc);
	MDB_val k = {sizeof(DEDUPE_CSIZE_PREFIX) - 1, DEDUPE_CSIZE_PREFIX}, v;
	bool damaged = false;
	for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
	     rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
		if (!ms_sealed(MS_META, &k, &v)) {
			char what[128];
			ms_record_name(MS_META, &k, what, sizeof(what));
			fsck_problem(f,
				     "meta: record of %s fails its checksum "
				     "(damaged)",
				     what);
			damaged = true;
			continue;
		}
		if (one_record(f, &k, &v, &s))
			break;
	}
	mdb_cursor_close(cur);
	if (rc && rc != MDB_NOTFOUND)
		return metastore_errno(rc);
	if (!damaged)
		check_total(f, &s);
	return 0;
}
