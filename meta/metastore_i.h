/* Inside the metadata store: what meta/metastore.c and
 * meta/metastore_durable.c share. Nothing else includes this. */
#ifndef ARRAYSIM_STORE_METASTORE_I_H
#define ARRAYSIM_STORE_METASTORE_I_H

#include <pthread.h>
#include <stdatomic.h>

#include "meta/metastore.h"

/* Damaged records met (metastore_damaged): counted, and logged once each. */
#define MS_DAMAGE_SEEN 64
struct ms_damage {
	_Atomic uint64_t count;
	_Atomic(_Atomic uint64_t *) sink; /* metastore_count_damage() */
	pthread_mutex_t lock;		  /* seen[], nseen */
	uint64_t seen[MS_DAMAGE_SEEN];	  /* hashes of logged keys */
	unsigned nseen;
};

struct metastore {
	MDB_env *env;
	MDB_dbi dbi[MS_NTABLES];
	int lock_fd;
	bool readonly;
	int data_fd; /* data.mdb, for fallocate */
	size_t page_bytes;
	pthread_mutex_t reserve_lock;
	uint64_t reserved_bytes; /* allocated from offset 0 */
	char dir[4096];		 /* the store directory */
	/* A read transaction on the state the last sync made durable, so
	 * that LMDB keeps its pages; NULL unless tracking is on. */
	MDB_txn *durable;
	bool track_durable; /* metastore_track_durable() */
	/* Replication: freed blocks stay pending until the replica has a
	 * state where they are free (metastore_hold_pending). */
	atomic_bool hold_pending;
	/* Mutable through a const struct metastore *: codecs report damage
	 * from read paths. */
	struct ms_damage *damage;
	/* LMDB orders a commit's page writes before a later reader's reads
	 * (the meta page) and a reader's reads before its pages are reused
	 * (the reader table) with plain loads and stores in a library we do
	 * not instrument. These two counters say the same to ThreadSanitizer
	 * (release at a commit and a transaction's end, acquire at a begin),
	 * so that it reports our races, not LMDB's design. */
	_Atomic uint64_t commits, ends;
};

/* LMDB flags of table @t (MDB_INTEGERKEY, MDB_DUPSORT, ...). */
unsigned metastore_table_flags(enum ms_table t);
/* Pin what is committed now as the durable state; called right after a
 * sync, while the caller holds the writer lock. */
void metastore_durable_pin(struct metastore *ms);
void metastore_durable_unpin(struct metastore *ms);
/* Before the store's metadata is opened: if a power loss left the durable
 * state saved beside it (meta.next/), make that the metadata. */
int metastore_durable_adopt(const char *dir, char *err, size_t errlen);

/* meta/metastore_defer.c: seal the records noted for @txn (before its
 * commit); forget them (@txn NULL: whatever this thread noted). */
int ms_seal_flush(MDB_txn *txn);
void ms_seal_drop(MDB_txn *txn);

#endif
