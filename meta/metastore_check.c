/* The bounded structural check a mount runs before it trusts a store
 * (metastore_check, meta/metastore.h): the schema of every table, the
 * counters, and the seals of a sample of records (the first and last
 * MS_CHECK_SAMPLE of each table) against what the counters say. It reads
 * O(tables x sample) records whatever the store's size; record damage
 * elsewhere is found by the read that meets it (EIO) or by fsck. */
#include "meta/metastore.h"
#include "meta/metastore_i.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define MS_CHECK_SAMPLE 32

struct sample {
	uint64_t last_key; /* the last u64 key (integer-keyed tables) */
	bool any;
};

/* Walk MS_CHECK_SAMPLE records from one end of table @t, checking their seals.
 */
static int sample_end(struct metastore *ms, MDB_txn *txn, enum ms_table t,
		      bool from_last, struct sample *s, char *what, size_t len)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, ms->dbi[t], &cur);
	if (rc)
		return metastore_errno(rc);
	/* In fpindex (DUPSORT) these step through the items. */
	MDB_cursor_op first = from_last ? MDB_LAST : MDB_FIRST;
	MDB_cursor_op next = from_last ? MDB_PREV : MDB_NEXT;
	MDB_val k, v;
	int r = 0, n = 0;
	for (rc = mdb_cursor_get(cur, &k, &v, first);
	     rc == 0 && n < MS_CHECK_SAMPLE && !r;
	     rc = mdb_cursor_get(cur, &k, &v, next), n++) {
		if (ms_table_sealed(t) && !ms_sealed(t, &k, &v)) {
			snprintf(what, len, "a %s record fails its checksum",
				 metastore_table_name(t));
			r = -EIO;
		}
		if (from_last && n == 0 && k.mv_size == 8) {
			memcpy(&s->last_key, k.mv_data, 8);
			s->any = true;
		}
	}
	mdb_cursor_close(cur);
	if (!r && rc && rc != MDB_NOTFOUND) {
		snprintf(what, len, "table %s is unreadable (%s)",
			 metastore_table_name(t), mdb_strerror(rc));
		r = -EIO;
	}
	return r;
}

static int check_schema(struct metastore *ms, MDB_txn *txn, char *what,
			size_t len)
{
	for (int t = 0; t < MS_NTABLES; t++) {
		unsigned fl;
		if (mdb_dbi_flags(txn, ms->dbi[t], &fl) ||
		    fl != metastore_table_flags(t)) {
			snprintf(what, len, "table %s has the wrong schema",
				 metastore_table_name(t));
			return -EIO;
		}
	}
	return 0;
}

/* What the counters promise of the sampled tables' last keys. */
static int check_counters(const struct ms_counters *c,
			  const struct sample s[MS_NTABLES], char *what,
			  size_t len)
{
	const char *bad = NULL;
	if (s[MS_INODES].any && s[MS_INODES].last_key >= c->next_ino)
		bad = "next_ino is below a stored inode";
	else if (s[MS_BLOCKS].any &&
		 s[MS_BLOCKS].last_key * MS_BLOCK_EXTENT >= c->next_pblk)
		bad = "next_pblk is below a stored block";
	else if ((s[MS_FREEMAP].any &&
		  s[MS_FREEMAP].last_key >= c->next_pblk) ||
		 (s[MS_PENDING].any && s[MS_PENDING].last_key >= c->next_pblk))
		bad = "next_pblk is below a free block";
	else if (c->unique_blocks >= (c->next_pblk ? c->next_pblk : 1) ||
		 c->unique_blocks > c->live_blocks)
		bad = "the block counts disagree";
	else if (s[MS_INODES].any && !c->inodes)
		bad = "no inodes counted, but some are stored";
	if (!bad)
		return 0;
	snprintf(what, len, "the counters do not fit the tables (%s)", bad);
	return -EIO;
}

int metastore_check(struct metastore *ms, char *err, size_t errlen)
{
	MDB_txn *txn;
	int r = metastore_txn_begin(ms, false, &txn);
	if (r) {
		snprintf(err, errlen, "store %s: metadata: %s", ms->dir,
			 strerror(-r));
		return r;
	}
	char what[160] = "";
	struct sample s[MS_NTABLES] = {{0}};
	struct ms_counters c;
	r = check_schema(ms, txn, what, sizeof(what));
	if (!r && metastore_counters_get(ms, txn, &c)) {
		snprintf(what, sizeof(what),
			 "the counters record is missing or fails its "
			 "checksum");
		r = -EIO;
	}
	for (int t = 0; t < MS_NTABLES && !r; t++) {
		r = sample_end(ms, txn, t, false, &s[t], what, sizeof(what));
		if (!r)
			r = sample_end(ms, txn, t, true, &s[t], what,
				       sizeof(what));
	}
	if (!r)
		r = check_counters(&c, s, what, sizeof(what));
	metastore_txn_abort(txn);
	if (r)
		snprintf(err, errlen,
			 "store %s: metadata is damaged: %s (see arraysim fsck "
			 "--store %s)",
			 ms->dir, what, ms->dir);
	return r;
}
