/* Seals made once per transaction (meta/metastore.h, ms_seal_later).
 *
 * A record changed in place many times in one write transaction (a blocks
 * record holds 80 blocks' refs: a 1 MiB write changes one 256 times) was
 * sealed after every change: an XXH3 of 1284 bytes each time. Instead the
 * record is sealed at its first change in a transaction, as before (most
 * records change once: a 4 KiB write's), and noted here; a second change
 * leaves it to be sealed once, just before the commit. Until then its seal
 * may be stale, so the transaction's own reads of it ask ms_seal_pending
 * first (it was checked when first opened in the transaction, and no one
 * else writes it).
 *
 * The notes are the thread's: an LMDB write transaction lives on the
 * thread that began it. metastore_txn_begin clears them, commit seals them
 * and abort drops them, so nothing outlives its transaction.
 */
#include "meta/metastore.h"
#include "meta/metastore_i.h"

#include <stdbool.h>
#include <stdint.h>

/* Open addressing; half full at most, past that a caller seals at once. */
#define DEFER_SLOTS 1024u
#define DEFER_MAX (DEFER_SLOTS / 2)

static _Thread_local struct {
	MDB_txn *txn;
	const struct metastore *ms;
	unsigned n;
	uint16_t used[DEFER_MAX];   /* the slots taken, to clear and flush */
	uint64_t key1[DEFER_SLOTS]; /* key + 1; 0: free */
	uint8_t table[DEFER_SLOTS];
	bool stale[DEFER_SLOTS]; /* changed since its seal */
} d;

static unsigned slot_of(enum ms_table t, uint64_t key)
{
	uint64_t h = (key + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)t;
	return (unsigned)(h >> 54) % DEFER_SLOTS;
}

/* The slot of (@t, @key), or the free one where it would go. */
static unsigned find(enum ms_table t, uint64_t key)
{
	unsigned s = slot_of(t, key);
	while (d.key1[s] && (d.key1[s] != key + 1 || d.table[s] != t))
		s = (s + 1) % DEFER_SLOTS;
	return s;
}

static void drop_all(void)
{
	for (unsigned i = 0; i < d.n; i++)
		d.key1[d.used[i]] = 0;
	d.n = 0;
	d.txn = NULL;
	d.ms = NULL;
}

void ms_seal_drop(MDB_txn *txn)
{
	if (!txn || d.txn == txn)
		drop_all();
}

bool ms_seal_later(const struct metastore *ms, MDB_txn *txn, enum ms_table t,
		   uint64_t key)
{
	if (d.txn != txn) {
		drop_all();
		d.txn = txn;
		d.ms = ms;
	}
	unsigned s = find(t, key);
	if (d.key1[s])
		return d.stale[s] = true;
	if (d.n < DEFER_MAX && d.ms == ms) {
		d.key1[s] = key + 1;
		d.table[s] = (uint8_t)t;
		d.stale[s] = false;
		d.used[d.n++] = (uint16_t)s;
	}
	return false; /* the first change: sealed now */
}

bool ms_seal_pending(MDB_txn *txn, enum ms_table t, uint64_t key)
{
	return d.txn == txn && d.n && d.key1[find(t, key)];
}

/* Seal one noted record, in place; gone (deleted since) is fine. */
static int seal_one(MDB_txn *txn, enum ms_table t, uint64_t key)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, d.ms->dbi[t], &cur);
	if (rc)
		return metastore_errno(rc);
	MDB_val k = {sizeof(key), &key}, v;
	rc = mdb_cursor_get(cur, &k, &v, MDB_SET_KEY);
	if (rc == 0 && v.mv_size >= MS_SEAL_LEN)
		/* Same size, already written in this transaction: LMDB hands
		 * back the record in place. */
		rc = mdb_cursor_put(cur, &k, &v, MDB_CURRENT | MDB_RESERVE);
	if (rc == 0 && v.mv_size >= MS_SEAL_LEN)
		ms_seal(t, &k, v.mv_data, v.mv_size);
	mdb_cursor_close(cur);
	return rc == MDB_NOTFOUND ? 0 : metastore_errno(rc);
}

int ms_seal_flush(MDB_txn *txn)
{
	int r = 0;
	if (d.txn == txn)
		for (unsigned i = 0; i < d.n && !r; i++)
			if (d.stale[d.used[i]])
				r = seal_one(txn,
					     (enum ms_table)d.table[d.used[i]],
					     d.key1[d.used[i]] - 1);
	ms_seal_drop(txn);
	return r;
}
