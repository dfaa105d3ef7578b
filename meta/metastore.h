/* The metadata store: one LMDB environment in STORE/meta, holding every
 * table of the datastore, so that one transaction changes the namespace,
 * the block maps, the fingerprint index, the refcounts and the free map
 * together or not at all.
 *
 *   table      key                       value
 *   ---------  ------------------------  ---------------------------------
 *   meta       "format","counters",...   see struct ms_* below
 *   inodes     ino (u64, native)         struct ms_inode
 *   dirnames   parent (BE) + name        struct ms_dirent_val
 *   dircookies parent (BE) + cookie (BE) ino (u64) + name (readdir order)
 *   symlinks   ino (u64, native)         target bytes
 *   xattrs     ino (BE) + name           value bytes
 *   bmap       ino (BE) + extent (BE)    64 pblks, 5 bytes BE each, 0=hole
 *   blocks     pblk / 80 (u64, native)   struct ms_block[80]: slot i is
 *                                        pblk key * 80 + i
 *   fpindex    one key (a 0 byte)        25-byte dups: sha1[0..20) then
 *                                        pblk (5 bytes BE), one per block
 *   freemap    pblk (u64, native)        empty: reusable now
 *   pending    pblk (u64, native)        empty: freed, reusable after sync
 *   orphans    ino (u64, native)         empty: nlink 0 still open, or a
 *                                        truncation in progress
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
 *   sha1[0..20) + pblk, sorted, so the blocks with one SHA-1 are adjacent,
 *   lowest pblk first. Random SHA-1s fill its pages to about 69%.
 *     lookup of sha1:  GET_BOTH_RANGE(0, sha1 + 5 zeros),
 *                      then NEXT_DUP while item[0..20) == sha1;
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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/block.h"

#define MS_FORMAT_VERSION 2
/* A pblk on disk (fpindex items, bmap extents): 40 bits big-endian, so a
 * store holds up to 4 PiB of unique blocks. */
#define MS_PBLK_BYTES 5u
#define MS_PBLK_LIMIT (1ull << (8 * MS_PBLK_BYTES))
#define BMAP_EXTENT_BLOCKS 64u
#define MS_BMAP_VALUE_LEN (BMAP_EXTENT_BLOCKS * MS_PBLK_BYTES)
/* Slots of one `blocks` record: 80 x 16 bytes, so that three records (with
 * LMDB's 18 bytes of node, key and index each) fill a 4 KiB page to 94%;
 * 64 slots left a quarter of every page empty. */
#define MS_BLOCK_EXTENT 80
#define MS_FP_ITEM_LEN (20u + MS_PBLK_BYTES) /* sha1[0..20) + pblk */

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

/* meta["format"] */
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
MDB_env *metastore_env(const struct metastore *ms);
MDB_dbi metastore_dbi(const struct metastore *ms, enum ms_table t);
/* The LMDB name of table @t ("inodes", "bmap", ...). */
const char *metastore_table_name(enum ms_table t);

/* Make every committed transaction durable, then release pending blocks to
 * the free map. 0 or -errno. */
int metastore_sync(struct metastore *ms);

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

/* Typed get/put of the counters record inside @txn. */
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

/* Key helpers: big-endian u64 so keys sort numerically. */
void ms_put_be64(uint8_t *p, uint64_t v);
uint64_t ms_get_be64(const uint8_t *p);
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
/* A bmap extent value (MS_BMAP_VALUE_LEN bytes) to and from pblks. */
void ms_bmap_encode(const uint64_t pblk[BMAP_EXTENT_BLOCKS], uint8_t *v);
void ms_bmap_decode(const uint8_t *v, uint64_t pblk[BMAP_EXTENT_BLOCKS]);

#endif
