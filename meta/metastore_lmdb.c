/* The metadata store's LMDB vocabulary: its tables' names and flags, and
 * LMDB's return codes as -errno. The one place both the store
 * (metastore.c) and its durable copy (metastore_durable.c) take them from,
 * so neither calls the other back. The layout of each table's keys and
 * values is in meta/metastore.h. */
#include <errno.h>
#include <lmdb.h>

#include "meta/metastore_i.h"

static const char *const table_names[MS_NTABLES] = {
    [MS_META] = "meta",		[MS_INODES] = "inodes",
    [MS_DIRNAMES] = "dirnames", [MS_DIRCOOKIES] = "dircookies",
    [MS_SYMLINKS] = "symlinks", [MS_XATTRS] = "xattrs",
    [MS_BMAP] = "bmap",		[MS_BLOCKS] = "blocks",
    [MS_FPINDEX] = "fpindex",	[MS_FREEMAP] = "freemap",
    [MS_PENDING] = "pending",	[MS_ORPHANS] = "orphans",
};

unsigned metastore_table_flags(enum ms_table t)
{
	switch (t) {
	case MS_INODES:
	case MS_SYMLINKS:
	case MS_BLOCKS:
	case MS_FREEMAP:
	case MS_PENDING:
	case MS_ORPHANS:
		return MDB_INTEGERKEY;
	case MS_FPINDEX:
		/* One key; items sha1[0..16) + pblk + seal. A SHA-1 names every
		 * block that has it: more than one only after a collision,
		 * which verify-on-match keeps apart. */
		return MDB_DUPSORT | MDB_DUPFIXED;
	default:
		return 0;
	}
}

const char *metastore_table_name(enum ms_table t)
{
	return table_names[t];
}

int metastore_errno(int rc)
{
	switch (rc) {
	case MDB_SUCCESS:
		return 0;
	case MDB_NOTFOUND:
		return -ENOENT;
	case MDB_KEYEXIST:
		return -EEXIST;
	case MDB_MAP_FULL:
	case MDB_TXN_FULL:
		return -ENOSPC;
	case MDB_READERS_FULL:
		return -EAGAIN;
	case MDB_CORRUPTED:
	case MDB_PAGE_NOTFOUND:
	case MDB_PANIC:
	case MDB_INVALID:
	case MDB_VERSION_MISMATCH:
	case MDB_BAD_TXN:
		return -EIO;
	default:
		return rc > 0 ? -rc : -EIO;
	}
}
