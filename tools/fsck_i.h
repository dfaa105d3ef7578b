/* State of one fsck run, shared by tools/fsck*.c only. */
#ifndef ARRAYSIM_TOOLS_FSCK_I_H
#define ARRAYSIM_TOOLS_FSCK_I_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "meta/metastore.h"
#include "tiers/backing.h"

/* One inode: its record plus what the other tables say about it. */
struct fsck_inode {
	uint64_t ino;
	struct ms_inode in;
	uint64_t names;	   /* dirents naming it */
	uint64_t entries;  /* directories: dirents inside it */
	uint64_t subdirs;  /* directories: those of its entries that are dirs */
	uint64_t mapped;   /* regular files: non-hole map entries */
	uint64_t past_eof; /* map entries past the size */
	uint64_t first_past; /* the first of those, a block number */
	bool orphan;	     /* listed in `orphans` */
	bool symlink;	     /* has a `symlinks` record */
};

/* What the tables say about one pblk (bits of fsck.state[]). */
enum {
	FSCK_USED = 1,	   /* has a `blocks` record */
	FSCK_FREE = 2,	   /* in `freemap` */
	FSCK_PENDING = 4,  /* in `pending` */
	FSCK_BAD = 8,	   /* unreadable or damaged: list who references it */
	FSCK_INDEXED = 16, /* an fpindex item names it */
};

struct fsck {
	const char *store;
	struct metastore *ms;
	MDB_txn *txn; /* one read snapshot for every check */
	struct backing *backing;
	struct backing_dev dev;
	FILE *out;
	bool quiet;
	int problems;
	int warnings;

	struct ms_counters c; /* as stored; zeros when unreadable */
	uint64_t npblk;	      /* pblks [1, npblk) are checked */
	uint32_t *refs;	      /* per pblk: map entries pointing at it */
	uint8_t *state;	      /* per pblk: FSCK_* bits */
	bool any_bad;	      /* some pblk has FSCK_BAD */

	struct fsck_inode *inodes; /* sorted by ino */
	size_t ninodes;

	bool walked[MS_NTABLES]; /* fsck_walk has reported its seals */
	int sealed_bad;		 /* records whose seal fails */
	bool bmap_damaged;	 /* some of them block maps */
	bool counters_bad;	 /* the counters record missing or damaged */
	const char *prefix;	 /* before each problem line ("" or ...) */
	bool silent;		 /* problems counted, not printed */
	int repairs;		 /* "repaired: " lines */
	uint64_t *stale;	 /* orphans records of missing inodes */
	size_t nstale;

	uint64_t map_entries;	/* non-hole map entries over all extents */
	uint64_t block_records; /* records in `blocks` */
};

/* A problem: one line on out, counted. */
void fsck_problem(struct fsck *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Suspicious but legal: "warning: " line, not a problem. */
void fsck_warn(struct fsck *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Worth knowing, e.g. orphans of a killed run: "info: " line unless quiet. */
void fsck_info(struct fsck *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Call @fn on every record of table @t, in key order. Stops at the first
 * non-zero return of @fn (a -errno: the run cannot go on) and returns it;
 * LMDB errors are reported with tool_error() and returned as -errno. */
typedef int (*fsck_record_fn)(struct fsck *f, const MDB_val *k,
			      const MDB_val *v, void *ctx);
int fsck_walk(struct fsck *f, enum ms_table t, fsck_record_fn fn, void *ctx);

/* The inode @ino, or NULL. */
struct fsck_inode *fsck_inode(const struct fsck *f, uint64_t ino);

/* Checks, in the order fsck_run calls them (later ones use what earlier
 * ones gathered). Each returns 0, or -errno if the run cannot go on. */
int fsck_load_inodes(struct fsck *f);
int fsck_check_maps(struct fsck *f);   /* bmap: refs, sizes, owners */
int fsck_check_blocks(struct fsck *f); /* blocks: refs, index, data */
int fsck_check_fpindex(struct fsck *f);
int fsck_check_csizes(struct fsck *f); /* compressed sizes: stored blocks */
int fsck_check_free(struct fsck *f);   /* freemap, pending, leaks */
int fsck_list_bad_refs(struct fsck *f);
int fsck_check_namespace(struct fsck *f);
void fsck_check_counters(struct fsck *f);

/* --repair (tools/fsck_repair.c), after the checks: refcounts from the
 * block maps, orphans, counters, in one write transaction, each change a
 * "repaired: " line. 0 or -errno (reported; nothing changed). */
int fsck_repair(struct fsck *f);

#endif
