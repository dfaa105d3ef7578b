/* Record checksums ("seals", meta/metastore.h): every record that can send
 * a read somewhere ends in a 32-bit check of its table, key and value, so
 * that a damaged byte is an EIO to the one read it would have misled, not
 * a hole or another file's block. */
#include "meta/metastore.h"
#include "meta/metastore_i.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/log.h"

bool ms_table_sealed(enum ms_table t)
{
	/* Keys only, and each checked against a sealed record before it is
	 * acted on (see meta/metastore.h). */
	return t != MS_FREEMAP && t != MS_PENDING && t != MS_ORPHANS;
}

uint32_t ms_seal_of(enum ms_table t, const MDB_val *k, const void *val,
		    size_t len)
{
	uint64_t h = XXH3_64bits_withSeed(k->mv_data, k->mv_size, t + 1u);
	h = XXH3_64bits_withSeed(val, len, h);
	return (uint32_t)(h ^ (h >> 32));
}

void ms_seal(enum ms_table t, const MDB_val *k, void *val, size_t size)
{
	uint32_t s = ms_seal_of(t, k, val, size - MS_SEAL_LEN);
	memcpy((uint8_t *)val + size - MS_SEAL_LEN, &s, MS_SEAL_LEN);
}

bool ms_sealed(enum ms_table t, const MDB_val *k, const MDB_val *v)
{
	if (v->mv_size < MS_SEAL_LEN)
		return false;
	size_t len = v->mv_size - MS_SEAL_LEN;
	uint32_t s;
	memcpy(&s, (const uint8_t *)v->mv_data + len, MS_SEAL_LEN);
	return s == ms_seal_of(t, k, v->mv_data, len);
}

/* What a record's key names, for the one log line of its damage. */
static void describe(enum ms_table t, const MDB_val *k, uint64_t ino,
		     uint64_t off, char *buf, size_t len)
{
	const uint8_t *p = k->mv_data;
	uint64_t n = 0;
	if (ino != MS_NO_INO && t == MS_BLOCKS && k->mv_size == 8) {
		memcpy(&n, p, 8);
		snprintf(buf, len,
			 "blocks %llu..%llu, read at inode %llu "
			 "offset %llu",
			 (unsigned long long)(n * MS_BLOCK_EXTENT),
			 (unsigned long long)(n * MS_BLOCK_EXTENT +
					      MS_BLOCK_EXTENT - 1),
			 (unsigned long long)ino, (unsigned long long)off);
		return;
	}
	if (ino != MS_NO_INO) {
		if (off != MS_NO_INO)
			snprintf(buf, len, "inode %llu offset %llu",
				 (unsigned long long)ino,
				 (unsigned long long)off);
		else
			snprintf(buf, len, "inode %llu",
				 (unsigned long long)ino);
		return;
	}
	if (k->mv_size == 8)
		memcpy(&n, p, 8);
	switch (t) {
	case MS_BMAP:
		if (k->mv_size == 16) {
			snprintf(buf, len, "inode %llu offset %llu",
				 (unsigned long long)ms_get_be64(p),
				 (unsigned long long)(ms_get_be64(p + 8) *
						      BMAP_EXTENT_BLOCKS *
						      BLOCK_BYTES));
			return;
		}
		break;
	case MS_DIRNAMES:
	case MS_DIRCOOKIES:
	case MS_XATTRS:
		if (k->mv_size >= 8) {
			snprintf(buf, len, "inode %llu",
				 (unsigned long long)ms_get_be64(p));
			return;
		}
		break;
	case MS_INODES:
	case MS_SYMLINKS:
		snprintf(buf, len, "inode %llu", (unsigned long long)n);
		return;
	case MS_BLOCKS:
		snprintf(buf, len, "blocks %llu..%llu",
			 (unsigned long long)(n * MS_BLOCK_EXTENT),
			 (unsigned long long)(n * MS_BLOCK_EXTENT +
					      MS_BLOCK_EXTENT - 1));
		return;
	default:
		break;
	}
	snprintf(buf, len, "a %zu-byte key", k->mv_size);
}

void ms_record_name(enum ms_table t, const MDB_val *k, char *buf, size_t len)
{
	describe(t, k, MS_NO_INO, MS_NO_INO, buf, len);
}

/* Seen before in this mount? A damaged record is logged once, however
 * often it is read (each read is still counted). */
static bool seen(struct ms_damage *d, enum ms_table t, const MDB_val *k)
{
	uint64_t h = XXH3_64bits_withSeed(k->mv_data, k->mv_size, t + 1u);
	pthread_mutex_lock(&d->lock);
	bool found = false;
	for (unsigned i = 0; i < MS_DAMAGE_SEEN && !found; i++)
		found = d->seen[i] == h;
	if (!found)
		d->seen[d->nseen++ % MS_DAMAGE_SEEN] = h;
	pthread_mutex_unlock(&d->lock);
	return found;
}

int metastore_damaged(const struct metastore *ms, enum ms_table t,
		      const MDB_val *k, uint64_t ino, uint64_t off)
{
	return metastore_damaged_why(ms, t, k, ino, off, "fails its checksum");
}

int metastore_damaged_why(const struct metastore *ms, enum ms_table t,
			  const MDB_val *k, uint64_t ino, uint64_t off,
			  const char *why)
{
	struct ms_damage *d = ms->damage;
	atomic_fetch_add_explicit(&d->count, 1, memory_order_relaxed);
	_Atomic uint64_t *sink = atomic_load(&d->sink);
	if (sink)
		atomic_fetch_add_explicit(sink, 1, memory_order_relaxed);
	if (!seen(d, t, k)) {
		char what[128];
		describe(t, k, ino, off, what, sizeof(what));
		log_error("metastore",
			  "metadata damaged: %s record of %s %s; reads "
			  "through it are EIO",
			  metastore_table_name(t), what, why);
	}
	return -EIO;
}

void metastore_count_damage(struct metastore *ms, _Atomic uint64_t *counter)
{
	atomic_store(&ms->damage->sink, counter);
}

uint64_t metastore_damage_count(const struct metastore *ms)
{
	return atomic_load(&ms->damage->count);
}

int metastore_get_sealed(const struct metastore *ms, MDB_txn *txn,
			 enum ms_table t, MDB_val *key, void *out, size_t size)
{
	MDB_val v;
	int rc = mdb_get(txn, ms->dbi[t], key, &v);
	if (rc)
		return metastore_errno(rc);
	if (v.mv_size != size + MS_SEAL_LEN || !ms_sealed(t, key, &v))
		return metastore_damaged(ms, t, key, MS_NO_INO, MS_NO_INO);
	memcpy(out, v.mv_data, size);
	return 0;
}

int metastore_put_sealed(const struct metastore *ms, MDB_txn *txn,
			 enum ms_table t, MDB_val *key, const void *in,
			 size_t size, unsigned flags)
{
	uint8_t stack[256];
	uint8_t *buf = size + MS_SEAL_LEN <= sizeof(stack)
			   ? stack
			   : malloc(size + MS_SEAL_LEN);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, in, size);
	ms_seal(t, key, buf, size + MS_SEAL_LEN);
	MDB_val v = {size + MS_SEAL_LEN, buf};
	int rc = mdb_put(txn, ms->dbi[t], key, &v, flags);
	if (buf != stack)
		free(buf);
	return metastore_errno(rc);
}
