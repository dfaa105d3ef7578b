/* The metadata store: one LMDB environment in STORE/meta, holding every
 * table of the datastore, so that one transaction changes the namespace,
 * the block maps, the fingerprint index, the refcounts and the free map
 * together or not at all.
 *
 *   table      key                       value (+ seal: see below)
 *   ---------  ------------------------  ---------------------------------
 *   meta       "format","counters"       struct ms_format, ms_counters
 *   inodes     ino (u64, native)         struct ms_inode
 *   dirnames   parent (BE) + name        struct ms_dirent_val
 *   dircookies parent (BE) + cookie (BE) ino (u64) + name (readdir order)
 *   symlinks   ino (u64, native)         target bytes
 *   xattrs     ino (BE) + name           value bytes
 *   bmap       ino (BE) + extent (BE)    64 pblks, 5 bytes BE each, 0=hole
 *   blocks     pblk / 80 (u64, native)   struct ms_block[80]: slot i is
 *                                        pblk key * 80 + i
 *   fpindex    one key (a 0 byte)        25-byte dups: sha1[0..16), pblk
 *                                        (5 bytes BE), seal; one a block
 *   freemap    pblk (u64, native)        empty: reusable now
 *   pending    pblk (u64, native)        empty: freed, reusable after sync
 *   orphans    ino (u64, native)         empty: nlink 0 still open, or a
 *                                        truncation in progress
 *
 * Seals (format 3): every value but freemap's, pending's and orphans' ends in
 * MS_SEAL_LEN bytes, XXH3-64 of (table, key, the value before it) folded
 * to 32 bits, checked on every read of the record (ms_sealed): a damaged
 * byte in a key or a value is an EIO to the read it would have misled,
 * counted in meta_checksum_errors and logged once (metastore_damaged),
 * never a hole or another file's block. 32 bits, not 64: a damaged
 * record passes one time in 4 billion, and the seal is paid per record:
 * 4 bytes per 64 blocks (bmap) or 80 (blocks) is nothing, but a fpindex
 * item is per block. Its seal takes the place of sha1[16..20): 128 bits
 * of SHA-1 name a block as well as 160 for dedupe (a match is still
 * compared byte for byte unless --dedupe-verify off, and a forged
 * collision costs about the same 2^63-64 either way), so an item stays 25
 * bytes and a block costs what it did in format 2. The three tables of
 * bare keys need none: a damaged freemap or pending key names a block
 * whose sealed `blocks` slot says refs > 0, which dedupe_block_new
 * refuses; a damaged orphans key names an inode that is either missing or
 * linked, and reaping checks the inode's nlink first. A hole is trusted only
 * when the file's extents add up to its inode's nblocks (store/blockmap.c
 * blockmap_holes_proven): a damaged page can lose an extent without
 * damaging any record LMDB still finds.
 *
 * Big-endian prefixes keep one file's or one directory's keys adjacent and
 * in order, so readdir and truncate are cursor walks. pblk 0 is never
 * allocated: it is the hole marker in bmap extents.
 *
 * What a store holds per unique block is packed, because it is most of
 * the metadata (about 6 + 17 + 36 bytes a block in pages, against ~100 as
 * one record per pblk and a 20-byte key per SHA-1):
 *
 *   bmap: extents of 64 blocks in 320 bytes (40-bit pblks), eleven to a
 *   page when a file grows at its end (appended, see store/blockmap.c).
 *
 *   blocks: one record per 80 consecutive pblks; refs == 0 marks a free
 *   slot, a missing record 80 free slots, and the record is deleted when
 *   its last slot empties. A slot keeps only sha1[0..4) (sha1_head):
 *   enough to find the block's fpindex item when it is freed.
 *
 *   fpindex: DUPSORT|DUPFIXED under a single key, so the items form one
 *   B-tree of packed pages (one key per SHA-1 byte would make a 1 MiB
 *   write touch up to 256 sub-trees: measured 15-30% slower). An item is
 *   sha1[0..16) + pblk + seal, sorted, so the blocks with one SHA-1 are
 *   adjacent, lowest pblk first. Random SHA-1s fill its pages to about 69%.
 *     lookup of sha1:  GET_BOTH_RANGE(0, sha1[0..16) + 9 zeros),
 *                      then NEXT_DUP while item[0..16) == sha1[0..16);
 *     unindex of pblk: GET_BOTH_RANGE(0, head[0..4) + 21 zeros),
 *                      then NEXT_DUP while item[0..4) == head, until
 *                      the item whose pblk is it.
 *
 * A freed block goes to `pending`, not `freemap`: its old contents may still
 * be what an older durable state of the store points at, so it is only
 * overwritten once a sync has made its freeing durable
 * (metastore_sync() moves pending to freemap).
 */
#ifndef ARRAYSIM_STORE_METASTORE_H
#define ARRAYSIM_STORE_METASTORE_H

#include <lmdb.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/block.h"

#define MS_FORMAT_VERSION 3 /* 3: sealed records */
/* A record's seal: the last bytes of its value (see the top). */
#define MS_SEAL_LEN 4u
/* A pblk on disk (fpindex items, bmap extents): 40 bits big-endian, so a
 * store holds up to 4 PiB of unique blocks. */
#define MS_PBLK_BYTES 5u
#define MS_PBLK_LIMIT (1ull << (8 * MS_PBLK_BYTES))
#define BMAP_EXTENT_BLOCKS 64u
#define MS_BMAP_PBLK_LEN (BMAP_EXTENT_BLOCKS * MS_PBLK_BYTES)
#define MS_BMAP_VALUE_LEN (MS_BMAP_PBLK_LEN + MS_SEAL_LEN)
/* Slots of one `blocks` record: 80 x 16 bytes and a seal, so that three
 * records (with LMDB's 18 bytes of node, key and index each) fill a 4 KiB
 * page to 94%; 64 slots left a quarter of every page empty. */
#define MS_BLOCK_EXTENT 80
#define MS_BLOCK_REC_LEN (MS_BLOCK_EXTENT * 16u + MS_SEAL_LEN)
/* The SHA-1 bytes a fpindex item keeps. */
#define MS_FP_SHA1_LEN 16u
#define MS_FP_ITEM_LEN (MS_FP_SHA1_LEN + MS_PBLK_BYTES + MS_SEAL_LEN)

enum ms_table {
	MS_META,
	MS_INODES,
	MS_DIRNAMES,
	MS_DIRCOOKIES,
	MS_SYMLINKS,
	MS_XATTRS,
	MS_BMAP,
	MS_BLOCKS,
	MS_FPINDEX,
	MS_FREEMAP,
	MS_PENDING,
	MS_ORPHANS,
	MS_NTABLES
};

/* meta["format"] (sealed from format 3 on; magic and version are read
 * first, so an older store is named as such) */
struct ms_format {
	uint32_t magic;	  /* MS_MAGIC */
	uint32_t version; /* MS_FORMAT_VERSION */
	uint32_t block_size;
	uint32_t reserved;
};
#define MS_MAGIC 0x41525259u /* "ARRY" */

/* meta["counters"]: gauges kept exact inside every transaction. */
struct ms_counters {
	uint64_t next_ino;	/* next inode number to hand out */
	uint64_t next_pblk;	/* high-water mark of the block allocator */
	uint64_t live_blocks;	/* non-hole logical blocks over all files */
	uint64_t unique_blocks; /* physical blocks with refs > 0 */
	uint64_t logical_bytes; /* sum of regular file sizes */
	uint64_t inodes;	/* live inodes */
};

struct ms_inode {
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	uint32_t nlink;
	uint64_t size; /* bytes */
	uint64_t rdev;
	int64_t atime_ns; /* ns since the epoch */
	int64_t mtime_ns;
	int64_t ctime_ns;
	int64_t btime_ns;
	uint64_t parent;      /* directories: ino of the parent (for "..") */
	uint64_t next_cookie; /* directories: next readdir cookie */
	uint64_t nblocks;     /* regular files: non-hole 4 KiB blocks */
};

struct ms_dirent_val {
	uint64_t ino;
	uint64_t cookie;
};

/* One slot of a `blocks` record: a pblk's refcount and checksums. */
struct ms_block {
	uint64_t xxh3;	      /* XXH3-64 of the 4 KiB, checked on every read */
	uint32_t refs;	      /* logical blocks pointing here; 0: free slot */
	uint8_t sha1_head[4]; /* sha1[0..4): finds its fpindex item */
};
_Static_assert(sizeof(struct ms_block) == 16, "struct ms_block is 16 bytes");

struct metastore;

/* The smallest metadata bound (--meta-max) a store works with: a new
 * store's schema and its first files. */
#define MS_MIN_MAP_BYTES (1ull << 20)

/* Open the store in directory @dir: take its lock, then open STORE/meta,
 * formatting a new store when @create and @dir is empty. The lock is an
 * exclusive flock on STORE/lock (holding the owner's pid), taken by every
 * open, read-only ones too, so fsck never runs on a mounted store.
 * @map_bytes bounds the metadata size (0: default 64 GiB; at least
 * MS_MIN_MAP_BYTES, or -EINVAL naming --meta-max). On failure
 * writes a one-line reason to @err and returns -errno: -ENOENT (no such
 * directory), -ENOTDIR, -EACCES (not writable), -EBUSY (locked: mounted),
 * -EPROTO (another format version), -EINVAL (not an arraysim store),
 * -EIO (damaged metadata). */
int metastore_open(const char *dir, uint64_t map_bytes, bool create,
		   bool readonly, struct metastore **out, char *err,
		   size_t errlen);
void metastore_close(struct metastore *ms);
/* The structural check a mount runs (meta/metastore_check.c): schema,
 * counters, the seals of a bounded sample of every table, the counters
 * against the sampled keys. 0, or -EIO with one line in @err. */
int metastore_check(struct metastore *ms, char *err, size_t errlen);
MDB_env *metastore_env(const struct metastore *ms);
MDB_dbi metastore_dbi(const struct metastore *ms, enum ms_table t);
/* The LMDB name of table @t ("inodes", "bmap", ...). */
const char *metastore_table_name(enum ms_table t);

/* Make every committed transaction durable, then release pending blocks to
 * the free map. 0 or -errno. */
int metastore_sync(struct metastore *ms);

/* Replication (replication/): while held, metastore_sync leaves freed
 * blocks pending, so that none is reused while a replica may still point
 * at its old bytes; metastore_release_listed moves the given ones to the
 * free map once their frees are durable and the replica has them free:
 * the number of transactions it committed, or -errno. */
void metastore_hold_pending(struct metastore *ms, bool hold);
int metastore_release_listed(struct metastore *ms, const uint64_t *pblk,
			     size_t n);

/* Transactions: 0 or -errno (LMDB codes mapped by metastore_errno). */
int metastore_txn_begin(struct metastore *ms, bool write, MDB_txn **out);
int metastore_txn_commit(MDB_txn *txn);
void metastore_txn_abort(MDB_txn *txn);
/* Map an LMDB return code to -errno (MDB_MAP_FULL -> -ENOSPC,
 * MDB_NOTFOUND -> -ENOENT, corruption -> -EIO). */
int metastore_errno(int mdb_rc);

/* The value of @key in table @dbi, copied to @out, which must be exactly
 * @size bytes: 0, -ENOENT, -EIO (a value of another size) or -errno. */
int metastore_get_exact(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, void *out,
			size_t size);

/* ---- seals (meta/metastore_seal.c) ---- */

/* Does table @t seal its records? All but freemap and pending. */
bool ms_table_sealed(enum ms_table t);
/* The seal of a record of @t with key @k and value bytes @val[0..@len). */
uint32_t ms_seal_of(enum ms_table t, const MDB_val *k, const void *val,
		    size_t len);
/* Seal @val in place: its last MS_SEAL_LEN of @size bytes. */
void ms_seal(enum ms_table t, const MDB_val *k, void *val, size_t size);
/* Is record (@k, @v) of @t whole? */
bool ms_sealed(enum ms_table t, const MDB_val *k, const MDB_val *v);
/* Record @key (a 64-bit key) of @t was changed in place in @txn. false:
 * seal it now (its first change in @txn, or too many noted); true: it is
 * sealed just before @txn commits (metastore_txn_commit), once however
 * often it changes until then (meta/metastore_defer.c). */
bool ms_seal_later(const struct metastore *ms, MDB_txn *txn, enum ms_table t,
		   uint64_t key);
/* Was record @key of @t changed in @txn, its seal maybe stale until the
 * commit (and checked when first opened in @txn)? */
bool ms_seal_pending(MDB_txn *txn, enum ms_table t, uint64_t key);
/* What key @k of @t names ("inode 12 offset 262144", "blocks 80..159"). */
void ms_record_name(enum ms_table t, const MDB_val *k, char *buf, size_t len);
/* "Not known" for metastore_damaged's @ino and @off. */
#define MS_NO_INO UINT64_MAX
/* Report record @k of @t as damaged: counted (and in the counter given to
 * metastore_count_damage), logged once per record naming @ino and @off
 * (MS_NO_INO: what the key names). Returns -EIO. */
int metastore_damaged(const struct metastore *ms, enum ms_table t,
		      const MDB_val *k, uint64_t ino, uint64_t off);
/* The same, the log saying @why instead of "fails its checksum". */
int metastore_damaged_why(const struct metastore *ms, enum ms_table t,
			  const MDB_val *k, uint64_t ino, uint64_t off,
			  const char *why);
/* Also count damaged records in @counter (the stats' meta_checksum_errors). */
void metastore_count_damage(struct metastore *ms, _Atomic uint64_t *counter);
uint64_t metastore_damage_count(const struct metastore *ms);
/* Get/put a sealed fixed-size record: the value is @size bytes and its
 * seal. Get: 0, -ENOENT, -EIO (damaged: reported) or -errno. */
int metastore_get_sealed(const struct metastore *ms, MDB_txn *txn,
			 enum ms_table t, MDB_val *key, void *out, size_t size);
int metastore_put_sealed(const struct metastore *ms, MDB_txn *txn,
			 enum ms_table t, MDB_val *key, const void *in,
			 size_t size, unsigned flags);

/* Typed get/put of the counters record inside @txn (sealed). */
int metastore_counters_get(const struct metastore *ms, MDB_txn *txn,
			   struct ms_counters *out);
int metastore_counters_put(const struct metastore *ms, MDB_txn *txn,
			   const struct ms_counters *c);

/* Keep the state each metastore_sync() makes durable (pinned until the
 * next sync), so that metastore_durable_save() can emulate a power loss.
 * Costs write throughput. 0, or -EROFS / -EAGAIN (no reader slot). */
int metastore_track_durable(struct metastore *ms);
/* Emulate a power loss: save the state the last metastore_sync() made
 * durable (kept pinned since; see meta/metastore_durable.c) so that the
 * next open of the store starts from it, losing every later commit. The
 * caller must stop writing and syncing the store. 0, or -errno with a
 * reason in @err. */
int metastore_durable_save(struct metastore *ms, char *err, size_t errlen);

/* Key helpers: big-endian u64 so keys sort numerically. Inline: the seal
 * code names keys with them, and calls nothing back in metastore.c. */
static inline void ms_put_be64(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}
static inline uint64_t ms_get_be64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}
/* A pblk as stored in fpindex items and bmap extents (MS_PBLK_BYTES,
 * big-endian); @v must be < MS_PBLK_LIMIT. */
static inline void ms_put_pblk(uint8_t *p, uint64_t v)
{
	p[0] = (uint8_t)(v >> 32);
	p[1] = (uint8_t)(v >> 24);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 8);
	p[4] = (uint8_t)v;
}
/* Inline: a bmap extent decodes 64 of these per request. */
static inline uint64_t ms_get_pblk(const uint8_t *p)
{
	return (uint64_t)p[0] << 32 | (uint64_t)p[1] << 24 |
	       (uint64_t)p[2] << 16 | (uint64_t)p[3] << 8 | p[4];
}
/* A bmap extent's pblks (MS_BMAP_PBLK_LEN bytes) to and from pblks. */
void ms_bmap_encode(const uint64_t pblk[BMAP_EXTENT_BLOCKS], uint8_t *v);
void ms_bmap_decode(const uint8_t *v, uint64_t pblk[BMAP_EXTENT_BLOCKS]);

#endif
